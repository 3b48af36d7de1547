import { DELIVERIES_DUE_INDEX, OPEN_ITEMS_INDEX } from '../../store/schema';
import { DEFAULT_STORE_REQUESTS_PER_SECOND } from '../../domain/request-limits';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { definePaymentsPluginApp } from '../../lib/define-app';
import {
  DEFAULT_RATES,
  rateSeconds,
  readSettings,
  resolveSettings,
  SANDBOX_PROCESSING_BASE_URL,
  type RawSettings,
} from '../../lib/settings';
import cdkJson from '../../cdk.json';

const PRODUCTION = {
  stage: 'production',
  processingBaseUrl: 'https://api.processing.test',
  alarmEmail: 'ops@merchant.test',
  webhookUrl: 'none',
};
const CERTIFICATE = 'arn:aws:acm:eu-central-1:123456789012:certificate/11111111-2222-3333-4444-555555555555';
const CLOUDFRONT_CERTIFICATE = CERTIFICATE.replace('eu-central-1', 'us-east-1');

test('defaults give a sandbox with the placeholder base URL and the default rates', () => {
  expect(resolveSettings({})).toEqual({
    stage: 'sandbox',
    processingBaseUrl: SANDBOX_PROCESSING_BASE_URL,
    snapshotRate: 'rate(1 hour)',
    reconcileRate: 'rate(1 minute)',
    webhookRetryRate: 'rate(1 minute)',
    logRetentionDays: 30,
    openShards: OPEN_ITEMS_INDEX.shards,
    dueShards: DELIVERIES_DUE_INDEX.shards,
    storeRequestsPerSecond: DEFAULT_STORE_REQUESTS_PER_SECOND,
  });
});

test('a stage that leaves out the rates gets DEFAULT_RATES, the ones npm start also runs its jobs at', () => {
  expect(resolveSettings({})).toMatchObject(DEFAULT_RATES);
});

test.each([
  ['rate(1 minute)', 60],
  ['rate(5 minutes)', 300],
  ['rate(1 hour)', 3600],
  ['rate(2 days)', 172_800],
])('rateSeconds(%s) is %d', (rate, seconds) => {
  expect(rateSeconds(rate)).toBe(seconds);
});

test('rateSeconds refuses what is not a rate', () => {
  expect(() => rateSeconds('cron(0 * * * ? *)')).toThrow('Not a rate expression: "cron(0 * * * ? *)"');
});

test('production takes its base URL, rates and alarm e-mail from the settings', () => {
  expect(
    resolveSettings({
      stage: 'production',
      processingBaseUrl: 'https://api.processing.test/',
      snapshotRate: 'cron(0 6 * * ? *)',
      reconcileRate: 'rate(1 minute)',
      alarmEmail: 'ops@merchant.test',
      webhookUrl: 'https://shop.test/webhooks',
    }),
  ).toEqual({
    stage: 'production',
    processingBaseUrl: 'https://api.processing.test',
    snapshotRate: 'cron(0 6 * * ? *)',
    reconcileRate: 'rate(1 minute)',
    webhookRetryRate: 'rate(1 minute)',
    alarmEmail: 'ops@merchant.test',
    logRetentionDays: 365,
    webhookUrl: 'https://shop.test/webhooks',
    openShards: OPEN_ITEMS_INDEX.shards,
    dueShards: DELIVERIES_DUE_INDEX.shards,
    storeRequestsPerSecond: DEFAULT_STORE_REQUESTS_PER_SECOND,
  });
});

test('the shard counts are whole numbers within bounds; the due list never goes below the four of before', () => {
  expect(resolveSettings({ openShards: 8, dueShards: '16' })).toMatchObject({ openShards: 8, dueShards: 16 });
  for (const [key, value, least] of [
    ['openShards', 0, 1],
    ['openShards', 2.5, 1],
    ['openShards', 257, 1],
    ['dueShards', 3, 4],
    ['dueShards', 'many', 4],
  ] as const) {
    expect(() => resolveSettings({ [key]: value })).toThrow(
      `Setting "${key}" must be a whole number from ${least} to 256, got ${JSON.stringify(value)}.`,
    );
  }
});

test("a stage may set each store's requests a second", () => {
  expect(resolveSettings({ storeRequestsPerSecond: 500 }).storeRequestsPerSecond).toBe(500);
});

