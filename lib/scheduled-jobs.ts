import { type CfnElement, Duration, Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IDestination, IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  ContextAttribute,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { ScheduledJobName } from './routes';

/** A run that is this late is skipped: the next one does the same work. */
const MAX_EVENT_AGE = Duration.minutes(15);

export interface ScheduledJob {
  handler: IFunction;
  /** An EventBridge Scheduler expression, e.g. `rate(5 minutes)`. */
  rate: string;
}

export interface ScheduledJobsProps {
  jobs: Record<ScheduledJobName, ScheduledJob>;
}

/**
 * EventBridge Scheduler runs each job. Runs that fail go to one dead-letter queue, whether the Scheduler could not
 * deliver them or the function failed after its asynchronous retries.
 */
export class ScheduledJobs extends Construct {
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: ScheduledJobsProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the dead-letter queue of the scheduled jobs.',
    });
    for (const [name, job] of Object.entries(props.jobs) as [ScheduledJobName, ScheduledJob][]) {
      this.schedule(name, job);
    }
  }

  private schedule(name: ScheduledJobName, { handler, rate }: ScheduledJob): void {
    // Not SqsDestination: it would also grant GetQueueAttributes and GetQueueUrl, which Lambda does not use.
    const deadLetters: IDestination = { bind: () => ({ destination: this.deadLetterQueue.queueArn }) };
    handler.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: MAX_EVENT_AGE,
      onFailure: deadLetters,
    });
    handler.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn] }),
    );
    const role = new Role(this, `${name}-scheduler-role`, {
      // Only schedules of this account may use the role (confused deputy).
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    const functionId = Stack.of(this).getLogicalId(handler.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
      reason:
        'LambdaInvoke grants invoke on the function and on its versions and aliases (<arn>:*); one function.',
    });
    new Schedule(this, name, {
      description: `Merchant Payments plugin: ${name}`,
      schedule: ScheduleExpression.expression(rate),
      target: new LambdaInvoke(handler, {
        // The scheduled time names the run, so a job can tell a retried run from the next one.
        input: ScheduleTargetInput.fromObject({ job: name, scheduledTime: ContextAttribute.scheduledTime }),
        role,
        deadLetterQueue: this.deadLetterQueue,
        retryAttempts: 3,
        maxEventAge: MAX_EVENT_AGE,
      }),
    });
  }
}
