// The guides other than the operator's (test/docs/operations.test.ts) and the internals (test/docs/internals.test.ts)
// also state defaults: each is held here to the one place the code writes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEFAULT_API_KEY,
  DEFAULT_CALLBACK_SPEED_UP,
  DEFAULT_PORT,
  DEFAULT_SECRET_KEY,
} from '../../sandbox/server';
import { SERVICE_CALLBACK_RETRY_MINUTES } from '../../sandbox/callbacks';
import { DEFAULT_TRAVEL_RULE, TRAVEL_RULE_SETTINGS } from '../../domain/stores';
import { functionSettingDefaults } from './function-settings';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The one match of `pattern` in a guide; fails when the sentence is gone, so a rewrite cannot skip a check. */
function find(guide: string, pattern: RegExp): RegExpMatchArray {
  const found = read(guide).match(pattern);
  if (!found) throw new Error(`${guide} no longer says ${pattern}`);
  return found;
}

describe('docs/webhooks.md', () => {
  const ms = (name: string) => Number(functionSettingDefaults().get(name));

  test("the outbox's grace", () => {
    const [, seconds] = find('docs/webhooks.md', /`WEBHOOK_OUTBOX_GRACE_MS` \((\d+) s\)/);
    expect(Number(seconds) * 1000).toBe(ms('WEBHOOK_OUTBOX_GRACE_MS'));
  });

  test("a delivery's lease, and the send timeout it outlasts", () => {
    const [, lease, timeout] = find(
      'docs/webhooks.md',
      /`WEBHOOK_LEASE_MS`, (\d+) s, longer than the (\d+) s send timeout/,
    );
    expect([Number(lease) * 1000, Number(timeout) * 1000]).toEqual([
      ms('WEBHOOK_LEASE_MS'),
      ms('WEBHOOK_TIMEOUT_MS'),
    ]);
    expect(ms('WEBHOOK_LEASE_MS')).toBeGreaterThan(ms('WEBHOOK_TIMEOUT_MS'));
  });
});

describe('docs/sandbox.md', () => {
  test('the variables table names every variable `npm run sandbox` reads, with the defaults it has', () => {
    const cli = read('sandbox/cli.ts');
    const variables = new Set([...cli.matchAll(/process\.env\.([A-Z_]+)/g)].map(([, name]) => name));
    const lines = read('docs/sandbox.md').split('\n');
    const start = lines.findIndex((line) => /^\| Variable +\| Default/.test(line));
    expect(start).toBeGreaterThan(0);
    const rows = new Map<string, string>();
    for (const line of lines.slice(start + 2)) {
      if (!line.startsWith('|')) break;
      const [name, given] = line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim());
      rows.set(name.replace(/`/g, ''), /^`([^`]+)`/.exec(given)?.[1] ?? given);
    }
    expect([...rows.keys()].sort()).toEqual([...variables].sort());
    expect({
      SANDBOX_PORT: rows.get('SANDBOX_PORT'),
      SANDBOX_API_KEY: rows.get('SANDBOX_API_KEY'),
      SANDBOX_SECRET_KEY: rows.get('SANDBOX_SECRET_KEY'),
    }).toEqual({
      SANDBOX_PORT: String(DEFAULT_PORT),
      SANDBOX_API_KEY: DEFAULT_API_KEY,
      SANDBOX_SECRET_KEY: DEFAULT_SECRET_KEY,
    });
  });

  test("the operations guide names the payment service's callback retry schedule the sandbox runs", () => {
    const [, minutes] = find(
      'docs/operations.md',
      /It retries 12 times, waiting ([\d,\sand]+) minutes before each/,
    );
    expect(minutes.match(/\d+/g)!.map(Number)).toEqual(SERVICE_CALLBACK_RETRY_MINUTES);
  });

  test("the in-process callbacks' default speed-up", () => {
    const [, speedUp] = find('docs/sandbox.md', /`callbackSpeedUp`\s+\(default `(\d+)`/);
    expect(Number(speedUp)).toBe(DEFAULT_CALLBACK_SPEED_UP);
  });
});

describe("a store's travel_rule", () => {
  test('the README and the operations guide name the default the store model holds', () => {
    const [, readme] = find('README.md', /`travel_rule`: `(\w+)` \(default\)/);
    const [, operations] = find('docs/operations.md', /the default is `(\w+)`, the default store's too/);
    expect([readme, operations]).toEqual([DEFAULT_TRAVEL_RULE, DEFAULT_TRAVEL_RULE]);
  });

  test('the README names every setting', () => {
    const [line] = find('README.md', /`travel_rule`: .*/);
    for (const setting of TRAVEL_RULE_SETTINGS) expect(line).toContain(`\`${setting}\``);
  });
});
