import { nextEvent, startTestApp, unique, type TestApp } from '../helpers/test-app.js';
import { aLocation, aResident, adminEnv, loginAdmin, offset } from '../builders/locations.js';

let app: TestApp;
const admin = adminEnv();
let adminToken: string;
beforeAll(async () => {
  app = await startTestApp(admin);
  adminToken = await loginAdmin(app, admin);
});
afterAll(async () => {
  await app.stop();
});

const suggest = (id: string, token: string, name: string) => app.rest('POST', `/api/locations/locations/${id}/suggest_name/`, { token, body: { name } });
const detail = (id: string, token: string) => app.rest('GET', `/api/locations/locations/${id}/`, { token });

describe('consensus naming through suggest_name', () => {
  test('when 7 of 10 members back a new name, then it is only recorded; the 8th vote (above 60 %) renames the location', async () => {
    const loc = await aLocation(app, { size: 10, name: 'Oldtown' });
    for (const r of loc.residents.slice(0, 7)) {
      const res = await suggest(loc.id, r.token, 'Bluebell Bay');
      expect(res.body).toMatchObject({ message: 'Name suggestion recorded', current_name: 'Oldtown', suggested_name: 'Bluebell Bay', vote_weight: 0.05 });
    }
    expect((await detail(loc.id, loc.residents[0].token)).body).toMatchObject({ name: 'Oldtown', confidence_score: 0.2363 });
    const eighth = await suggest(loc.id, loc.residents[7].token, 'bluebell bay');
    expect(eighth).toMatchObject({ status: 200, body: { message: expect.any(String), old_name: 'Oldtown', new_name: 'Bluebell Bay', confidence: 0.6363, vote_weight: 0.05 } });
    expect((await detail(loc.id, loc.residents[0].token)).body).toMatchObject({ name: 'Bluebell Bay', confidence_score: 0.6363 });
  });

  test('when an approved name keeps 2 of 10 votes, then 8 votes for another name are not 10 % better; a 9th is, and renames', async () => {
    const loc = await aLocation(app, { size: 10, name: 'Oldtown' });
    const approve = await app.rest('PATCH', `/api/admin/locations/${loc.id}/`, { token: adminToken, body: { moderator_approved: true } });
    expect(approve.body).toMatchObject({ moderator_approved: true, confidence_score: 0.5363 });
    await suggest(loc.id, loc.residents[8].token, 'Oldtown');
    await suggest(loc.id, loc.residents[9].token, 'Oldtown');
    for (const r of loc.residents.slice(0, 8)) await suggest(loc.id, r.token, 'Bluebell Bay');
    // Bluebell Bay: 0.5 × 0.8 + 0.236 = 0.636 (> 60 %); Oldtown: 0.5 × 0.2 + 0.236 + 0.3 = 0.636, so not 10 % better.
    expect((await detail(loc.id, adminToken)).body).toMatchObject({ name: 'Oldtown', confidence_score: 0.6363, moderator_approved: true });
    const switched = await suggest(loc.id, loc.residents[9].token, 'Bluebell Bay');
    expect(switched.body).toMatchObject({ old_name: 'Oldtown', new_name: 'Bluebell Bay', confidence: 0.6863 });
    // The moderator approved the old name, not this one.
    expect((await detail(loc.id, adminToken)).body).toMatchObject({ name: 'Bluebell Bay', moderator_approved: false });
  });

  test('when a socket watches a location and it is renamed, then it receives location:updated with the new name', async () => {
    const loc = await aLocation(app, { size: 2, name: 'Quietplace' });
    const watcher = await app.socket();
    expect(await watcher.timeout(5000).emitWithAck('subscribe', { channel: 'location', id: loc.id })).toEqual({ status: 200, body: { channel: 'location', id: loc.id } });
    await suggest(loc.id, loc.residents[0].token, 'Harbour Lights');
    const renamed = nextEvent(watcher, 'location:updated');
    await suggest(loc.id, loc.residents[1].token, 'Harbour Lights');
    const payload = await renamed;
    expect(payload).toMatchObject({ id: loc.id, name: 'Harbour Lights', total_users: 2, confidence_score: expect.any(Number) });
    expect(payload).not.toHaveProperty('latitude_of_users');
  });

  test('when subscribing to an unknown location, then 404', async () => {
    const s = await app.socket();
    expect(await s.timeout(5000).emitWithAck('subscribe', { channel: 'location', id: '00000000-0000-4000-8000-000000000000' })).toEqual({ status: 404, body: { detail: 'Not found.' } });
  });

  test('when a name is inappropriate or malformed, then 400 with the contract body or a field error', async () => {
    const loc = await aLocation(app, { size: 1 });
    const token = loc.residents[0].token;
    expect(await suggest(loc.id, token, 'Fuck Town')).toMatchObject({ status: 400, body: { error: 'Name contains inappropriate content' } });
    expect((await suggest(loc.id, token, 'x')).body).toEqual({ name: ['Name must be 2 to 100 characters of letters, digits and basic punctuation.'] });
    expect(await app.emit('locations.suggest_name', { location_id: loc.id, name: 'Shit Hill' }, { token })).toEqual({ status: 400, body: { error: 'Name contains inappropriate content' } });
  });

  test('when a user sends more than 5 suggestions in 5 minutes, then 429 with retry_after 300', async () => {
    const loc = await aLocation(app, { size: 1 });
    const token = loc.residents[0].token;
    for (let i = 0; i < 4; i++) expect((await suggest(loc.id, token, `Name ${i}`)).status).toBe(200);
    const last = await suggest(loc.id, token, 'Name ok');
    expect(last.status).toBe(200);
    const spam = await suggest(loc.id, token, 'Name spam');
    expect(spam).toMatchObject({ status: 429, body: { error: 'Too many suggestions. Please try again later.', retry_after: 300 } });
    expect(spam.headers['retry-after']).toBe('300');
    expect(await app.emit('locations.suggest_name', { location_id: loc.id, name: 'Again' }, { token })).toEqual({ status: 429, body: { error: 'Too many suggestions. Please try again later.', retry_after: 300 } });
  });

  test('when suggest_name runs over REST and over the socket in the same situation, then the bodies are identical', async () => {
    const [a, b] = [await aLocation(app, { size: 1, name: 'Mirror' }), await aLocation(app, { size: 1, name: 'Mirror' })];
    const rest = await suggest(a.id, a.residents[0].token, 'Looking Glass');
    const socket = await app.emit('locations.suggest_name', { location_id: b.id, name: 'Looking Glass' }, { token: b.residents[0].token });
    expect(rest.status).toBe(200);
    expect(socket).toEqual({ status: rest.status, body: rest.body });
    expect(rest.body).toEqual({ message: 'Name suggestion recorded', current_name: 'Mirror', suggested_name: 'Looking Glass', vote_weight: 0.05, top_suggestions: [{ name: 'Looking Glass', votes: 0.05 }] });
  });

  test('when the location is unknown or the id malformed, then 404 or the UUID field error', async () => {
    const loc = await aLocation(app, { size: 1 });
    expect(await suggest('00000000-0000-4000-8000-000000000000', loc.residents[0].token, 'Anything')).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    expect(await suggest('nope', loc.residents[0].token, 'Anything')).toMatchObject({ status: 400, body: { location_id: ['Invalid UUID format.'] } });
  });
});

