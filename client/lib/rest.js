/** The field error of a call refused by dotPathParameter (the service's 400 body shape: `{[parameter]: [message]}`). */
export const DOT_PATH_PARAMETER = 'Not a valid path parameter: "." and ".." name no item.';
/**
 * The path parameter of `input` that a URL would read as a step instead of a name, if any: `.` or `..` as a whole
 * segment (`new URL` resolves `/api/feed/posts/../` to `/api/feed/`, another operation). Such a value can never be
 * sent as a path parameter (the URL standard reads `%2e` as a dot too), so the call is refused before anything is
 * sent. Other values are percent-encoded whole (`%2e` typed by someone goes as `%252e`, a name).
 */
export function dotPathParameter(route, input) {
    for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
        const value = input[name];
        if (value === undefined || value === null)
            continue;
        const segment = String(value);
        if (segment === '.' || segment === '..')
            return name;
    }
    return null;
}
export async function restCall(req) {
    const dotted = dotPathParameter(req.route, req.input);
    // Never sent to another path than the operation's (callers refuse it before: Client.request).
    if (dotted)
        throw new TypeError(`@hyperlocal/client: "${String(req.input[dotted])}" cannot be the path parameter ${dotted}`);
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
