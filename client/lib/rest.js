export async function restCall(req) {
    const { route, input } = req;
    const rest = { ...input };
    const path = route.path.replace(/\{(\w+)\}/g, (_m, name) => {
        const value = rest[name];
        delete rest[name];
        return encodeURIComponent(String(value));
    });
    const url = new URL(path, req.baseUrl.replace(/\/*$/, '/'));
    const headers = { accept: 'application/json', ...req.headers };
    if (req.token)
        headers.authorization = `Bearer ${req.token}`;
    let body;
    if (route.method === 'GET') {
        for (const [name, value] of Object.entries(rest))
            for (const item of listOf(value))
                url.searchParams.append(name, text(item));
    }
    else if (hasFile(route, rest)) {
        body = formData(rest);
    }
    else if (Object.values(rest).some((v) => v !== undefined)) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(rest);
    }
    const res = await req.fetch(url, { method: route.method, headers, body, signal: req.signal });
    const raw = await res.text();
    let parsed = raw;
    if (res.status === 204 || raw === '')
        parsed = null;
    else {
        try {
            parsed = JSON.parse(raw);
        }
        catch {
            // not JSON (a proxy's error page): kept as text
        }
    }
    return { status: res.status, body: parsed, retryAfter: res.headers.get('retry-after'), date: res.headers.get('date') };
}
const isBlob = (v) => typeof Blob !== 'undefined' && v instanceof Blob;
/** Whether the input carries a file in one of the operation's file fields: such a call goes over REST. */
export function hasFile(route, input) {
    return route.files.some((name) => listOf(input[name]).some(isBlob));
}
const listOf = (value) => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);
const text = (value) => (typeof value === 'object' ? JSON.stringify(value) : String(value));
/** Lists become repeated fields; objects go as JSON text (multipart has no nesting); null and undefined are left out. */
function formData(input) {
    const form = new FormData();
    for (const [name, value] of Object.entries(input)) {
        for (const item of listOf(value)) {
            if (isBlob(item))
                form.append(name, item, item.name || name);
            else
                form.append(name, text(item));
        }
    }
    return form;
}
