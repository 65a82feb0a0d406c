export function deliveriesOf(pages, seen) {
    const planned = new Set();
    const isNew = (key) => !seen.has(key) && !planned.has(key);
    const out = [];
    const push = (event, payload, at, key) => {
        planned.add(key);
        out.push({ event, payload, at });
    };
    const versioned = (kind, item) => {
        const version = `${kind}:${item.id}@${item.updated_at}`;
        if (isNew(`${kind}:${item.id}`)) {
            planned.add(`${kind}:${item.id}`);
            push(`${kind}:created`, item, item.created_at, version);
        }
        else if (isNew(version))
            push(`${kind}:updated`, item, item.updated_at, version);
    };
    for (const page of pages) {
        for (const n of page.notifications)
            versioned('notification', n);
        for (const o of page.orders)
            versioned('order', o);
        for (const m of page.messages)
            if (isNew(`message:${m.id}`))
                push('message:created', m, m.created_at, `message:${m.id}`);
        for (const p of page.posts)
            if (isNew(`post:${p.id}`))
                push('post:created', p, p.created_at, `post:${p.id}`);
        for (const d of page.deleted) {
            const key = `deleted:${d.type}:${d.id}`;
            if (!isNew(key))
                continue;
            if (d.type === 'post')
                push('post:deleted', { id: d.id }, d.deleted_at, key);
            else
                push('deleted', d, d.deleted_at, key);
        }
    }
    // A stable sort: what happened at the same instant keeps the order above.
    return out.map((d, i) => ({ d, i, t: Date.parse(d.at) })).sort((a, b) => a.t - b.t || a.i - b.i).map(({ d }) => d);
}