describe('name_suggestions and suggestions views', () => {
  test('when similar names were suggested, then the grouped view sums them under the heaviest one and the individual view lists each', async () => {
    const loc = await aLocation(app, { size: 4, name: 'Oldtown' });
    const [a, b, c, d] = loc.residents;
    await suggest(loc.id, a.token, 'Greenwood');
    await suggest(loc.id, b.token, 'Greenwood');
    await suggest(loc.id, c.token, 'Greenwod');
    await suggest(loc.id, d.token, 'Oak Hill');
    const path = `/api/locations/locations/${loc.id}/name_suggestions/`;
    const grouped = await app.rest('GET', path, { token: a.token });
    expect(grouped.status).toBe(200);
    expect(grouped.body).toMatchObject({
      location_name: 'Oldtown',
      total_suggestions: 4,
      view_type: 'grouped',
      consensus_data: { Greenwood: 0.1, Greenwod: 0.05, 'Oak Hill': 0.05 },
      top_voted_names: [['Greenwood', 0.1], ['Greenwod', 0.05], ['Oak Hill', 0.05]],
    });
    expect(grouped.body.grouped_suggestions.map((g: any) => [g.representative_name, g.total_weight, g.suggestion_count, g.is_current_name])).toEqual([
      ['Greenwood', 0.15, 3, false],
      ['Oak Hill', 0.05, 1, false],
    ]);
    expect(grouped.body.grouped_suggestions[0].suggestions[0]).toEqual({ id: expect.any(String), suggested_name: expect.stringMatching(/^Greenwo/), user: { username: expect.any(String), display_name: expect.any(String) }, vote_weight: 0.05, created_at: expect.any(String) });

    const individual = await app.rest('GET', path, { token: a.token, query: { show_individual: 'true', page_size: 3 } });
    expect(individual.body).toMatchObject({ count: 4, previous: null, results: { location_name: 'Oldtown', total_suggestions: 4, view_type: 'individual' } });
    expect(individual.body.next).toContain('page=2');
    expect(individual.body.results.suggestions).toHaveLength(3);
    expect(individual.body.results.suggestions[0]).toEqual(expect.objectContaining({ is_current_name: false, similarity_to_current: expect.any(Number), user: expect.any(Object) }));

    for (const query of [{}, { show_individual: 'true', page_size: 3 }]) {
      const rest = await app.rest('GET', path, { token: a.token, query });
      const socket = await app.emit('locations.name_suggestions', { location_id: loc.id, ...query }, { token: a.token });
      expect(socket).toEqual({ status: 200, body: rest.body });
    }
  });

  test('when listing suggestions by location and my_suggestions, then is_current_name and similarity_to_current are given', async () => {
    const loc = await aLocation(app, { size: 2, name: 'Kelpie Point' });
    const [me, other] = loc.residents;
    await suggest(loc.id, me.token, 'Kelpie Pt');
    await suggest(loc.id, other.token, 'Kelpie Point');
    const mine = await app.rest('GET', '/api/locations/suggestions/', { token: me.token, query: { location_id: loc.id, my_suggestions: 'true' } });
    expect(mine.body).toMatchObject({ count: 1, results: [{ suggested_name: 'Kelpie Pt', location_name: 'Kelpie Point', user: { username: me.username }, vote_weight: 0.05, is_current_name: false, similarity_to_current: 75 }] });
    const all = await app.rest('GET', '/api/locations/suggestions/', { token: me.token, query: { location_id: loc.id } });
    expect(all.body.count).toBe(2);
    expect(all.body.results.find((r: any) => r.suggested_name === 'Kelpie Point')).toMatchObject({ is_current_name: true, similarity_to_current: 100 });
    const socket = await app.emit('locations.suggestions', { location_id: loc.id }, { token: me.token });
    expect(socket).toEqual({ status: 200, body: all.body });
  });
});

