// Each stage's settings, committed in cdk.json under `context.stages.<stage>` and validated before anything is built,
// so that `npx cdk deploy -c stage=production` reproduces the stage from git alone (issue 34).
import { explorerTemplates } from '../domain/explorers';
import { DELIVERIES_DUE_INDEX, OPEN_ITEMS_INDEX } from '../store/schema';
import { DEFAULT_STORE_REQUESTS_PER_SECOND, MAX_STORE_REQUESTS_PER_SECOND } from '../domain/request-limits';

export type Stage = 'sandbox' | 'production';

export const STAGES: readonly Stage[] = ['sandbox', 'production'];

/** A host name the stack serves on, with the ACM certificate that covers it. */
export interface CustomDomain {
  name: string;
  certificateArn: string;
}

/** A Route 53 public hosted zone: the stack adds alias records for the custom domains in it. */
export interface HostedZone {
  id: string;
  name: string;
}

export interface PluginSettings {
  stage: Stage;
  /** Base address of the payment service, without the `/v2` prefix and without a trailing slash. */
  processingBaseUrl: string;
  /** EventBridge Scheduler expressions, e.g. `rate(1 hour)` or `cron(0 * * * ? *)`. */
  snapshotRate: string;
  reconcileRate: string;
  /** How often the webhook dispatcher looks for retries that came due. */
  webhookRetryRate: string;
  /** Where alarms go: an e-mail address (the stack makes the topic), an existing SNS topic, or both. */
  alarmEmail?: string;
  alarmTopicArn?: string;
  /** How long the functions' logs and the API access logs are kept. */
  logRetentionDays: number;
  /** The shop's webhook endpoint (https); unset, no webhooks are sent. */
  webhookUrl?: string;
  /** The API's own host name (a regional certificate); unset, the AWS-generated execute-api host. */
  apiDomain?: CustomDomain;
  /** The web apps' own host name (a certificate in us-east-1, as CloudFront needs); unset, *.cloudfront.net. */
  webDomain?: CustomDomain;
  hostedZone?: HostedZone;
  /** Block explorer URL templates by currency (`{txid}` in each) over the defaults; an empty string removes one. */
  explorerUrls?: Record<string, string>;
  /** Partitions of each kind's open list and of the dispatcher's due list (store/schema.ts has the defaults). */
  openShards: number;
  dueShards: number;
  /** Each store's requests a second, unless the store sets its own (`requests_per_second`). */
  storeRequestsPerSecond: number;
}

/** The keys a stage's entry in cdk.json may hold. */
export const SETTING_KEYS = [
  'processingBaseUrl',
  'snapshotRate',
  'reconcileRate',
  'webhookRetryRate',
  'alarmEmail',
  'alarmTopicArn',
  'logRetentionDays',
  'webhookUrl',
  'apiDomainName',
  'apiCertificateArn',
  'webDomainName',
  'webCertificateArn',
  'hostedZoneId',
  'hostedZoneName',
  'explorerUrls',
  'openShards',
  'dueShards',
  'storeRequestsPerSecond',
] as const;

export type SettingKey = (typeof SETTING_KEYS)[number];

/** A stage's entry as written in cdk.json, and the stage it is for. */
export type RawSettings = { stage?: unknown } & { [K in SettingKey]?: unknown };

/** Written for `webhookUrl` to say, on purpose, that the stage sends no webhooks. */
export const NO_WEBHOOKS = 'none';

/** Placeholder for the public sandbox; set `processingBaseUrl` in the stage's settings to point at the real one. */
export const SANDBOX_PROCESSING_BASE_URL = 'https://sandbox.processing.example';

/** The scheduled jobs' rates when a stage's settings leave them out; `npm start` runs its jobs at the same ones. */
export const DEFAULT_RATES = {
  snapshotRate: 'rate(1 hour)',
  // Every minute, so that the reconcile job catches a lost callback within a couple of minutes.
  reconcileRate: 'rate(1 minute)',
  webhookRetryRate: 'rate(1 minute)',
} as const;

/** The most shards a list may take: each run of its reader queries every one. */
const MAX_SHARDS = 256;

