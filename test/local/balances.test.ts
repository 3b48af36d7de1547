// GET /balances: an answer before the first snapshot, and live reads that keep at most one snapshot a minute.
import { startHarness, type Harness } from '../support/local-stack';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const asks = async () => (await harness.upstreamRequests('/v2/accounts/list')).length;
const kept = async () =>
  (await harness.api('GET', '/balances/history?since=2020-01-01T00:00:00.000Z', { token: 'admin' })).body
    .data;

test('before any snapshot, GET /balances answers from the service and keeps what it said', async () => {
  expect(await kept()).toEqual([]);

  const answer = await harness.api('GET', '/balances', { token: 'admin' });

  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ source: 'live', taken_at: expect.stringMatching(ISO_MS) });
  expect(answer.body.balances.length).toBeGreaterThan(0);
  expect(await asks()).toBe(1);
  expect(await kept()).toEqual([answer.body]);
});

test('then it answers the snapshot, without asking the service', async () => {
  const [snapshot] = await kept();

  const answer = await harness.api('GET', '/balances', { token: 'admin' });

  expect(answer.body).toEqual(snapshot);
  expect(await asks()).toBe(1);
});

test('live reads ask the service every time, and within a minute keep no second snapshot', async () => {
  const before = await asks();

  const answers = await Promise.all(
    Array.from({ length: 5 }, () => harness.api('GET', '/balances?live=true', { token: 'admin' })),
  );

  expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
  expect((await asks()) - before).toBe(5);
  expect(await kept()).toHaveLength(1);
});
