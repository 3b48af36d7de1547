// The stages as committed in cdk.json, synthesized as `npx cdk deploy -c stage=...` would, with no other flag.
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import cdkJson from '../../cdk.json';
import { definePaymentsPluginApp } from '../../lib/define-app';
import type { WebHosting } from '../../lib/web-hosting';

const committed = cdkJson.context.stages.production;

/** The app as the CLI makes it from cdk.json, with `-c stage=<stage>` and nothing else. */
function appFor(stage: string, context: Record<string, unknown> = cdkJson.context) {
  // Skips bundling: these tests read the template.
  return new App({ context: { ...context, stage, 'aws:cdk:bundling-stacks': [] } });
}

describe('production, from the committed settings alone', () => {
  const stack = definePaymentsPluginApp(appFor('production'));
  const template = Template.fromStack(stack);
  const web = Template.fromStack(stack.node.findChild('Web') as WebHosting);
  const outputs = template.toJSON().Outputs;

  test('is the production stack, with its base URL and deletion protection', () => {
    expect(stack.stackName).toBe('MerchantPaymentsPlugin-production');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { PROCESSING_BASE_URL: committed.processingBaseUrl, STAGE: 'production' } },
    });
  });

  test('sends webhooks to the committed URL: stream, wake queue and the dispatcher on', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { WEBHOOK_URL: committed.webhookUrl, WEBHOOK_EVENTS: 'on' } },
    });
    expect(Object.keys(template.findResources('AWS::Lambda::EventSourceMapping'))).toHaveLength(2);
  });

  test('e-mails every alarm, and its end, to the committed address', () => {
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: committed.alarmEmail,
    });
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toHaveLength(1);
      expect(alarm.Properties.OKActions).toEqual(alarm.Properties.AlarmActions);
    }
  });

  test('serves the API and the web apps on the committed domains, with records in the committed zone', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: committed.apiDomainName,
      DomainNameConfigurations: [
        { CertificateArn: committed.apiCertificateArn, EndpointType: 'REGIONAL', SecurityPolicy: 'TLS_1_2' },
      ],
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', { Stage: '$default' });
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: `${committed.apiDomainName}.`,
      Type: 'A',
      HostedZoneId: committed.hostedZoneId,
    });
    web.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: {
        Aliases: [committed.webDomainName],
        ViewerCertificate: {
          AcmCertificateArn: committed.webCertificateArn,
          MinimumProtocolVersion: 'TLSv1.2_2021',
          SslSupportMethod: 'sni-only',
        },
      },
    });
    for (const type of ['A', 'AAAA']) {
      web.hasResourceProperties('AWS::Route53::RecordSet', {
        Name: `${committed.webDomainName}.`,
        Type: type,
        HostedZoneId: committed.hostedZoneId,
      });
    }
  });

  test('warns that the committed values are examples, until they are replaced', () => {
    const warnings = Annotations.fromStack(stack).findWarning(
      '*',
      Match.stringLikeRegexp('example settings'),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0].entry.data).toMatch(
      /\(processingBaseUrl, alarmEmail, webhookUrl, apiDomainName, webDomainName\): replace them in cdk.json/,
    );
    const real = {
      ...committed,
      processingBaseUrl: 'https://api.processing.test',
      alarmEmail: 'ops@shop.test',
    };
    const replaced = definePaymentsPluginApp(
      appFor('production', {
        ...cdkJson.context,
        stages: {
          production: {
            ...real,
            webhookUrl: 'none',
            apiDomainName: undefined,
            apiCertificateArn: undefined,
            webDomainName: undefined,
            webCertificateArn: undefined,
            hostedZoneId: undefined,
            hostedZoneName: undefined,
          },
        },
      }),
    );
    expect(
      Annotations.fromStack(replaced).findWarning('*', Match.stringLikeRegexp('example settings')),
    ).toEqual([]);
  });

  test('the callback and widget URLs in the outputs are built from the domains', () => {
    expect(outputs.ApiUrl.Value).toBe(`https://${committed.apiDomainName}/`);
    expect(outputs.CallbackUrl.Value).toBe(`https://${committed.apiDomainName}/callbacks`);
    expect(outputs.WidgetModuleUrl.Value).toBe(`https://${committed.webDomainName}/widget/widget.js`);
    expect(outputs.ConsoleUrl.Value).toBe(`https://${committed.webDomainName}/console/`);
  });
});

test('the committed sandbox keeps the AWS-generated URLs and sends no webhooks', () => {
  const template = Template.fromStack(definePaymentsPluginApp(appFor('sandbox')));
  expect(template.findResources('AWS::ApiGatewayV2::DomainName')).toEqual({});
  expect(template.findResources('AWS::Lambda::EventSourceMapping')).toEqual({});
  expect(JSON.stringify(template.toJSON().Outputs.CallbackUrl.Value)).toContain('execute-api');
});

test('a required setting missing from cdk.json fails the synth, naming it and where it goes', () => {
  const { webhookUrl: _left, ...withoutWebhookUrl } = committed;
  const context = {
    ...cdkJson.context,
    stages: { ...cdkJson.context.stages, production: withoutWebhookUrl },
  };
  expect(() => definePaymentsPluginApp(appFor('production', context))).toThrow(
    'Setting "webhookUrl" is required for stage "production": put "webhookUrl": "https://... (or "none")" in ' +
      'cdk.json, under context.stages.production.',
  );
});