/** The seconds between runs of a `rate(...)` expression. */
export function rateSeconds(rate: string): number {
  const match = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(rate);
  if (!match) throw new Error(`Not a rate expression: "${rate}"`);
  return Number(match[1]) * { minute: 60, hour: 3600, day: 86_400 }[match[2] as 'minute' | 'hour' | 'day'];
}

/** A sandbox is for trying things; production logs are what an incident is investigated from. */
const LOG_RETENTION_DAYS: Record<Stage, number> = { sandbox: 30, production: 365 };

/** The retention periods CloudWatch Logs accepts. */
const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];

// Singular unit for 1, plural otherwise: the Scheduler API rejects `rate(1 minutes)` and `rate(5 minute)`.
const RATE = /^rate\((1 (minute|hour|day)|([2-9]|[1-9]\d+) (minutes|hours|days))\)$/;
const CRON = /^cron\(\S+( \S+){5}\)$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
// A standard topic: CloudWatch alarms cannot publish to a FIFO one.
const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/;
const CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[A-Za-z0-9-]+$/;
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const HOSTED_ZONE_ID = /^Z[A-Z0-9]{1,31}$/;

/** Where a stage's settings live, as error messages name it. */
export const settingsPlace = (stage: string) => `cdk.json, under context.stages.${stage}`;

/**
 * The settings of the stage `-c stage=...` names (sandbox when none), from the app's context. A setting given
 * as `-c key=value` is refused: it would be lost on the next command that leaves it out.
 */
export function readSettings(node: { tryGetContext(key: string): unknown }): PluginSettings {
  const stage = node.tryGetContext('stage') ?? 'sandbox';
  if (!STAGES.includes(stage as Stage)) {
    throw new Error(`Setting "stage" must be "sandbox" or "production", got ${JSON.stringify(stage)}.`);
  }
  for (const key of SETTING_KEYS) {
    if (node.tryGetContext(key) !== undefined) {
      throw new Error(
        `Setting "${key}" was given as -c ${key}=...: a stage's settings are read only from ` +
          `${settingsPlace(String(stage))}, so that every deploy of the stage is the same. Put it there.`,
      );
    }
  }
  const stages = node.tryGetContext('stages');
  const entry = isObject(stages) ? stages[String(stage)] : undefined;
  if (!isObject(entry)) {
    throw new Error(`No settings for stage "${stage}": add them to ${settingsPlace(String(stage))}.`);
  }
  return resolveSettings({ ...entry, stage });
}

export function resolveSettings(raw: RawSettings): PluginSettings {
  const stage = raw.stage ?? 'sandbox';
  if (!STAGES.includes(stage as Stage)) {
    throw new Error(`Setting "stage" must be "sandbox" or "production", got ${JSON.stringify(stage)}.`);
  }
  const settings = new SettingsReader(raw, stage as Stage);
  return settings.resolve();
}

class SettingsReader {
  constructor(
    private readonly raw: RawSettings,
    private readonly stage: Stage,
  ) {
    const unknown = Object.keys(raw).filter(
      (key) => key !== 'stage' && !(SETTING_KEYS as readonly string[]).includes(key),
    );
    if (unknown.length > 0) {
      throw new Error(
        `Unknown setting "${unknown[0]}" in ${settingsPlace(stage)}; the settings are ${SETTING_KEYS.join(', ')}.`,
      );
    }
  }

