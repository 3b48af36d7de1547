import { Duration } from 'aws-cdk-lib';
import type { TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLE_SCHEMA } from '../store/schema';

export interface WebhookTriggerProps {
  table: TableV2;
  dispatcher: IFunction;
  /** Where a batch goes that failed all its retries: the jobs' dead-letter queue, which already alarms. */
  deadLetterQueue: IQueue;
}

/**
 * Wakes the webhook dispatcher when an invoice or a refund record changes, through the table's stream (keys only),
 * so that a new event goes out within about a second. The stream carries no work: the dispatcher reads what is
 * due from the `deliveries-due` index, so a lost or failed batch loses nothing, and the schedule's next run, or the
 * next change, picks it up. Its own writes (deliveries) are filtered out, so it does not wake itself.
 */
export class WebhookTrigger extends Construct {
  constructor(scope: Construct, id: string, props: WebhookTriggerProps) {
    super(scope, id);
    const keyPrefix = (prefix: string) =>
      FilterCriteria.filter({
        dynamodb: { Keys: { [TABLE_SCHEMA.partitionKey]: { S: FilterRule.beginsWith(prefix) } } },
      });
    props.dispatcher.addEventSource(
      new DynamoEventSource(props.table as never, {
        startingPosition: StartingPosition.LATEST,
        batchSize: 100,
        maxBatchingWindow: Duration.seconds(0),
        retryAttempts: 2,
        maxRecordAge: Duration.hours(1),
        onFailure: new SqsDlq(props.deadLetterQueue),
        filters: [keyPrefix('INVOICE#'), keyPrefix('REFUND#')],
      }),
    );
  }
}
