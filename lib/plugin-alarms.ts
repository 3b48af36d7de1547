import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_DIMENSION, type MetricName } from '../observability/metrics';
import type { FunctionName } from './routes';

const PERIOD = Duration.minutes(5);

/** The counts the functions emit as Embedded Metric Format log lines (observability/metrics.ts). */
const CUSTOM_METRICS: Record<MetricName, string> = {
  UpstreamServerErrors: 'The processing service answered 5xx or did not answer',
  CallbackSignatureFailures: 'A callback arrived with a missing or wrong signature',
};

export interface PluginAlarmsProps {
  functions: Record<FunctionName, IFunction>;
  deadLetterQueue: IQueue;
  /** When set, an encrypted SNS topic e-mails every alarm here. */
  alarmEmail?: string;
}

/** One alarm per thing an operator must look at; each fires on the first occurrence in five minutes. */
export class PluginAlarms extends Construct {
  private readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: PluginAlarmsProps) {
    super(scope, id);
    for (const [name, fn] of Object.entries(props.functions)) {
      this.add(`${name}-errors`, `${name}: the function failed`, fn.metricErrors({ period: PERIOD }));
      this.add(
        `${name}-throttles`,
        `${name}: invocations were throttled`,
        fn.metricThrottles({ period: PERIOD }),
      );
    }
    this.add(
      'dead-letters',
      'A scheduled job run failed and is in the dead-letter queue',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: PERIOD,
        statistic: 'Maximum',
      }),
    );
    for (const [metricName, description] of Object.entries(CUSTOM_METRICS)) {
      const metric = new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: SERVICE_DIMENSION,
        statistic: 'Sum',
        period: PERIOD,
      });
      this.add(metricName, description, metric);
    }

    if (props.alarmEmail !== undefined) {
      const action = new SnsAction(this.emailTopic(props.alarmEmail));
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }

  private add(id: string, description: string, metric: IMetric): void {
    this.alarms.push(
      new Alarm(this, id, {
        alarmDescription: description,
        metric,
        threshold: 0,
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
    topic.addSubscription(new EmailSubscription(email));
    return topic;
  }
}
