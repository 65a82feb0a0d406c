import { keysOf, postDeletionKeys } from './seen.js';
export function deliveriesOf(pages, seen) {
    const planned = new Set();
    const known = (key) => seen.has(key) || planned.has(key);
    const out = [];
    const push = (event, payload, at, keys) => {
        for (const key of keys)
            planned.add(key);
        out.push({ event, payload, at, keys });
    };
    // The keys are the ones a live event of the same item marks as seen (seen.ts): one scheme for both paths.
    const versioned = (kind, item) => {
        const keys = keysOf(`${kind}:created`, item);
        const [created, version] = keys;
        if (!known(created))
            push(`${kind}:created`, item, item.created_at, keys);
        else if (!known(version))
            push(`${kind}:updated`, item, item.updated_at, keys);
    };
    const once = (event, item, at) => {
        const keys = keysOf(event, item);
        if (keys.length && !keys.some(known))
            push(event, item, at, keys);
    };
    const post = (p) => {
        const keys = keysOf('post:created', p);
        const [had, version] = keys;
        if (known(version))
            return;
        // The handlers have this post, alive: this version is an edit. Never had, or told it is gone: it is (back) new.
        if (known(had) && !known(postDeletionKeys(p.id)[0]))
            push('post:updated', p, p.updated_at, keys);
        else
            push('post:created', p, p.created_at, keys);
    };
    for (const page of pages) {
        for (const n of page.notifications)
            versioned('notification', n);
        for (const o of page.orders)
            versioned('order', o);
        for (const m of page.messages)
            once('message:created', m, m.created_at);
        for (const p of page.posts)
            post(p);
        for (const d of page.deleted) {
            // A post's deletion as it is pushed live (post:deleted {id}); a comment's or message's as the client's `deleted`.
            if (d.type === 'post') {
                const keys = postDeletionKeys(d.id, d.deleted_at);
                // Known when the handlers were told the post is gone (live, or earlier in this replay), or of this very deletion.
                if (!keys.some(known))
                    push('post:deleted', { id: d.id }, d.deleted_at, keys);
            }
            else
                once('deleted', d, d.deleted_at);
        }
    }
    // A stable sort: what happened at the same instant keeps the order above.
    return out.map((d, i) => ({ d, i, t: Date.parse(d.at) })).sort((a, b) => a.t - b.t || a.i - b.i).map(({ d }) => d);
}
