import * as path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, Billing, ProjectionType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { dataAccess, OPEN_ITEMS_INDEX } from './data-access';
import { PluginAlarms } from './plugin-alarms';
import { PluginApi } from './plugin-api';
import { PluginFunction, PROJECT_ROOT } from './plugin-function';
import { PluginSecret } from './plugin-secret';
import { JOB_FUNCTION_TIMEOUT_SECONDS, routes, scheduledJobs, type FunctionName } from './routes';
import { ScheduledJobs } from './scheduled-jobs';
import type { PluginSettings } from './settings';

const JOB_TIMEOUT = Duration.seconds(JOB_FUNCTION_TIMEOUT_SECONDS);

export interface PaymentsPluginStackProps extends StackProps {
  settings: PluginSettings;
}

export class PaymentsPluginStack extends Stack {
  private readonly table: TableV2;
  private readonly secret: PluginSecret;

  constructor(scope: Construct, id: string, props: PaymentsPluginStackProps) {
    super(scope, id, props);
    const { settings } = props;

    this.table = new TableV2(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: 'ttl',
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: settings.stage !== 'sandbox',
      globalSecondaryIndexes: [
        {
          indexName: OPEN_ITEMS_INDEX,
          partitionKey: { name: 'gsi1pk', type: AttributeType.STRING },
          sortKey: { name: 'gsi1sk', type: AttributeType.STRING },
          projectionType: ProjectionType.KEYS_ONLY,
        },
      ],
    });
    this.secret = new PluginSecret(this, 'Secret');

    const environment = {
      TABLE_NAME: this.table.tableName,
      SECRET_ID: this.secret.secret.secretArn,
      PROCESSING_BASE_URL: settings.processingBaseUrl,
    };
    const names: FunctionName[] = [...routes.map((route) => route.name), ...scheduledJobs];
    const handlers = byName(names, (name) => this.pluginFunction(name, environment).function);
    const api = new PluginApi(this, 'Api', { handlers });
    const jobs = new ScheduledJobs(this, 'Jobs', {
      jobs: {
        'snapshot-balances': { handler: handlers['snapshot-balances'], rate: settings.snapshotRate },
        reconcile: { handler: handlers.reconcile, rate: settings.reconcileRate },
      },
    });
    new PluginAlarms(this, 'Alarms', {
      functions: handlers,
      deadLetterQueue: jobs.deadLetterQueue,
      alarmEmail: settings.alarmEmail,
    });

    new CfnOutput(this, 'ApiUrl', { description: 'Base URL of the plugin API', value: api.url });
    new CfnOutput(this, 'CallbackUrl', {
      description: 'Enter this as the callback URL in the merchant administration',
      value: `${api.url}callbacks`,
    });
    new CfnOutput(this, 'SecretName', {
      description: 'Secrets Manager secret with the processing keys and the bearer tokens',
      value: this.secret.secret.secretName,
    });
  }

  private pluginFunction(name: FunctionName, environment: Record<string, string>): PluginFunction {
    const fn = new PluginFunction(this, name, {
      entry: path.join(PROJECT_ROOT, 'functions', `${name}.ts`),
      description: `Merchant Payments plugin: ${name} (functions/${name}.ts)`,
      environment,
      timeout: (scheduledJobs as readonly string[]).includes(name) ? JOB_TIMEOUT : undefined,
    });
    this.secret.grantRead(fn);
    const access = dataAccess[name];
    if (access.table.length > 0) fn.allow(access.table.map(dynamodb), [this.table.tableArn]);
    if (access.openItemsIndex) {
      fn.allow(access.openItemsIndex.map(dynamodb), [`${this.table.tableArn}/index/${OPEN_ITEMS_INDEX}`]);
    }
    return fn;
  }
}

const dynamodb = (action: string) => `dynamodb:${action}`;

function byName<T>(names: FunctionName[], make: (name: FunctionName) => T): Record<FunctionName, T> {
  return Object.fromEntries(names.map((name) => [name, make(name)])) as Record<FunctionName, T>;
}
