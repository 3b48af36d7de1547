import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, metricDimensions, type MetricName } from '../observability/metrics';
import { jobs, routes, type FunctionName } from './routes';
import type { Stage } from './settings';

export const PERIOD = Duration.minutes(5);

/** A run that takes this share of its timeout is one slow call away from being killed without an answer. */
const DURATION_SHARE_OF_TIMEOUT = 0.8;

/** A person waits on these answers; a normal one takes well under a second, so 5 s at p99 is worth a look. */
const API_LATENCY_P99_MS = 5_000;

/**
 * Throttled on purpose, so a throttles alarm would page for nothing: the dispatcher's stream, wake queue and
 * schedule share its 2 reserved slots, and a throttled wake is retried (docs/webhooks.md). Its errors alarm and
 * WebhookDeliveryFailures tell of real trouble.
 */
export const THROTTLED_BY_DESIGN: readonly FunctionName[] = ['webhook-dispatcher'];

/** On the dashboard, not alarmed: a store refused over its own limit is the limit at work, not a fault. */
export const DASHBOARD_ONLY_METRICS = ['StoreRateLimited'] as const satisfies readonly MetricName[];

/** The counts the functions emit as Embedded Metric Format log lines (observability/metrics.ts), each alarmed. */
export const CUSTOM_METRICS: Record<Exclude<MetricName, (typeof DASHBOARD_ONLY_METRICS)[number]>, string> = {
  UpstreamServerErrors: 'The processing service answered 5xx or did not answer in time',
  CallbackSignatureFailures: 'A callback arrived with a missing or wrong signature',
  WebhookDeliveryFailures:
    "A webhook to a store failed for 3 days (the dashboard shows which store); re-send it from that store's admin routes",
  InvoiceLookupNotFound:
    'The payment service did not find an invoice we created by its id: the reconcile job cannot see invoices there (docs/operations.md)',
  ReconcileLookFailures: 'The reconcile job could not look records up; it retries each later',
  NewsMismatch:
    "The payment service's news named another record, or came to another account than the record's; it was not applied",
  UnrenderableRecords:
    'A stored record holds a time no view can write: its own routes answer 500 unrenderable_record, lists and exports go on without it (docs/operations.md)',
};

export interface PluginAlarmsProps {
  /** Its custom metrics are this stage's own. */
  stage: Stage;
  functions: Record<FunctionName, LambdaFunction>;
  api: IHttpApi;
  table: TableV2;
  deadLetterQueue: IQueue;
  /** When set, an encrypted SNS topic e-mails every alarm here. */
  alarmEmail?: string;
  /** When set, every alarm also goes to this existing topic. */
  alarmTopicArn?: string;
}

/**
 * One alarm per thing an operator must look at; each fires on the first occurrence in five minutes, and says so
 * again when it is over (OK), so that the person paged knows without looking.
 */
