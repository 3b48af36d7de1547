import * as path from 'node:path';
import { CfnOutput, Duration, Fn, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, StreamViewType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { ARecord, HostedZone, RecordTarget } from 'aws-cdk-lib/aws-route53';
import { ApiGatewayv2DomainProperties } from 'aws-cdk-lib/aws-route53-targets';
import type { Construct } from 'constructs';
import { STAGE_ENV } from '../observability/metrics';
import { SECONDARY_INDEXES, SHARDS_ENV, TABLE_SCHEMA } from '../store/schema';
import { LEASE_PARTITION_PREFIX } from '../store/request-leases';
import { PluginAlarms } from './plugin-alarms';
import { PluginApi } from './plugin-api';
import { PluginDashboard } from './plugin-dashboard';
import { PluginFunction, PROJECT_ROOT } from './plugin-function';
import { PluginSecrets } from './plugin-secrets';
import {
  JOB_FUNCTION_TIMEOUT_SECONDS,
  jobs,
  routes,
  type FunctionName,
  LIMITED_BY_ACCESS,
  type Route,
  type ScheduledJob,
} from './routes';
import { ScheduledJobs } from './scheduled-jobs';
import { WebhookTrigger } from './webhook-trigger';
import type { PluginSettings } from './settings';
import { VERSION } from '../runtime/version';
import { WebHosting } from './web-hosting';

const JOB_TIMEOUT = Duration.seconds(JOB_FUNCTION_TIMEOUT_SECONDS);

export interface PaymentsPluginStackProps extends StackProps {
  settings: PluginSettings;
}

/** The functions that answer a refund's claim link (`claim_url`). */
export const CLAIM_LINK_FUNCTIONS = [
  'refund-invoice',
  'get-refund',
] as const satisfies readonly FunctionName[];

export class PaymentsPluginStack extends Stack {
  private readonly table: TableV2;
  private readonly secrets: PluginSecrets;

  constructor(scope: Construct, id: string, props: PaymentsPluginStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: TABLE_SCHEMA.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_SCHEMA.sortKey, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TABLE_SCHEMA.timeToLive,
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: settings.stage !== 'sandbox',
      // The new image, only so that the trigger wakes the webhook dispatcher for writes that leave events waiting
      // (lib/webhook-trigger.ts); the dispatcher reads what is due from the table.
      dynamoStream: settings.webhookUrl === undefined ? undefined : StreamViewType.NEW_IMAGE,
      globalSecondaryIndexes: SECONDARY_INDEXES.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.KEYS_ONLY,
      })),
    });
    const logRetention = settings.logRetentionDays as RetentionDays;
    this.secrets = new PluginSecrets(this, 'Secrets', { logRetention });

    const environment = {
      TABLE_NAME: this.table.tableName,
      PROCESSING_BASE_URL: settings.processingBaseUrl,
      // The custom metrics' stage dimension (observability/metrics.ts).
      [STAGE_ENV]: settings.stage,
      // A change of a record makes its webhook events only when there is an endpoint to send them to.
      ...(settings.webhookUrl !== undefined && { WEBHOOK_EVENTS: 'on' }),
      // The views' links to a deposit on a block explorer, where the stage overrides the defaults.
      ...(settings.explorerUrls !== undefined && { EXPLORER_URLS: JSON.stringify(settings.explorerUrls) }),
      // Every writer and reader of the open and due lists must agree on their shards.
      [SHARDS_ENV.open]: String(settings.openShards),
      [SHARDS_ENV.due]: String(settings.dueShards),
    };
    const webhookEnvironment = settings.webhookUrl === undefined ? {} : { WEBHOOK_URL: settings.webhookUrl };
    // The store routes show the default store's webhook URL, which is the deployment's; they send nothing.
    const defaultStoreEnvironment =
      settings.webhookUrl === undefined ? {} : { DEFAULT_STORE_WEBHOOK_URL: settings.webhookUrl };
    // The functions that count a store's requests take the stage's limit; a store's own is in its item.
    const limitEnvironment = { STORE_REQUESTS_PER_SECOND: String(settings.storeRequestsPerSecond) };
    const handlers = Object.fromEntries(
      [...routes, ...jobs].map((facts) => [
        facts.name,
        this.pluginFunction(
          facts,
          facts.name === 'webhook-dispatcher'
            ? { ...environment, ...webhookEnvironment }
            : 'access' in facts && facts.access === 'platform'
              ? { ...environment, ...defaultStoreEnvironment }
              : isLimited(facts)
                ? { ...environment, ...limitEnvironment }
                : environment,
          logRetention,
        ).function,
      ]),
    ) as Record<FunctionName, NodejsFunction>;
    const api = new PluginApi(this, 'Api', { handlers, logRetention, domain: settings.apiDomain });
    if (api.domainName && settings.apiDomain && settings.hostedZone) {
      new ARecord(this, 'ApiAlias', {
        zone: HostedZone.fromHostedZoneAttributes(this, 'Zone', {
          hostedZoneId: settings.hostedZone.id,
          zoneName: settings.hostedZone.name,
        }),
        recordName: `${settings.apiDomain.name}.`,
        target: RecordTarget.fromAlias(
          new ApiGatewayv2DomainProperties(
            api.domainName.regionalDomainName,
            api.domainName.regionalHostedZoneId,
          ),
        ),
      });
    }
    const schedules = new ScheduledJobs(this, 'Jobs', {
      jobs: {
        'snapshot-balances': { handler: handlers['snapshot-balances'], rate: settings.snapshotRate },
        reconcile: { handler: handlers.reconcile, rate: settings.reconcileRate },
        // Retries that came due; new events wake it through the stream at once.
        'webhook-dispatcher': { handler: handlers['webhook-dispatcher'], rate: settings.webhookRetryRate },
      },
    });
    const webhooks =
      settings.webhookUrl === undefined
        ? undefined
        : new WebhookTrigger(this, 'WebhookTrigger', {
            table: this.table,
            dispatcher: handlers['webhook-dispatcher'],
            deadLetterQueue: schedules.deadLetterQueue,
          });
    const alarms = new PluginAlarms(this, 'Alarms', {
      stage: settings.stage,
      functions: handlers,
      api: api.api,
      table: this.table,
      deadLetterQueue: schedules.deadLetterQueue,
      alarmEmail: settings.alarmEmail,
      alarmTopicArn: settings.alarmTopicArn,
    });
    const dashboard = new PluginDashboard(this, 'Dashboard', {
      stage: settings.stage,
      functions: handlers,
      api: api.api,
      deadLetterQueue: schedules.deadLetterQueue,
      webhookWakeQueue: webhooks?.wakeQueue,
      alarms: alarms.alarms,
    });

    const web = new WebHosting(this, 'Web', {
      // https://<id>.execute-api.<region>.<suffix>: its host name.
      apiDomain: Fn.select(2, Fn.split('/', api.api.apiEndpoint)),
      logRetention,
      domain: settings.webDomain,
      hostedZone: settings.hostedZone,
    });
    const webUrl = web.url;
    // A refund's claim link opens the claim page, which the web distribution serves, not the API's own host.
    for (const name of CLAIM_LINK_FUNCTIONS)
      handlers[name].addEnvironment('CLAIM_PAGE_URL', `${webUrl}/claim/`);

    new CfnOutput(this, 'Version', {
      description: 'The plugin release deployed (package.json)',
      value: VERSION,
    });
    new CfnOutput(this, 'DashboardName', {
      description: "The CloudWatch dashboard of this stage's traffic, errors, webhooks and reconcile job",
      value: dashboard.dashboard.dashboardName,
    });
    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the plugin API', value: api.url });
    new CfnOutput(this, 'CallbackUrl', {
      description: 'Enter this as the callback URL in the merchant administration',
      value: `${api.url}callbacks`,
    });
    new CfnOutput(this, 'ProcessingKeysSecretName', {
      description: 'Secrets Manager secret for the processing keys: put them in after the first deploy',
      value: this.secrets.secrets.processingKeys.secretName,
    });
    new CfnOutput(this, 'WebhookSecretName', {
      description:
        'Secrets Manager secret for the webhook signing secret: put {"webhook_secret": "whsec_..."} in',
      value: this.secrets.secrets.webhookSecret.secretName,
    });
    new CfnOutput(this, 'TokensSecretName', {
      description: 'Secrets Manager secret with the bearer tokens of the storefront and the back office',
      value: this.secrets.secrets.tokens.secretName,
    });
    new CfnOutput(this, 'PlatformTokenSecretName', {
      description: 'Secrets Manager secret with the platform token, which manages stores (POST /stores)',
      value: this.secrets.secrets.platformToken.secretName,
    });
    new CfnOutput(this, 'ConsoleUrl', {
      description: 'The operator console; it calls the API through the same distribution',
      value: `${webUrl}/console/`,
    });
    new CfnOutput(this, 'WidgetModuleUrl', {
      description: "The checkout widget's ES module, for shops' pages: import { mount } from this URL",
      value: `${webUrl}/widget/widget.js`,
    });
    new CfnOutput(this, 'DemoUrl', {
      description: 'The demo store page: static in AWS, its "Pay with crypto" needs a store backend',
      value: `${webUrl}/demo/`,
    });
  }

  /** The function of a route or a job, granted what lib/routes.ts says it needs and nothing more. */
  private pluginFunction(
    facts: Route | ScheduledJob,
    environment: Record<string, string>,
    logRetention: RetentionDays,
  ): PluginFunction {
    const { name, data, secrets, storeSecrets, concurrency } = facts;
    const fn = new PluginFunction(this, name, {
      entry: path.join(PROJECT_ROOT, 'functions', `${name}.ts`),
      description: `Merchant Payments plugin: ${name} (functions/${name}.ts)`,
      environment: {
        ...environment,
        ...this.secrets.environment(secrets),
        ...this.secrets.storeSecretsEnvironment(storeSecrets),
      },
      timeout: 'path' in facts ? undefined : JOB_TIMEOUT,
      reservedConcurrency: concurrency === 'shared' ? undefined : concurrency.reserved,
      logRetention,
    });
    this.secrets.grantRead(fn, secrets);
    this.secrets.grantStoreSecrets(fn, storeSecrets);
    if (data.table.length > 0) fn.allow(data.table.map(dynamodb), [this.table.tableArn]);
    // A store's request count: one conditional update of its lease items, and of no other item.
    if (isLimited(facts)) {
      fn.allow([dynamodb('UpdateItem')], [this.table.tableArn], {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${LEASE_PARTITION_PREFIX}*`] },
      });
    }
    if (data.queriedIndexes) {
      const indexArn = (name: string) => `${this.table.tableArn}/index/${name}`;
      fn.allow([dynamodb('Query')], data.queriedIndexes.map(indexArn));
    }
    return fn;
  }
}

const dynamodb = (action: string) => `dynamodb:${action}`;

const isLimited = (facts: Route | ScheduledJob): boolean =>
  'access' in facts && LIMITED_BY_ACCESS[facts.access];