  resolve(): PluginSettings {
    const { stage } = this;
    const processingBaseUrl = this.baseUrl();
    const alarmEmail = this.optional('alarmEmail');
    if (alarmEmail !== undefined && !EMAIL.test(alarmEmail)) {
      throw new Error(`Setting "alarmEmail" must be an e-mail address, got "${alarmEmail}".`);
    }
    const alarmTopicArn = this.optional('alarmTopicArn');
    if (alarmTopicArn !== undefined && !TOPIC_ARN.test(alarmTopicArn)) {
      throw new Error(
        `Setting "alarmTopicArn" must be the ARN of a standard SNS topic, got "${alarmTopicArn}".`,
      );
    }
    if (stage === 'production' && alarmEmail === undefined && alarmTopicArn === undefined) {
      throw new Error(
        `Stage "production" needs somewhere to send its alarms: set "alarmEmail" (ops@example.com), ` +
          `"alarmTopicArn" (arn:aws:sns:...), or both, in ${settingsPlace(stage)}.`,
      );
    }
    const apiDomain = this.domain('apiDomainName', 'apiCertificateArn');
    const webDomain = this.domain('webDomainName', 'webCertificateArn');
    if (webDomain && CERTIFICATE_ARN.exec(webDomain.certificateArn)?.[1] !== 'us-east-1') {
      throw new Error(
        'Setting "webCertificateArn" must be a certificate in us-east-1: CloudFront uses no other.',
      );
    }
    const hostedZone = this.hostedZone([apiDomain, webDomain]);
    return {
      stage,
      processingBaseUrl,
      snapshotRate: this.schedule('snapshotRate'),
      reconcileRate: this.schedule('reconcileRate'),
      webhookRetryRate: this.schedule('webhookRetryRate'),
      ...(alarmEmail === undefined ? {} : { alarmEmail }),
      ...(alarmTopicArn === undefined ? {} : { alarmTopicArn }),
      logRetentionDays: this.logRetentionDays(),
      ...this.webhookUrl(),
      ...(apiDomain && { apiDomain }),
      ...(webDomain && { webDomain }),
      ...(hostedZone && { hostedZone }),
      ...this.explorerUrls(),
      openShards: this.shards('openShards', OPEN_ITEMS_INDEX.shards, 1),
      dueShards: this.shards('dueShards', DELIVERIES_DUE_INDEX.shards, DELIVERIES_DUE_INDEX.leastShards),
      storeRequestsPerSecond: this.storeRequestsPerSecond(),
    };
  }

  /**
   * A shard count: each reader queries every shard, so more shards cost each run of the reconcile job or the dispatcher
   * one query per shard. Lowering it strands the entries on the dropped shards, so it must only go up.
   */
  private shards(key: 'openShards' | 'dueShards', fallback: number, least: number): number {
    const value = this.raw[key];
    if (value === undefined || value === null || value === '') return fallback;
    const count = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
    if (!Number.isInteger(count) || count < least || count > MAX_SHARDS) {
      throw new Error(
        `Setting "${key}" must be a whole number from ${least} to ${MAX_SHARDS}, got ${JSON.stringify(value)}.`,
      );
    }
    return count;
  }

  private optional(key: SettingKey): string | undefined {
    const value = this.raw[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') {
      throw new Error(`Setting "${key}" must be a string, got ${JSON.stringify(value)}.`);
    }
    return value.trim();
  }

  private required(key: SettingKey, example: string): string {
    const value = this.optional(key);
    if (value === undefined) {
      throw new Error(
        `Setting "${key}" is required for stage "${this.stage}": put "${key}": "${example}" in ` +
          `${settingsPlace(this.stage)}.`,
      );
    }
    return value;
  }