test('production says "none" to send no webhooks on purpose', () => {
  expect(resolveSettings(PRODUCTION).webhookUrl).toBeUndefined();
});

test('custom domains for the API and the web apps, with their hosted zone', () => {
  expect(
    resolveSettings({
      apiDomainName: 'Pay-API.shop.test',
      apiCertificateArn: CERTIFICATE,
      webDomainName: 'pay.shop.test',
      webCertificateArn: CLOUDFRONT_CERTIFICATE,
      hostedZoneId: 'Z0123456789ABC',
      hostedZoneName: 'shop.test.',
    }),
  ).toMatchObject({
    apiDomain: { name: 'pay-api.shop.test', certificateArn: CERTIFICATE },
    webDomain: { name: 'pay.shop.test', certificateArn: CLOUDFRONT_CERTIFICATE },
    hostedZone: { id: 'Z0123456789ABC', name: 'shop.test' },
  });
});

test.each([
  ['90', 90],
  [14, 14],
])('logRetentionDays %j keeps logs that many days', (value, days) => {
  expect(resolveSettings({ logRetentionDays: value }).logRetentionDays).toBe(days);
});

test('production may send its alarms to an existing topic instead of an e-mail address', () => {
  const alarmTopicArn = 'arn:aws:sns:eu-central-1:123456789012:ops-alarms';
  expect(resolveSettings({ ...PRODUCTION, alarmEmail: undefined, alarmTopicArn })).toMatchObject({
    stage: 'production',
    alarmTopicArn,
  });
});