describe('who may suggest a name', () => {
  test('when someone who neither lives in nor near a location suggests a name, then 403 over both transports and nothing is recorded', async () => {
    const loc = await aLocation(app, { size: 1, name: 'Guarded' });
    const stranger = await aLocation(app, { size: 1 });
    const token = stranger.residents[0].token;
    const FORBIDDEN = { status: 403, body: { detail: 'You do not have permission to perform this action.' } };
    expect(await suggest(loc.id, token, 'Takeover Town')).toMatchObject(FORBIDDEN);
    expect(await app.emit('locations.suggest_name', { location_id: loc.id, name: 'Takeover Town' }, { token })).toEqual(FORBIDDEN);
    const view = await app.rest('GET', `/api/locations/locations/${loc.id}/name_suggestions/`, { token: loc.residents[0].token });
    expect(view.body).toMatchObject({ total_suggestions: 0, grouped_suggestions: [] });
  });

  test('when a user of another location lives just outside the boundary, then it may suggest; a member may too', async () => {
    const loc = await aLocation(app, { size: 1, name: 'Borderland' });
    // A neighbour: registered elsewhere by address, with a point 1.2 km from the location's spot
    // (outside its 500 m and the 400 m cell margin, inside the 1 km reach beyond it).
    const neighbour = await aResident(app);
    const moved = await app.rest('POST', '/api/users/update-location/', { token: neighbour.token, body: { country: 'Testland', city: unique('Next Door '), ...offset(loc.spot, 1200, 0) } });
    expect(moved.status).toBe(200);
    expect(moved.body.location.id).not.toBe(loc.id);
    expect(await suggest(loc.id, neighbour.token, 'Border Hill')).toMatchObject({ status: 200, body: { suggested_name: 'Border Hill' } });
    expect(await suggest(loc.id, loc.residents[0].token, 'Border Hill')).toMatchObject({ status: 200 });
  });
});