  private baseUrl(): string {
    const value =
      this.stage === 'production'
        ? this.required('processingBaseUrl', 'https://...')
        : this.optional('processingBaseUrl');
    if (value === undefined) return SANDBOX_PROCESSING_BASE_URL;
    const url = parseUrl(value);
    if (url === undefined) {
      throw new Error(`Setting "processingBaseUrl" must be an absolute URL, got "${value}".`);
    }
    if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash) {
      throw new Error(`Setting "processingBaseUrl" must be a plain https:// URL, got "${value}".`);
    }
    if (/\/v2\/?$/.test(url.pathname)) {
      throw new Error(`Setting "processingBaseUrl" must leave out the /v2 prefix, got "${value}".`);
    }
    return value.replace(/\/+$/, '');
  }

  /** Production says on purpose whether it sends webhooks: left out, they would stop without a word. */
  private webhookUrl(): { webhookUrl?: string } {
    const value =
      this.stage === 'production'
        ? this.required('webhookUrl', `https://... (or "${NO_WEBHOOKS}")`)
        : this.optional('webhookUrl');
    if (value === undefined || value === NO_WEBHOOKS) return {};
    const url = parseUrl(value);
    // The value is not echoed: a shop's endpoint may carry a token of its own.
    if (url?.protocol !== 'https:' || url.username || url.password) {
      throw new Error(
        `Setting "webhookUrl" must be an https:// URL without credentials, or "${NO_WEBHOOKS}".`,
      );
    }
    return { webhookUrl: value };
  }

  /** Checked here as the functions read them, so that a bad template stops the synth, not a function. */
  private explorerUrls(): { explorerUrls?: Record<string, string> } {
    const value = this.raw.explorerUrls;
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new Error(
        'Setting "explorerUrls" must be an object of currency codes to URL templates, such as ' +
          '{"BTC": "https://mempool.space/tx/{txid}"}.',
      );
    }
    try {
      explorerTemplates(value);
    } catch (error) {
      throw new Error(`Setting "explorerUrls": ${(error as Error).message}`, { cause: error });
    }
    return { explorerUrls: { ...(value as Record<string, string>) } };
  }

  private storeRequestsPerSecond(): number {
    const value = this.raw.storeRequestsPerSecond;
    if (value === undefined || value === null || value === '') return DEFAULT_STORE_REQUESTS_PER_SECOND;
    if (
      typeof value !== 'number' ||
      !Number.isInteger(value) ||
      value < 1 ||
      value > MAX_STORE_REQUESTS_PER_SECOND
    ) {
      throw new Error(
        `Setting "storeRequestsPerSecond" must be a whole number from 1 to ${MAX_STORE_REQUESTS_PER_SECOND}, got ${JSON.stringify(value)}.`,
      );
    }
    return value;
  }

  private logRetentionDays(): number {
    const value = this.raw.logRetentionDays;
    if (value === undefined || value === null || value === '') return LOG_RETENTION_DAYS[this.stage];
    const days = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
    if (!RETENTION_DAYS.includes(days)) {
      throw new Error(
        `Setting "logRetentionDays" must be one of ${RETENTION_DAYS.join(', ')}, got ${JSON.stringify(value)}.`,
      );
    }
    return days;
  }

  private schedule(key: keyof typeof DEFAULT_RATES): string {
    const value = this.optional(key) ?? DEFAULT_RATES[key];
    if (!RATE.test(value) && !CRON.test(value)) {
      throw new Error(
        `Setting "${key}" must look like "rate(5 minutes)", "rate(1 hour)" or "cron(...)", got "${value}".`,
      );
    }
    return value;
  }

  private domain(
    nameKey: 'apiDomainName' | 'webDomainName',
    certificateKey: 'apiCertificateArn' | 'webCertificateArn',
  ): CustomDomain | undefined {
    const name = this.optional(nameKey)?.toLowerCase();
    const certificateArn = this.optional(certificateKey);
    if (name === undefined && certificateArn === undefined) return undefined;
    if (name === undefined || certificateArn === undefined) {
      throw new Error(
        `Settings "${nameKey}" and "${certificateKey}" go together: set both or neither in ` +
          `${settingsPlace(this.stage)}.`,
      );
    }
    if (!HOST_NAME.test(name)) {
      throw new Error(`Setting "${nameKey}" must be a host name such as pay.shop.example, got "${name}".`);
    }
    if (!CERTIFICATE_ARN.test(certificateArn)) {
      throw new Error(
        `Setting "${certificateKey}" must be the ARN of an ACM certificate, got "${certificateArn}".`,
      );
    }
    return { name, certificateArn };
  }

  private hostedZone(domains: Array<CustomDomain | undefined>): HostedZone | undefined {
    const id = this.optional('hostedZoneId');
    const name = this.optional('hostedZoneName')?.toLowerCase().replace(/\.$/, '');
    if (id === undefined && name === undefined) return undefined;
    if (id === undefined || name === undefined) {
      throw new Error(
        `Settings "hostedZoneId" and "hostedZoneName" go together: set both or neither in ` +
          `${settingsPlace(this.stage)}.`,
      );
    }
    if (!HOSTED_ZONE_ID.test(id)) {
      throw new Error(
        `Setting "hostedZoneId" must be a Route 53 zone id such as Z0123456789ABC, got "${id}".`,
      );
    }
    const named = domains.filter((domain) => domain !== undefined);
    if (named.length === 0) {
      throw new Error(
        'Setting "hostedZoneId" needs "apiDomainName" or "webDomainName": it only holds their records.',
      );
    }
    for (const domain of named) {
      if (domain.name !== name && !domain.name.endsWith(`.${name}`)) {
        throw new Error(`Host name "${domain.name}" is not in the hosted zone "${name}".`);
      }
    }
    return { id, name };
  }
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
