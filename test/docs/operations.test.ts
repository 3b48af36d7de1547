// docs/operations.md names settings, defaults, secrets, jobs, alarms, outputs and counts: each is checked here
// against the settings module (lib/settings.ts) and the template the committed stages synthesize, so that the guide
// cannot drift from the stack.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import cdkJson from '../../cdk.json';
import { definePaymentsPluginApp } from '../../lib/define-app';
import { CUSTOM_METRICS, THROTTLED_BY_DESIGN } from '../../lib/plugin-alarms';
import { scheduledJobs } from '../../lib/routes';
import {
  DEFAULT_RATES,
  resolveSettings,
  SETTING_KEYS,
  type PluginSettings,
  type RawSettings,
} from '../../lib/settings';
import { functionSettingDefaults } from './function-settings';

const guide = readFileSync(path.join(__dirname, '..', '..', 'docs', 'operations.md'), 'utf8');

function synth(stage: string) {
  const app = new App({ context: { ...cdkJson.context, stage, 'aws:cdk:bundling-stacks': [] } });
  return Template.fromStack(definePaymentsPluginApp(app));
}
const sandbox = synth('sandbox');
const production = synth('production');

const NUMBERS: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6 };

/** The one match of `pattern` in the guide; fails when the sentence is gone, so a rewrite cannot skip a check. */
function find(pattern: RegExp): RegExpMatchArray {
  const found = guide.match(pattern);
  if (!found) throw new Error(`docs/operations.md no longer says ${pattern}`);
  return found;
}

