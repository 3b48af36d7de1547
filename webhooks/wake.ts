import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DispatcherWake } from '../domain/ports';

/** SQS's longest message delay; a retry due later is the schedule's to run. */
const MAX_DELAY_SECONDS = 900;
/** SendMessageBatch's most entries. */
const BATCH = 10;

/**
 * Wakes the dispatcher through an SQS queue it consumes: one message per time, delayed until then. The message
 * carries no work (the table says what is due), so a lost or repeated one costs a run at most.
 */
export class SqsDispatcherWake implements DispatcherWake {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
    private readonly now: () => number,
    /** Told of a wake SQS did not take; the run goes on. */
    private readonly onLost: (error: unknown) => void,
  ) {}

  async at(times: readonly number[]): Promise<void> {
    const now = this.now();
    const entries = times
      .map((at) => ({ at, delay: Math.max(0, Math.ceil((at - now) / 1000)) }))
      .filter(({ delay }) => delay <= MAX_DELAY_SECONDS)
      .map(({ at, delay }, index) => ({
        Id: String(index),
        MessageBody: JSON.stringify({ wakeAt: new Date(at).toISOString() }),
        DelaySeconds: delay,
      }));
    for (let start = 0; start < entries.length; start += BATCH) {
      try {
        const batch = entries.slice(start, start + BATCH);
        const answer = await this.client.send(
          new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: batch }),
        );
        if (answer.Failed?.length)
          this.onLost(new Error(`SQS refused ${answer.Failed.length} wake messages`));
      } catch (error) {
        this.onLost(error);
      }
    }
  }
}

/** Where no queue is configured (`npm start`): the local stack's own interval runs the dispatcher. */
export const noWake: DispatcherWake = { at: async () => undefined };
