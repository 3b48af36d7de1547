import { jobs, route, routes, type Route, type ScheduledJob } from '../../lib/routes';
import type { SecretName } from '../../secrets/fields';

test('route(name) answers the table entry of that route', () => {
  for (const entry of routes) expect(route(entry.name)).toBe(entry);
});

test('names are unique across routes and jobs, and so are method and path', () => {
  const names = [...routes, ...jobs].map((facts) => facts.name);
  expect(new Set(names).size).toBe(names.length);
  const keys = routes.map(({ method, path }) => `${method} ${path}`);
  expect(new Set(keys).size).toBe(keys.length);
});

// These checks run in the typecheck: each directive fails `tsc` if the entry below it compiles.
test('a route or a job that leaves out a deployment fact does not compile', () => {
  const complete = {
    method: 'GET',
    path: '/health',
    name: 'health',
    access: 'admin',
    throttle: 'admin',
    data: { table: [] },
    secrets: ['tokens'],
    concurrency: 'shared',
  } as const satisfies Route;
  const { throttle: _throttle, ...withoutThrottle } = complete;
  const { access: _access, ...withoutAccess } = complete;
  const { data: _data, ...withoutData } = complete;
  const { secrets: _secrets, ...withoutSecrets } = complete;
  const { concurrency: _concurrency, ...withoutConcurrency } = complete;

  // @ts-expect-error: a route must name its throttle class
  const noThrottle: Route = withoutThrottle;
  // @ts-expect-error: a route must name who may call it
  const noAccess: Route = withoutAccess;
  // @ts-expect-error: a route must name its DynamoDB access, even when it is none
  const noData: Route = withoutData;
  // @ts-expect-error: a route must name the secrets it may read, even when it is none
  const noSecrets: Route = withoutSecrets;
  // @ts-expect-error: a route must say whether it has concurrency of its own
  const noConcurrency: Route = withoutConcurrency;
  // @ts-expect-error: a job must name its DynamoDB access
  const jobWithoutData: ScheduledJob = { name: 'job', secrets: [], concurrency: 'shared' };
  // @ts-expect-error: a job must name the secrets it may read
  const jobWithoutSecrets: ScheduledJob = { name: 'job', data: { table: [] }, concurrency: 'shared' };
  // @ts-expect-error: a job must say whether it has concurrency of its own
  const jobWithoutConcurrency: ScheduledJob = { name: 'job', data: { table: [] }, secrets: [] };

  expect([
    noThrottle,
    noAccess,
    noData,
    noSecrets,
    noConcurrency,
    jobWithoutData,
    jobWithoutSecrets,
    jobWithoutConcurrency,
  ]).toHaveLength(8);
});

test('a route may read the tokens secret exactly when it checks bearer tokens; no job reads it', () => {
  for (const { name, access, secrets } of routes) {
    const readsTokens = (secrets as readonly SecretName[]).includes('tokens');
    expect({ name, readsTokens }).toEqual({ name, readsTokens: access !== 'service' });
  }
  for (const { secrets } of jobs) expect(secrets).not.toContain('tokens');
});