/** The rows of the markdown table whose header starts with `| <first> `, as trimmed cells. */
function table(first: string): string[][] {
  const lines = guide.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`| ${first} `));
  if (start < 0) throw new Error(`docs/operations.md has no table "${first}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

const unquote = (cell: string) => cell.replace(/^`|`$/g, '');

describe('settings', () => {
  const rows = table('setting');

  test('the table names every setting of lib/settings.ts, and no other', () => {
    expect(rows.map(([key]) => unquote(key)).sort()).toEqual([...SETTING_KEYS].sort());
  });

  // A stage's smallest valid settings: what production requires, nothing else.
  const least: Record<string, RawSettings> = {
    sandbox: { stage: 'sandbox' },
    production: {
      stage: 'production',
      processingBaseUrl: 'https://api.processing.test',
      // Either one: leaving out the other shows its own default.
      alarmEmail: 'ops@merchant.test',
      alarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:ops-alarms',
      webhookUrl: 'none',
    },
  };
  /** A setting's value as the settings module resolves it, in the form the guide writes it. */
  const resolved = (settings: PluginSettings, key: string): string | undefined => {
    const domains: Record<string, string | undefined> = {
      apiDomainName: settings.apiDomain?.name,
      apiCertificateArn: settings.apiDomain?.certificateArn,
      webDomainName: settings.webDomain?.name,
      webCertificateArn: settings.webDomain?.certificateArn,
      hostedZoneId: settings.hostedZone?.id,
      hostedZoneName: settings.hostedZone?.name,
    };
    const value = key in domains ? domains[key] : (settings as unknown as Record<string, unknown>)[key];
    return value === undefined ? undefined : String(value);
  };

  test.each(SETTING_KEYS.map((key) => [key]))(
    'the default of %s is the one lib/settings.ts applies',
    (key) => {
      const [, cell] = rows.find(([name]) => unquote(name) === key)!;
      for (const stage of ['sandbox', 'production'] as const) {
        // "`x`" for every stage, or "`x` (sandbox); required (production)": this stage's part.
        const parts = cell.split('; ');
        const part =
          parts.find((p) => p.endsWith(`(${stage})`)) ??
          parts.find((p) => !/\((sandbox|production)\)$/.test(p));
        const said = part!.replace(/ \((sandbox|production)\)$/, '');
        const { [key]: _given, ...without } = least[stage];
        if (said === 'required') {
          expect(() => resolveSettings(without)).toThrow(`Setting "${key}" is required for stage "${stage}"`);
        } else {
          const expected = said === '(none)' ? undefined : unquote(said);
          expect({ stage, value: resolved(resolveSettings(without), key) }).toEqual({
            stage,
            value: expected,
          });
        }
      }
    },
  );
});

describe('the stack', () => {
  test('secrets: the count, and each one the outputs name', () => {
    const secrets = Object.keys(sandbox.findResources('AWS::SecretsManager::Secret'));
    expect(NUMBERS[find(/- (\w+) Secrets Manager secrets \(/)[1]]).toBe(secrets.length);
    const named = table('secret').map(([name]) => unquote(name));
    expect(named).toHaveLength(secrets.length);
    for (const output of named) expect(Object.keys(sandbox.toJSON().Outputs)).toContain(output);
    expect(find(/\| Secrets Manager secrets +\| (\d+) /)[1]).toBe(String(secrets.length));
    expect(find(/\*\*The (\w+) secrets\*\*/)[1]).toBe(find(/- (\w+) Secrets Manager secrets/)[1]);
  });

  test('scheduled jobs: the count and the names', () => {
    const [, count, names] = find(/- (\w+) scheduled jobs \(([^)]+)\)/);
    const schedules = Object.keys(sandbox.findResources('AWS::Scheduler::Schedule'));
    expect(NUMBERS[count]).toBe(schedules.length);
    expect(names.split(', ').map(unquote).sort()).toEqual([...scheduledJobs].sort());
  });

  test('reserved concurrency per function, and the account quota it needs', () => {
    const functions = Object.values(sandbox.findResources('AWS::Lambda::Function'));
    const reserved = functions
      .map((fn) => fn.Properties.ReservedConcurrentExecutions as number | undefined)
      .filter((n) => n !== undefined);
    const said = [...guide.matchAll(/^- (\d+) for `([\w-]+)`/gm)].map(([, n, name]) => [name, Number(n)]);
    expect(said).toHaveLength(reserved.length);
    for (const [name, n] of said) {
      const fn = functions.find((f) => f.Properties.Description?.includes(`(functions/${name}.ts)`));
      expect({ name, reserved: fn?.Properties.ReservedConcurrentExecutions }).toEqual({ name, reserved: n });
    }
    const quota = 100 + reserved.reduce((sum, n) => sum + n, 0);
    expect(find(/concurrency quota of at least\s+(\d+)/)[1]).toBe(String(quota));
  });

  test('the outputs table names every output of a stage with every setting', () => {
    const outputs = Object.keys(production.toJSON().Outputs).sort();
    expect(
      table('output')
        .map(([name]) => unquote(name))
        .sort(),
    ).toEqual(outputs);
  });

  test('alarms: the custom metrics, the throttles left out by design, the thresholds, and OK actions', () => {
    const named = [...guide.matchAll(/`MerchantPayments` \/ `(\w+)`/g)].map(([, name]) => name);
    expect(named.sort()).toEqual(Object.keys(CUSTOM_METRICS).sort());
    const alarms = Object.values(production.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    for (const name of named) expect(alarms.some((a) => a.MetricName === name)).toBe(true);
    expect(find(/for each function but `([\w-]+)`: throttles/)[1]).toBe(THROTTLED_BY_DESIGN.join());
    expect(alarms.filter((a) => a.MetricName === 'Throttles')).toHaveLength(
      Object.keys(production.findResources('AWS::Lambda::Function')).length - 1 - THROTTLED_BY_DESIGN.length,
    );
    const seconds = Number(find(/p99 latency over (\d+) seconds/)[1]);
    expect(alarms.find((a) => a.MetricName === 'Latency')?.Threshold).toBe(seconds * 1000);
    const share = Number(find(/a run longer than (\d+)% of its timeout/)[1]);
    const durations = alarms.filter((a) => a.MetricName === 'Duration');
    expect(durations.map((a) => a.Threshold)).toContain((share / 100) * 25_000);
    expect(find(/sends OK to the same place/)).toBeTruthy();
    for (const alarm of alarms) expect(alarm.OKActions).toEqual(alarm.AlarmActions);
    expect(find(/`Service=(\S+)` and `Stage=<stage>`/)[1]).toBe('payments-plugin');
  });

  test('the cost table: alarm metrics, alarms, secrets and scheduled runs, as the template has them', () => {
    const alarms = Object.values(sandbox.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    const metrics = alarms.reduce(
      (sum, a) => sum + (a.Metrics ? a.Metrics.filter((m: any) => m.MetricStat).length : 1),
      0,
    );
    const dynamo = alarms.find((a) => JSON.stringify(a.Metrics ?? []).includes('ThrottledRequests'));
    const [, m, n, watches] = find(
      /\| CloudWatch alarm metrics +\| (\d+) \((\d+) alarms; the DynamoDB one watches (\d+)\)/,
    );
    expect([Number(m), Number(n), Number(watches)]).toEqual([
      metrics,
      alarms.length,
      dynamo.Metrics.filter((x: any) => x.MetricStat).length,
    ]);
    expect(find(/\| \$0\.10 per alarm metric +\| \$(\d+\.\d\d)/)[1]).toBe((metrics * 0.1).toFixed(2));
    const perMonth = (rate: string) => {
      const [, count, unit] = rate.match(/^rate\((\d+) (minute|hour)s?\)$/)!;
      return (30 * 24 * 60) / (Number(count) * (unit === 'hour' ? 60 : 1));
    };
    const settings = resolveSettings({});
    const runs = [settings.reconcileRate, settings.webhookRetryRate, settings.snapshotRate].map(perMonth);
    const total = runs.reduce((sum, r) => sum + r, 0);
    expect(find(/\| Scheduled job runs +\| ([\d,]+) /)[1]).toBe(total.toLocaleString('en-US'));
    expect(
      find(
        /The runs are ([\d,]+) a month for each job every minute, and (\d+) for the hourly snapshot/,
      ).slice(1),
    ).toEqual([runs[0].toLocaleString('en-US'), String(runs[2])]);
  });

  test("the dead-letter queue lookup selects the jobs' queue alone, with webhooks on", () => {
    const prefix = find(/starts_with\(LogicalResourceId, '(JobsDeadLetterQueue)'\)/)[1];
    const queues = Object.keys(production.findResources('AWS::SQS::Queue'));
    expect(queues.length).toBeGreaterThan(1);
    expect(queues.filter((id) => id.startsWith(prefix))).toHaveLength(1);
  });

  test('the smoke test calls /health, and the guide names the release it answers', () => {
    expect(find(/curl -sS "\$\{API_URL\}health"/)).toBeTruthy();
    expect(find(/"version": "(\d+\.\d+\.\d+)"/)[1]).toBe(production.toJSON().Outputs.Version.Value);
    expect(find(/The current release is \*\*(\d+\.\d+\.\d+)\*\*/)[1]).toBe(
      production.toJSON().Outputs.Version.Value,
    );
  });

  test('the sections walk a first deploy, an upgrade, a rollback and a teardown, in that order', () => {
    const headings = [...guide.matchAll(/^## (.+)$/gm)].map(([, h]) => h);
    const order = ['First deploy', 'Upgrade', 'Rollback', 'Teardown'].map((h) => headings.indexOf(h));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The teardown reads what is kept before the destroy: afterwards the stack cannot be queried.
    const start = guide.indexOf('## Teardown');
    const teardown = guide.slice(start, guide.indexOf('\n## ', start + 1));
    expect(teardown.indexOf('describe-stack-resources')).toBeLessThan(teardown.indexOf('npx cdk destroy'));
    expect(teardown.slice(teardown.indexOf('npx cdk destroy'))).not.toContain('--stack-name');
  });
});

describe("the functions' settings the guide names, with the one default the code gives each", () => {
  const seconds = (name: string) => Number(functionSettingDefaults().get(name));

  test('SECRET_TTL_SECONDS: how long a secret is cached, and the store secret reads a month it makes', () => {
    const ttl = seconds('SECRET_TTL_SECONDS');
    expect(Number(find(/for at most (\d+) minutes \(`SECRET_TTL_SECONDS`\)/)[1]) * 60).toBe(ttl);
    const [, minutes, reads] = find(
      /once per `SECRET_TTL_SECONDS` \((\d+) minutes\): ([\d,]+) reads a month/,
    );
    expect(Number(minutes) * 60).toBe(ttl);
    expect(reads).toBe(((30 * 86_400) / ttl).toLocaleString('en-US'));
  });

  test('STORE_CACHE_SECONDS: how long a warm function keeps a store', () => {
    expect(Number(find(/`STORE_CACHE_SECONDS`, \*\*(\d+) seconds\*\* by default/)[1])).toBe(
      seconds('STORE_CACHE_SECONDS'),
    );
  });

  test("the cost table's jobs every minute and hourly are those the default rates make", () => {
    const [, minutely, hourly] = find(/\((\w+) jobs every minute, (\w+) hourly\)/);
    const rates = Object.values(DEFAULT_RATES);
    expect(rates.filter((rate) => rate === 'rate(1 minute)')).toHaveLength(NUMBERS[minutely]);
    expect(rates.filter((rate) => rate === 'rate(1 hour)')).toHaveLength(NUMBERS[hourly]);
  });
});
