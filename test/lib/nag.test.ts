import { App, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { definePaymentsPluginApp } from '../../lib/define-app';
import { stageContext } from '../support/stage-context';

const CONFIGURATIONS = {
  sandbox: {},
  'sandbox with webhooks (the table stream wakes the dispatcher)': {
    webhookUrl: 'https://shop.test/webhooks',
  },
  'production with alarm e-mail': {
    stage: 'production',
    processingBaseUrl: 'https://api.processing.test',
    alarmEmail: 'ops@merchant.test',
    webhookUrl: 'none',
  },
  'production with an existing alarm topic': {
    stage: 'production',
    processingBaseUrl: 'https://api.processing.test',
    alarmTopicArn: 'arn:aws:sns:eu-central-1:123456789012:ops-alarms',
    webhookUrl: 'https://shop.test/webhooks',
  },
  'production with custom domains': {
    stage: 'production',
    processingBaseUrl: 'https://api.processing.test',
    alarmEmail: 'ops@merchant.test',
    webhookUrl: 'none',
    apiDomainName: 'pay-api.shop.test',
    apiCertificateArn:
      'arn:aws:acm:eu-central-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
    webDomainName: 'pay.shop.test',
    webCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/11111111-2222-3333-4444-555555555555',
    hostedZoneId: 'Z0123456789ABC',
    hostedZoneName: 'shop.test',
  },
};

describe.each(Object.entries(CONFIGURATIONS))('cdk-nag AwsSolutions, %s', (_name, context) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...stageContext(context) } });
  definePaymentsPluginApp(app);

  test('synth passes the checks the app registers', () => {
    // The app's own plugin runs here and throws "Validation failed" on any finding.
    expect(() => app.synth()).not.toThrow();
  });

  test('no finding is left unacknowledged', () => {
    expect(new AwsSolutionsChecks().validateScope(app).violations).toEqual([]);
  });

  test('every acknowledgement gives its reason', () => {
    const reasons = app.node
      .findAll()
      .flatMap((c) => c.node.metadata)
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.values(entry.data as Record<string, string>));
    expect(reasons.length).toBeGreaterThan(0);
    for (const reason of reasons) expect(reason.length).toBeGreaterThan(40);
  });
});

test('the app registers the checks: one finding fails the synth', () => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [], ...stageContext() } });
  const stack = definePaymentsPluginApp(app);
  new Queue(stack, 'QueueWithoutTls');
  expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
});
