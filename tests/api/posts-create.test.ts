import crypto from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { aResident as aUser } from '../builders/locations.js';
import { aNeighbourhood, aPost, aResidentOf, aWav } from '../builders/posts.js';
import { JPEG_1X1, NOT_AN_IMAGE, PNG_1X1 } from '../helpers/images.js';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app.stop();
});

const POST_FIELDS = [
  'id', 'user', 'post_type', 'title', 'content', 'content_warning', 'tags', 'media', 'location', 'location_name', 'community', 'community_name',
  'shared_product', 'shared_store', 'shared_community', 'poll_data', 'audio_data', 'event_data', 'lost_found_data', 'likes_count', 'comments_count',
  'views_count', 'has_liked', 'has_bookmarked', 'created_at', 'updated_at', 'edited_at',
];

describe('POST /api/feed/posts/', () => {
  test('when a resident posts text, then 201 with the post in its location, and REST and socket read it identically', async () => {
    const place = await aNeighbourhood(app);
    const alice = place.founder;
    const res = await app.rest('POST', '/api/feed/posts/', { token: alice.token, body: { post_type: 'text', title: 'Lost cat', content: 'Has anyone seen a grey cat?' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...POST_FIELDS].sort());
    expect(res.body).toMatchObject({
      post_type: 'text',
      title: 'Lost cat',
      content: 'Has anyone seen a grey cat?',
      user: { id: alice.id, username: alice.username, display_name: alice.body.display_name, profile_picture: null },
      location: place.locationId,
      location_name: expect.any(String),
      community: null,
      media: [],
      poll_data: null,
      audio_data: null,
      likes_count: 0,
      comments_count: 0,
      views_count: 0,
      has_liked: false,
      has_bookmarked: false,
    });
    const rest = await app.rest('GET', `/api/feed/posts/${res.body.id}/`);
    const socket = await app.emit('posts.get', { post_id: res.body.id });
    expect(rest).toMatchObject({ status: 200, body: res.body });
    expect(socket).toEqual({ status: 200, body: rest.body });
  });

  test('when the author has no stored location, then 400 with the Location Required body and nothing is written', async () => {
    const homeless = await aUser(app);
    const res = await app.rest('POST', '/api/feed/posts/', { token: homeless.token, body: { post_type: 'text', content: 'hi' } });
    expect(res).toMatchObject({ status: 400, body: { error: 'Location Required', message: expect.any(String), action: 'update_location' } });
    const socket = await app.emit('posts.create', { post_type: 'text', content: 'hi' }, { token: homeless.token });
    expect(socket).toEqual({ status: 400, body: res.body });
  });

  test('when no token is sent, then 401', async () => {
    const res = await app.rest('POST', '/api/feed/posts/', { body: { post_type: 'text', content: 'hi' } });
    expect(res).toMatchObject({ status: 401, body: { detail: 'Authentication credentials were not provided.' } });
  });

  test.each([
    [{ post_type: 'video', content: 'x' }, { post_type: ['"video" is not a valid choice.'] }],
    [{ content: 'x' }, { post_type: ['This field is required.'] }],
    [{ post_type: 'text', content: 'x'.repeat(5001), title: 'too long' }, { content: ['Ensure this field has no more than 5000 characters.'] }],
    [{ post_type: 'text', content: '   ' }, { content: ['This field may not be blank.'] }],
    [{ post_type: 'poll', poll_question: 'Q?', poll_options: ['only one'] }, { poll_options: ['At least 2 poll options are required.'] }],
    [{ post_type: 'poll', poll_question: 'Q?', poll_options: ['a', 'b'], poll_expires_at: '2001-01-01T00:00:00Z' }, { poll_expires_at: ['The poll must expire in the future.'] }],
    [{ post_type: 'poll', poll_question: 'Q?', poll_options: ['a', 'b'], poll_expires_at: 'soon' }, { poll_expires_at: ['Enter a valid date/time (ISO 8601).'] }],
    [{ post_type: 'product_share' }, { shared_product_id: ['This field is required for product share posts.'] }],
    [{ post_type: 'store_share' }, { shared_store_id: ['This field is required for store share posts.'] }],
    [{ post_type: 'community_share' }, { shared_community_id: ['This field is required for community share posts.'] }],
    [{ post_type: 'text', content: 'x', community_id: 'nope' }, { community_id: ['Invalid UUID format.'] }],
    [{ post_type: 'image', content: 'no picture' }, { media: ['Attach at least one image to an image post.'] }],
    [{ post_type: 'audio' }, { audio_file: ['This field is required for audio posts.'] }],
  ].map(([body, errors]) => [JSON.stringify(errors), body, errors] as const))('when the body is invalid, then 400 %s on both transports, and nothing is written', async (_title, body, errors) => {
    const { founder } = await aNeighbourhood(app);
    const res = await app.rest('POST', '/api/feed/posts/', { token: founder.token, body });
    expect(res).toEqual(expect.objectContaining({ status: 400, body: errors }));
    expect(await app.emit('posts.create', body, { token: founder.token })).toEqual({ status: 400, body: errors });
    const mine = await app.rest('GET', '/api/posts/by-location/', { query: { location_id: (await app.rest('GET', '/api/users/profile/', { token: founder.token })).body.location.id } });
    expect(mine.body.total_posts).toBe(0);
  });

  test('when a poll is created, then its poll_data has the options in order with zero votes and is not expired', async () => {
    const { founder } = await aNeighbourhood(app);
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const post = await aPost(app, founder, { post_type: 'poll', content: 'Vote!', poll_question: 'Best bakery?', poll_options: ['North', 'South'], poll_allows_multiple: true, poll_expires_at: expires });
    expect(post.poll_data).toEqual({
      id: expect.any(String),
      question: 'Best bakery?',
      allows_multiple_choices: true,
      expires_at: expires,
      total_votes: 0,
      user_voted: false,
      is_expired: false,
      options: [
        { id: expect.any(String), option_text: 'North', votes_count: 0, order: 0, user_voted: false, percentage: 0 },
        { id: expect.any(String), option_text: 'South', votes_count: 0, order: 1, user_voted: false, percentage: 0 },
      ],
    });
  });

  test('when an image post is sent as multipart with two images in `media`, then both are stored in order with absolute URLs', async () => {
    const { founder } = await aNeighbourhood(app);
    const res = await app
      .http()
      .post('/api/feed/posts/')
      .set('Authorization', `Bearer ${founder.token}`)
      .field('post_type', 'image')
      .field('content', 'Sunset')
      .attach('media', PNG_1X1, 'a.png')
      .attach('media', JPEG_1X1, 'b.jpg');
    expect(res.status).toBe(201);
    const sizes = { width: 1, height: 1, placeholder: expect.stringMatching(/^[\w-]+$/), thumbnail: expect.stringMatching(/\.320\.webp$/), display: expect.stringMatching(/\.1280\.webp$/) };
    expect(res.body.media).toEqual([
      { id: expect.any(String), file: expect.stringMatching(/^http:\/\/.+\/media\/posts\/media\/.+\.png$/), media_type: 'image', order: 0, alt_text: null, ...sizes },
      { id: expect.any(String), file: expect.stringMatching(/\.jpg$/), media_type: 'image', order: 1, alt_text: null, ...sizes },
    ]);
    // The variants sit beside the file, under its name.
    expect(res.body.media[0].thumbnail).toBe(res.body.media[0].file.replace(/\.png$/, '.320.webp'));
    expect(res.body.media[1].display).toBe(res.body.media[1].file.replace(/\.jpg$/, '.1280.webp'));
    const file = await app.http().get(new URL(res.body.media[0].file).pathname);
    expect(file.status).toBe(200);
  });

  test('when an image post carries a file that is not an image, then 400 on `media` and no post', async () => {
    const { founder } = await aNeighbourhood(app);
    const res = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'image').attach('media', NOT_AN_IMAGE, 'x.png');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ 'media.0': ['Upload a valid image. The file you uploaded was either not an image or a corrupted image.'] });
  });

  test('when a poll is sent as multipart with repeated poll_options, then it is created', async () => {
    const { founder } = await aNeighbourhood(app);
    const res = await app
      .http()
      .post('/api/feed/posts/')
      .set('Authorization', `Bearer ${founder.token}`)
      .field('post_type', 'poll')
      .field('poll_question', 'Tea or coffee?')
      .field('poll_options', 'Tea')
      .field('poll_options', 'Coffee')
      .field('poll_allows_multiple', 'false');
    expect(res.status).toBe(201);
    expect(res.body.poll_data.options.map((o: { option_text: string }) => o.option_text)).toEqual(['Tea', 'Coffee']);
    expect(res.body.poll_data.allows_multiple_choices).toBe(false);
  });

  test('when an audio post is sent, then duration_seconds is read from the file, and transcription and waveform are null', async () => {
    const { founder } = await aNeighbourhood(app);
    const res = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').field('content', 'Listen').attach('audio_file', aWav(3), 'note.wav');
    expect(res.status).toBe(201);
    expect(res.body.audio_data).toEqual({ id: expect.any(String), audio_file: expect.stringMatching(/\/media\/posts\/audio\/.+\.wav$/), duration_seconds: 3, transcription: null, waveform_data: null });
  });

  test('when the audio file is not audio, or only looks like it, then 400 on audio_file and nothing is stored', async () => {
    const { founder } = await aNeighbourhood(app);
    const notAudio = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', NOT_AN_IMAGE, 'a.mp3');
    expect(notAudio.status).toBe(400);
    expect(Object.keys(notAudio.body)).toEqual(['audio_file']);
    // Right magic bytes, nothing behind them: the parser finds no duration.
    const fake = Buffer.concat([Buffer.from('RIFF\x10\x00\x00\x00WAVEjunk', 'latin1'), Buffer.alloc(16)]);
    const looksLike = await app.http().post('/api/feed/posts/').set('Authorization', `Bearer ${founder.token}`).field('post_type', 'audio').attach('audio_file', fake, 'a.wav');
    expect(looksLike.status).toBe(400);
    expect(looksLike.body).toEqual({ audio_file: ['Upload a valid audio file: its duration could not be read.'] });
  });

  test('when the community_id names no community, then a field error, never a 500', async () => {
    const { founder } = await aNeighbourhood(app);
    const community = await app.rest('POST', '/api/feed/posts/', { token: founder.token, body: { post_type: 'text', content: 'x', community_id: crypto.randomUUID() } });
    expect(community.status).toBe(400);
    expect(Object.keys(community.body)).toEqual(['community_id']);
  });
});

describe('compatibility paths', () => {
  test('when POST /api/posts/ {content, location_id} is sent, then a text post in that location; another location is refused', async () => {
    const alice = await aResidentOf(app);
    const elsewhere = await aResidentOf(app);
    const res = await app.rest('POST', '/api/posts/', { token: alice.token, body: { content: 'Simple', location_id: alice.locationId } });
    expect(res).toMatchObject({ status: 201, body: { post_type: 'text', content: 'Simple', location: alice.locationId, user: { username: alice.username } } });
    const wrong = await app.rest('POST', '/api/posts/', { token: alice.token, body: { content: 'Simple', location_id: elsewhere.locationId } });
    expect(wrong).toEqual(expect.objectContaining({ status: 400, body: { location_id: ['You can only post in your own location.'] } }));
    const list = await app.rest('GET', '/api/posts/by-location/', { query: { location_id: alice.locationId } });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ location_name: expect.any(String), total_posts: 1, posts: [{ id: res.body.id, content: 'Simple', likes_count: 0, comments_count: 0 }] });
    expect(await app.emit('posts.by_location', { location_id: alice.locationId })).toEqual({ status: 200, body: list.body });
  });
});
