// Deployment settings, read from CDK context (`-c key=value` or cdk.json) and validated up front.

export type Stage = 'sandbox' | 'production';

export interface PluginSettings {
  stage: Stage;
  /** Base address of the processing service, without the `/v2` prefix and without a trailing slash. */
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
}

export type RawSettings = { [K in keyof PluginSettings]?: unknown };

/** Placeholder for the public sandbox; pass `-c processingBaseUrl=...` to point at the real one. */
export const SANDBOX_PROCESSING_BASE_URL = 'https://sandbox.processing.example';

const SETTING_KEYS = [
  'stage',
  'processingBaseUrl',
  'snapshotRate',
  'reconcileRate',
  'webhookRetryRate',
  'alarmEmail',
  'alarmTopicArn',
  'logRetentionDays',
  'webhookUrl',
] as const;

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

export function readSettings(node: { tryGetContext(key: string): unknown }): PluginSettings {
  return resolveSettings(Object.fromEntries(SETTING_KEYS.map((key) => [key, node.tryGetContext(key)])));
}

export function resolveSettings(raw: RawSettings): PluginSettings {
  const stage = optionalString(raw, 'stage') ?? 'sandbox';
  if (stage !== 'sandbox' && stage !== 'production') {
    throw new Error(`Setting "stage" must be "sandbox" or "production", got "${stage}".`);
  }
  const processingBaseUrl = baseUrl(raw, stage);
  const alarmEmail = optionalString(raw, 'alarmEmail');
  if (alarmEmail !== undefined && !EMAIL.test(alarmEmail)) {
    throw new Error(`Setting "alarmEmail" must be an e-mail address, got "${alarmEmail}".`);
  }
  const alarmTopicArn = optionalString(raw, 'alarmTopicArn');
  if (alarmTopicArn !== undefined && !TOPIC_ARN.test(alarmTopicArn)) {
    throw new Error(
      `Setting "alarmTopicArn" must be the ARN of a standard SNS topic, got "${alarmTopicArn}".`,
    );
  }
  if (stage === 'production' && alarmEmail === undefined && alarmTopicArn === undefined) {
    throw new Error(
      'Stage "production" needs somewhere to send its alarms: set "alarmEmail" (-c alarmEmail=ops@example.com), ' +
        '"alarmTopicArn" (-c alarmTopicArn=arn:aws:sns:...), or both.',
    );
  }
  return {
    stage,
    processingBaseUrl,
    snapshotRate: schedule(raw, 'snapshotRate', 'rate(1 hour)'),
    // Every minute, so that the sweep catches a lost callback within a couple of minutes (domain/reconcile.ts).
    reconcileRate: schedule(raw, 'reconcileRate', 'rate(1 minute)'),
    webhookRetryRate: schedule(raw, 'webhookRetryRate', 'rate(1 minute)'),
    ...(alarmEmail === undefined ? {} : { alarmEmail }),
    ...(alarmTopicArn === undefined ? {} : { alarmTopicArn }),
    logRetentionDays: logRetentionDays(raw, stage),
    ...webhookUrl(raw),
  };
}

function optionalString(raw: RawSettings, key: keyof PluginSettings): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    throw new Error(`Setting "${key}" must be a string, got ${JSON.stringify(value)}.`);
  return value.trim();
}

function baseUrl(raw: RawSettings, stage: Stage): string {
  const value = optionalString(raw, 'processingBaseUrl');
  if (value === undefined) {
    if (stage === 'production') {
      throw new Error(
        'Setting "processingBaseUrl" is required for stage "production" (-c processingBaseUrl=https://...).',
      );
    }
    return SANDBOX_PROCESSING_BASE_URL;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
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

function webhookUrl(raw: RawSettings): { webhookUrl?: string } {
  const value = optionalString(raw, 'webhookUrl');
  if (value === undefined) return {};
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // The value is not echoed: a shop's endpoint may carry a token of its own.
  if (url?.protocol !== 'https:' || url.username || url.password) {
    throw new Error('Setting "webhookUrl" must be an https:// URL without credentials.');
  }
  return { webhookUrl: value };
}

function logRetentionDays(raw: RawSettings, stage: Stage): number {
  const value = raw.logRetentionDays;
  if (value === undefined || value === null || value === '') return LOG_RETENTION_DAYS[stage];
  // `-c logRetentionDays=90` arrives as a string, cdk.json may hold a number.
  const days = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  if (!RETENTION_DAYS.includes(days)) {
    throw new Error(
      `Setting "logRetentionDays" must be one of ${RETENTION_DAYS.join(', ')}, got ${JSON.stringify(value)}.`,
    );
  }
  return days;
}

function schedule(
  raw: RawSettings,
  key: 'snapshotRate' | 'reconcileRate' | 'webhookRetryRate',
  fallback: string,
): string {
  const value = optionalString(raw, key) ?? fallback;
  if (!RATE.test(value) && !CRON.test(value)) {
    throw new Error(
      `Setting "${key}" must look like "rate(5 minutes)", "rate(1 hour)" or "cron(...)", got "${value}".`,
    );
  }
  return value;
}
