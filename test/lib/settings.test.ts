import { resolveSettings, SANDBOX_PROCESSING_BASE_URL } from '../../lib/settings';

test('defaults give a sandbox with the placeholder base URL and the default rates', () => {
  expect(resolveSettings({})).toEqual({
    stage: 'sandbox',
    processingBaseUrl: SANDBOX_PROCESSING_BASE_URL,
    snapshotRate: 'rate(1 hour)',
    reconcileRate: 'rate(1 minute)',
    webhookRetryRate: 'rate(1 minute)',
    logRetentionDays: 30,
  });
});

test('production takes its base URL, rates and alarm e-mail from the settings', () => {
  expect(
    resolveSettings({
      stage: 'production',
      processingBaseUrl: 'https://api.processing.test/',
      snapshotRate: 'cron(0 6 * * ? *)',
      reconcileRate: 'rate(1 minute)',
      alarmEmail: 'ops@merchant.test',
    }),
  ).toEqual({
    stage: 'production',
    processingBaseUrl: 'https://api.processing.test',
    snapshotRate: 'cron(0 6 * * ? *)',
    reconcileRate: 'rate(1 minute)',
    webhookRetryRate: 'rate(1 minute)',
    alarmEmail: 'ops@merchant.test',
    logRetentionDays: 365,
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
  expect(
    resolveSettings({ stage: 'production', processingBaseUrl: 'https://api.processing.test', alarmTopicArn }),
  ).toMatchObject({ stage: 'production', alarmTopicArn });
});

test.each([
  [
    { stage: 'production', processingBaseUrl: 'https://api.processing.test' },
    /"production" needs somewhere to send its alarms: set "alarmEmail" .*"alarmTopicArn"/,
  ],
  [{ alarmTopicArn: 'ops-alarms' }, /"alarmTopicArn" must be the ARN of a standard SNS topic/],
  [
    { alarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:ops-alarms.fifo' },
    /"alarmTopicArn" must be the ARN of a standard SNS topic/,
  ],
  [{ logRetentionDays: '10' }, /"logRetentionDays" must be one of 1, 3, 5, .*, got "10"/],
  [{ logRetentionDays: 'a month' }, /"logRetentionDays" must be one of/],
  [{ stage: 'prod' }, /"stage" must be "sandbox" or "production", got "prod"/],
  [{ stage: 'production' }, /"processingBaseUrl" is required for stage "production"/],
  [{ processingBaseUrl: 'http://api.processing.test' }, /must be a plain https:\/\/ URL/],
  [{ processingBaseUrl: 'https://user:pw@api.processing.test' }, /must be a plain https:\/\/ URL/],
  [{ processingBaseUrl: 'api.processing.test' }, /must be an absolute URL/],
  [{ processingBaseUrl: 'https://api.processing.test/v2' }, /must leave out the \/v2 prefix/],
  [{ snapshotRate: 'every hour' }, /"snapshotRate" must look like/],
  [{ reconcileRate: 'rate(5 minute)' }, /"reconcileRate" must look like/],
  [{ reconcileRate: 'rate(1 minutes)' }, /"reconcileRate" must look like/],
  [{ reconcileRate: 'rate(0 minutes)' }, /"reconcileRate" must look like/],
  [{ alarmEmail: 'ops' }, /"alarmEmail" must be an e-mail address/],
  [{ stage: true }, /"stage" must be a string, got true/],
])('rejects %j', (raw, message) => {
  expect(() => resolveSettings(raw)).toThrow(message);
});
