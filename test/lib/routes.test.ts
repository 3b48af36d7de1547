import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  healthRoute,
  jobs,
  routes,
  THROTTLE_BY_ACCESS,
  type Route,
  type ScheduledJob,
} from '../../lib/routes';
import type { SecretName } from '../../secrets/fields';

test("each function takes its access scope from its own route's entry", () => {
  for (const { name } of routes) {
    const constant = `${name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase())}Route`;
    const source = readFileSync(path.join(__dirname, '..', '..', 'functions', `${name}.ts`), 'utf8');
    const imported = /import \{ ([^}]+) \} from '\.\.\/lib\/routes';/.exec(source)?.[1];
    const passed = /\broute: (\w+)/.exec(source)?.[1];
    expect({ name, imported, passed }).toEqual({ name, imported: constant, passed: constant });
  }
});

test('names are unique across routes and jobs, and so are method and path', () => {
  const names = [...routes, ...jobs].map((facts) => facts.name);
  expect(new Set(names).size).toBe(names.length);
  const keys = routes.map(({ method, path }) => `${method} ${path}`);
  expect(new Set(keys).size).toBe(keys.length);
});

// These checks run in the typecheck: each directive fails `tsc` if the entry below it compiles.
test('a route or a job that leaves out a deployment fact, or states a throttle class apart from its access, does not compile', () => {
  const complete = healthRoute;
  const { access: _access, ...withoutAccess } = complete;
  const { data: _data, ...withoutData } = complete;
  const { secrets: _secrets, ...withoutSecrets } = complete;
  const { concurrency: _concurrency, ...withoutConcurrency } = complete;

  // @ts-expect-error: a route states no throttle class of its own: it follows from who may call it
  const ownThrottle: Route = { ...complete, throttle: 'admin' };
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
    ownThrottle,
    noAccess,
    noData,
    noSecrets,
    noConcurrency,
    jobWithoutData,
    jobWithoutSecrets,
    jobWithoutConcurrency,
  ]).toHaveLength(8);
});

test('a route called per customer or by the service is busy; an admin route, for a back office, and a public one (the document) are throttled low', () => {
  for (const { name, access } of routes) {
    const busy = access === 'storefront' || access === 'service' || access === 'customer';
    expect({ name, throttle: THROTTLE_BY_ACCESS[access] }).toEqual({
      name,
      throttle: busy ? 'busy' : 'admin',
    });
  }
});

test('a route may read the tokens and platform token secrets exactly when it checks bearer tokens; no job reads them', () => {
  for (const { name, access, secrets } of routes) {
    const bearer = access === 'storefront' || access === 'admin' || access === 'platform';
    const reads = (secret: SecretName) => (secrets as readonly SecretName[]).includes(secret);
    expect({ name, tokens: reads('tokens'), platform: reads('platformToken') }).toEqual({
      name,
      tokens: bearer,
      platform: bearer,
    });
  }
  for (const { secrets } of jobs) {
    expect(secrets).not.toContain('tokens');
    expect(secrets).not.toContain('platformToken');
  }
});

test("a bearer route may read an item: a store token's digest and its store item (issue 33)", () => {
  for (const { name, access, data } of routes) {
    if (access !== 'storefront' && access !== 'admin' && access !== 'platform') continue;
    expect({ name, getItem: (data.table as readonly string[]).includes('GetItem') }).toEqual({
      name,
      getItem: true,
    });
  }
});

test("only the function that creates stores may create their secrets, and only the one that changes them write them; the functions that sign or verify with a store's keys read them", () => {
  const facts = [...routes, ...jobs];
  const withAccess = (access: string) =>
    facts.filter((fact) => fact.storeSecrets === access).map((fact) => fact.name);
  expect(withAccess('create')).toEqual(['create-store']);
  expect(withAccess('write')).toEqual(['update-store', 'rotate-store-webhook-secret']);
  for (const { name, secrets, storeSecrets } of facts) {
    const signs = (secrets as readonly SecretName[]).some(
      (secret) => secret === 'processingKeys' || secret === 'webhookSecret',
    );
    // A store's own callback URL is verified with that store's keys alone.
    const ownKeysOnly = name === 'store-callbacks';
    expect({ name, reads: storeSecrets === 'read' }).toEqual({ name, reads: signs || ownKeysOnly });
  }
  const storeCallbacks = facts.find((fact) => fact.name === 'store-callbacks')!;
  expect(storeCallbacks.secrets).toEqual([]);
});