test.each([
  [
    { ...PRODUCTION, alarmEmail: undefined },
    /"production" needs somewhere to send its alarms: set "alarmEmail" .*"alarmTopicArn".* in cdk.json, under context.stages.production/,
  ],
  [
    { ...PRODUCTION, webhookUrl: undefined },
    /"webhookUrl" is required for stage "production": put "webhookUrl": "https:\/\/\.\.\. \(or "none"\)" in cdk.json, under context.stages.production/,
  ],
  [
    { webhookUrl: 'http://shop.test/hooks' },
    /"webhookUrl" must be an https:\/\/ URL without credentials, or "none"/,
  ],
  [
    { alarmEmial: 'ops@merchant.test' },
    /Unknown setting "alarmEmial" in cdk.json, under context.stages.sandbox/,
  ],
  [{ apiDomainName: 'pay-api.shop.test' }, /"apiDomainName" and "apiCertificateArn" go together/],
  [
    { webDomainName: 'pay.shop.test', webCertificateArn: CERTIFICATE },
    /"webCertificateArn" must be a certificate in us-east-1/,
  ],
  [{ apiDomainName: 'pay api', apiCertificateArn: CERTIFICATE }, /"apiDomainName" must be a host name/],
  [
    { apiDomainName: 'pay.shop.test', apiCertificateArn: 'cert' },
    /"apiCertificateArn" must be the ARN of an ACM certificate/,
  ],
  [{ hostedZoneId: 'Z0123456789ABC' }, /"hostedZoneId" and "hostedZoneName" go together/],
  [
    {
      apiDomainName: 'pay.other.test',
      apiCertificateArn: CERTIFICATE,
      hostedZoneId: 'Z0123456789ABC',
      hostedZoneName: 'shop.test',
    },
    /"pay.other.test" is not in the hosted zone "shop.test"/,
  ],
  [{ alarmTopicArn: 'ops-alarms' }, /"alarmTopicArn" must be the ARN of a standard SNS topic/],
  [
    { alarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:ops-alarms.fifo' },
    /"alarmTopicArn" must be the ARN of a standard SNS topic/,
  ],
  [{ logRetentionDays: '10' }, /"logRetentionDays" must be one of 1, 3, 5, .*, got "10"/],
  [{ logRetentionDays: 'a month' }, /"logRetentionDays" must be one of/],
  [{ storeRequestsPerSecond: 0 }, /"storeRequestsPerSecond" must be a whole number from 1 to 100000, got 0/],
  [{ storeRequestsPerSecond: '50' }, /"storeRequestsPerSecond" must be a whole number/],
  [{ storeRequestsPerSecond: 2.5 }, /"storeRequestsPerSecond" must be a whole number/],
  [{ stage: 'prod' }, /"stage" must be "sandbox" or "production", got "prod"/],
  [
    { stage: 'production' },
    /"processingBaseUrl" is required for stage "production": put .* in cdk.json, under context.stages.production/,
  ],
  [{ processingBaseUrl: 'http://api.processing.test' }, /must be a plain https:\/\/ URL/],
  [{ processingBaseUrl: 'https://user:pw@api.processing.test' }, /must be a plain https:\/\/ URL/],
  [{ processingBaseUrl: 'api.processing.test' }, /must be an absolute URL/],
  [{ processingBaseUrl: 'https://api.processing.test/v2' }, /must leave out the \/v2 prefix/],
  [{ snapshotRate: 'every hour' }, /"snapshotRate" must look like/],
  [{ reconcileRate: 'rate(5 minute)' }, /"reconcileRate" must look like/],
  [{ reconcileRate: 'rate(1 minutes)' }, /"reconcileRate" must look like/],
  [{ reconcileRate: 'rate(0 minutes)' }, /"reconcileRate" must look like/],
  [{ alarmEmail: 'ops' }, /"alarmEmail" must be an e-mail address/],
  [{ stage: true }, /"stage" must be "sandbox" or "production", got true/],
  [{ snapshotRate: 60 }, /"snapshotRate" must be a string, got 60/],
])('rejects %j', (raw, message) => {
  expect(() => resolveSettings(raw as RawSettings)).toThrow(message);
});

describe('read from the app context, as cdk.json and -c give it', () => {
  const read = (context: Record<string, unknown>) => readSettings(new App({ context }).node);

  test('the committed cdk.json holds valid settings for every stage', () => {
    for (const stage of ['sandbox', 'production']) {
      expect(read({ ...cdkJson.context, stage }).stage).toBe(stage);
    }
    expect(read(cdkJson.context).stage).toBe('sandbox');
  });

  test("-c stage=... picks the stage's settings", () => {
    const stages = { sandbox: {}, production: { ...PRODUCTION, stage: undefined } };
    expect(read({ stages, stage: 'production' })).toMatchObject({
      stage: 'production',
      processingBaseUrl: 'https://api.processing.test',
    });
  });

  test('a setting given as -c is refused, naming where it belongs', () => {
    expect(() =>
      read({ ...cdkJson.context, stage: 'production', webhookUrl: 'https://shop.test/x' }),
    ).toThrow(
      'Setting "webhookUrl" was given as -c webhookUrl=...: a stage\'s settings are read only from cdk.json, ' +
        'under context.stages.production, so that every deploy of the stage is the same. Put it there.',
    );
  });

  test('a stage with no settings names where they go', () => {
    expect(() => read({ stage: 'production', stages: { sandbox: {} } })).toThrow(
      'No settings for stage "production": add them to cdk.json, under context.stages.production.',
    );
  });
});

describe('explorerUrls', () => {
  test('unset, none: the functions use the defaults', () => {
    expect(resolveSettings({}).explorerUrls).toBeUndefined();
  });

  test("a stage's templates are kept and handed to every function as EXPLORER_URLS", () => {
    const explorerUrls = { BTC: 'https://blockstream.info/tx/{txid}', XRP: '' };
    expect(resolveSettings({ explorerUrls }).explorerUrls).toEqual(explorerUrls);
    const app = new App({
      context: {
        ...cdkJson.context,
        stages: { ...cdkJson.context.stages, sandbox: { ...cdkJson.context.stages.sandbox, explorerUrls } },
        'aws:cdk:bundling-stacks': [],
      },
    });
    const functions = Template.fromStack(definePaymentsPluginApp(app)).findResources('AWS::Lambda::Function');
    const getInvoice = Object.values(functions).find((fn) =>
      String(fn.Properties.Description).includes('functions/get-invoice.ts'),
    );
    expect(getInvoice?.Properties.Environment.Variables.EXPLORER_URLS).toBe(JSON.stringify(explorerUrls));
  });

  test.each([
    [{ BTC: 'https://mempool.space/tx/' }, /"explorerUrls": Explorer URL for BTC must contain \{txid\}/],
    [
      { BTC: 'ftp://x.test/{txid}' },
      /"explorerUrls": Explorer URL for BTC must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      'https://mempool.space/tx/{txid}',
      /"explorerUrls" must be an object of currency codes to URL templates/,
    ],
  ])('refused: %j', (explorerUrls, message) => {
    expect(() => resolveSettings({ explorerUrls })).toThrow(message);
  });
});
