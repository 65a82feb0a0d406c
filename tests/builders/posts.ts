import type { TestApp } from '../helpers/test-app.js';
import { unique } from '../helpers/test-app.js';
import type { TestUser } from './users.js';
import { aResident } from './locations.js';
import { pcm8Wav } from '../../scripts/demo/media.js';

/**
 * Builders for posts and comments. A "neighbourhood" is a fresh location (a unique city) that users join
 * through update-location; posts go to the author's location.
 */
export interface Neighbourhood {
  country: string;
  city: string;
  locationId: string;
}

export async function aNeighbourhood(app: TestApp, founder?: TestUser): Promise<Neighbourhood & { founder: TestUser }> {
  const user = founder ?? (await aResident(app));
  const place = { country: 'Postland', city: unique('City ') };
  const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: place });
  if (res.status !== 200) throw new Error(`update-location answered ${res.status} ${JSON.stringify(res.body)}`);
  return { ...place, locationId: res.body.location.id, founder: user };
}

/**
 * A registered user living in `place` (a new place when none is given). Registered from its own client
 * address (registration is rate limited per address, and these tests need many users).
 */
export async function aResidentOf(app: TestApp, place?: Neighbourhood): Promise<TestUser & { locationId: string }> {
  const user = await aResident(app);
  if (!place) {
    const made = await aNeighbourhood(app, user);
    return { ...user, locationId: made.locationId };
  }
  const res = await app.rest('POST', '/api/users/update-location/', { token: user.token, body: { country: place.country, city: place.city } });
  if (res.status !== 200) throw new Error(`update-location answered ${res.status} ${JSON.stringify(res.body)}`);
  return { ...user, locationId: res.body.location.id };
}

/** A post by `author` over REST (JSON); throws unless 201. */
export async function aPost(app: TestApp, author: TestUser, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await app.rest('POST', '/api/feed/posts/', { token: author.token, body: { post_type: 'text', content: `Hello ${unique()}`, ...fields } });
  if (res.status !== 201) throw new Error(`aPost answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function aPoll(app: TestApp, author: TestUser, fields: Record<string, unknown> = {}): Promise<any> {
  return aPost(app, author, {
    post_type: 'poll',
    content: '',
    poll_question: 'Where shall we meet?',
    poll_options: ['Park', 'Cafe', 'Library'],
    poll_expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    ...fields,
  });
}

export async function aComment(app: TestApp, author: TestUser, postId: string, fields: Record<string, unknown> = {}): Promise<any> {
  const res = await app.rest('POST', '/api/posts/comments/', { token: author.token, body: { post: postId, content: `Comment ${unique()}`, ...fields } });
  if (res.status !== 201) throw new Error(`aComment answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A valid WAV file of `seconds` of silence (8 kHz, 8-bit mono): real audio with a known duration. */
export function aWav(seconds: number): Buffer {
  const rate = 8000;
  return pcm8Wav(Buffer.alloc(rate * seconds, 128), rate);
}