export class PluginAlarms extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: PluginAlarmsProps) {
    super(scope, id);
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}-errors`, `${name}: the function failed`, fn.metricErrors({ period: PERIOD }));
      if (!THROTTLED_BY_DESIGN.includes(name as FunctionName)) {
        this.add(
          `${name}-throttles`,
          `${name}: invocations were throttled`,
          fn.metricThrottles({ period: PERIOD }),
        );
      }
      // Every PluginFunction sets its timeout; 3 s is Lambda's own default.
      const timeout = (fn.timeout ?? Duration.seconds(3)).toMilliseconds();
      this.add(
        `${name}-duration`,
        `${name}: a run took over ${DURATION_SHARE_OF_TIMEOUT * 100}% of its ${timeout / 1000} s timeout`,
        fn.metricDuration({ period: PERIOD, statistic: 'Maximum' }),
        DURATION_SHARE_OF_TIMEOUT * timeout,
      );
    }
    this.add(
      'api-5xx',
      'The API answered 5xx (our own 502/503/504 included)',
      props.api.metricServerError({ period: PERIOD, statistic: 'Sum' }),
    );
    this.add(
      'api-latency',
      `The API's p99 latency was over ${API_LATENCY_P99_MS} ms`,
      props.api.metricLatency({ period: PERIOD, statistic: 'p99' }),
      API_LATENCY_P99_MS,
    );
    this.add(
      'dynamodb-throttles',
      'DynamoDB throttled requests on the table or its index',
      throttledRequests(props.table),
    );
    this.add(
      'dead-letters',
      'A scheduled job run, or a webhook wake-up by the table stream, failed and is in the dead-letter queue',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: 'Maximum',
      }),
    );
    for (const [metricName, description] of Object.entries(CUSTOM_METRICS)) {
      this.add(metricName, description, customMetric(metricName as MetricName, props.stage));
    }

    const topics: ITopic[] = [];
    if (props.alarmEmail !== undefined) topics.push(this.emailTopic(props.alarmEmail));
    if (props.alarmTopicArn !== undefined) {
      topics.push(Topic.fromTopicArn(this, 'OperatorTopic', props.alarmTopicArn));
    }
    for (const topic of topics) {
      const action = new SnsAction(topic);
      for (const alarm of this.alarms) {
        alarm.addAlarmAction(action);
        alarm.addOkAction(action);
      }
    }
  }

  private add(id: string, description: string, metric: IMetric, threshold = 0): void {
    this.alarms.push(
      new Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }

  private emailTopic(email: string): Topic {
    // CloudWatch cannot publish to a topic under the AWS managed SNS key, so the topic gets a key of its own.
    const key = new Key(this, 'TopicKey', {
      description: 'Merchant Payments plugin: alarm topic',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.grant(new ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    const topic = new Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    // The topic policy that enforceSSL creates replaces the default one, which let the account's alarms publish.
    const { account, region, partition } = Stack.of(this);
    topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: {
          ArnLike: { 'aws:SourceArn': `arn:${partition}:cloudwatch:${region}:${account}:alarm:*` },
          StringEquals: { 'aws:SourceAccount': account },
        },
      }),
    );
    topic.addSubscription(new EmailSubscription(email));
    return topic;
  }
}

/** A count the functions emit (observability/metrics.ts), this stage's only, summed per period. */
export function customMetric(name: MetricName, stage: Stage): Metric {
  return new Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: metricDimensions(stage),
    statistic: 'Sum',
    period: PERIOD,
  });
}

/**
 * A count per store, one line each, for the dashboard: the metric's `Store` dimension (observability/metrics.ts). Its
 * alarm watches the stage's total instead, which every store's counts add to, so that it fires for any store.
 */
export function perStoreMetric(name: MetricName, stage: Stage, label: string): MathExpression {
  const { Service, Stage: stageName } = metricDimensions(stage);
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},Service,Stage,Store} MetricName="${name}" Service="${Service}" Stage="${stageName}"', 'Sum', ${PERIOD.toSeconds()})`,
    usingMetrics: {},
    label,
    period: PERIOD,
  });
}

/**
 * Throttled requests summed over every DynamoDB operation some function of lib/routes.ts calls. Each term is filled
 * with 0 where it has no data, so that one operation's throttles are not lost for want of the others'.
 */
function throttledRequests(table: TableV2): MathExpression {
  const actions = [...routes, ...jobs].flatMap(({ data }) => [
    ...data.table,
    ...('queriedIndexes' in data ? ['Query' as const] : []),
  ]);
  const metrics = Object.fromEntries(
    [...new Set(actions)].map((action) => [
      action.toLowerCase(),
      table.metricThrottledRequestsForOperation(action, { period: PERIOD }),
    ]),
  );
  return filledSum('Throttled DynamoDB requests', metrics);
}

/** The sum of these metrics, each 0 where it has no data, so that one metric's quiet hides none of the others. */
export function filledSum(label: string, metrics: Record<string, IMetric>): MathExpression {
  return new MathExpression({
    expression: Object.keys(metrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics: metrics,
    label,
    period: PERIOD,
  });
}
