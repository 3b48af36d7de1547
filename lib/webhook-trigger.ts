import { Duration, Validations } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { FilterCriteria, FilterRule, StartingPosition, type Function } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption, type IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DELIVERIES_DUE_INDEX, TABLE_SCHEMA } from '../store/schema';
import { SCOPE_MARK } from '../store/store-scope';

export interface WebhookTriggerProps {
  table: TableV2;
  dispatcher: Function;
  /** Where a stream batch goes that failed all its retries: the jobs' dead-letter queue, which already alarms. */
  deadLetterQueue: IQueue;
}

/** A wake not taken by then is dropped: the schedule's runs (every minute by default) have done its work. */
const WAKE_RETENTION = Duration.hours(1);

/**
 * Wakes the webhook dispatcher through the table's stream when a write leaves events waiting, and through a queue
 * of delayed messages when a retry comes due (webhooks/wake.ts). Neither carries work, so a lost wake loses nothing
 * (docs/webhooks.md, "AWS trigger" and "Retries in seconds").
 */
export class WebhookTrigger extends Construct {
  readonly wakeQueue: Queue;

  constructor(scope: Construct, id: string, props: WebhookTriggerProps) {
    super(scope, id);
    const { dispatcher, deadLetterQueue } = props;
    const eventsWaitingIn = (prefix: string, sortKeys?: string[]) =>
      FilterCriteria.filter({
        dynamodb: {
          Keys: {
            [TABLE_SCHEMA.partitionKey]: { S: FilterRule.beginsWith(prefix) },
            ...(sortKeys && { [TABLE_SCHEMA.sortKey]: { S: FilterRule.or(...sortKeys) } }),
          },
          NewImage: { [DELIVERIES_DUE_INDEX.partitionKey]: { S: FilterRule.exists() } },
        },
      });
    dispatcher.addEventSource(
      new DynamoEventSource(props.table as never, {
        startingPosition: StartingPosition.LATEST,
        // One batch per shard at a time: no two stream runs hold a record's outbox at once (domain/webhook-dispatcher.ts).
        parallelizationFactor: 1,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(0),
        retryAttempts: 2,
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(deadLetterQueue),
        // Another store's records: their keys start with its scope (store/store-scope.ts), as its deliveries' do; the
        // sort key tells them apart.
        filters: [
          eventsWaitingIn('INVOICE#'),
          eventsWaitingIn('REFUND#'),
          eventsWaitingIn(SCOPE_MARK, ['INVOICE', 'REFUND']),
        ],
      }),
    );

    const wakeQueue = (this.wakeQueue = new Queue(this, 'WakeQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS's advice for a queue feeding a function: six times its timeout, so a throttled batch is not redriven.
      visibilityTimeout: Duration.seconds(6 * (dispatcher.timeout ?? Duration.seconds(3)).toSeconds()),
      retentionPeriod: WAKE_RETENTION,
    }));
    Validations.of(wakeQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'A wake carries no work, only a time, and expires within the hour. The dispatcher shares its reserved slots with the stream and the schedule, so a wake is often throttled, which counts as a receive: a dead-letter queue would raise false alarms. A failing dispatcher is alarmed by its errors alarm.',
    });
    // At most as many at once as the dispatcher may run (it also runs from the stream and the schedule).
    dispatcher.addEventSource(new SqsEventSource(wakeQueue, { batchSize: 10, maxConcurrency: 2 }));
    // Not grantSendMessages: it adds GetQueueAttributes and GetQueueUrl, which the dispatcher does not call.
    dispatcher.addToRolePolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [wakeQueue.queueArn] }),
    );
    dispatcher.addEnvironment('WEBHOOK_WAKE_QUEUE_URL', wakeQueue.queueUrl);
  }
}
