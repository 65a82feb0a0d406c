import { ApiError, createClient } from '../../client/lib/index.js';
import { DOT_PATH_PARAMETER } from '../../client/lib/rest.js';

/**
 * Path parameters are percent-encoded whole, but `.` and `..` cannot be: the URL standard reads them (and `%2e`) as
 * steps, so `/api/users/..` would be another path, another operation. The client refuses them before sending
 * anything (client/src/rest.ts, dotPathParameter). The service is not needed: the fetch given to the client records
 * what would have been sent and answers 200.
 */
function aRecordingClient() {
  const sent: string[] = [];
  const fetchImpl: typeof fetch = async (input) => {
    sent.push(new URL(String(input)).pathname);
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const client = createClient({ baseUrl: 'http://hyperlocal.test/', realtime: false, fetch: fetchImpl });
  return { client, sent };
}

test.each([
  ['users.get', 'username', '..'],
  ['users.get', 'username', '.'],
  ['posts.get', 'post_id', '..'],
  ['posts.get', 'post_id', '.'],
] as const)('when %s is called with %s %p, then it is refused 400 naming the parameter, on either transport, and nothing is sent', async (operation, parameter, value) => {
  const { client, sent } = aRecordingClient();
  for (const transport of ['rest', 'socket'] as const) {
    const refusal = await (client.call as (op: string, input: object, options: object) => Promise<unknown>)(operation, { [parameter]: value }, { transport }).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({ status: 400, body: { [parameter]: [DOT_PATH_PARAMETER] }, operation });
  }
  expect(sent).toEqual([]);
  client.close();
});

test.each([
  ['%2e', '/api/users/%252e'],
  ['%2E%2e', '/api/users/%252E%252e'],
  ['.%2e', '/api/users/.%252e'],
  ['...', '/api/users/...'],
  ['a/..', '/api/users/a%2F..'],
  ['.hidden', '/api/users/.hidden'],
])('when a path parameter only looks like a step (%p), then it is sent as a name, at the operation\'s own path', async (value, path) => {
  const { client, sent } = aRecordingClient();
  await client.call('users.get', { username: value });
  expect(sent).toEqual([path]);
  client.close();
});
