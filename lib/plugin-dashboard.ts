import { Aws, Duration, Fn, Stack } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AlarmStatusWidget,
  Dashboard,
  GraphWidget,
  LogQueryWidget,
  type IAlarm,
  type IMetric,
  type IWidget,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { customMetric, filledSum, PERIOD, perStoreMetric } from './plugin-alarms';
import type { FunctionName } from './routes';
import type { Stage } from './settings';

export interface PluginDashboardProps {
  stage: Stage;
  functions: Record<FunctionName, LambdaFunction>;
  api: IHttpApi;
  deadLetterQueue: IQueue;
  /** With webhooks on: the queue of delayed wakes the dispatcher sends itself. */
  webhookWakeQueue?: IQueue;
  alarms: IAlarm[];
}

const WIDTH = 12;
const HEIGHT = 6;

/**
 * One page for the person on call: the alarms, the traffic that pays (checkouts, polls, callbacks), errors, p99
 * latency, the webhooks' backlog and failures, and what the reconcile job did. Plain aws-cdk-lib widgets.
 */
export class PluginDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: PluginDashboardProps) {
    super(scope, id);
    const { functions: fns, stage } = props;
    const invocations = (name: FunctionName, label: string) =>
      fns[name].metricInvocations({ period: PERIOD, statistic: 'Sum', label });
    const p99 = (name: FunctionName) =>
      fns[name].metricDuration({ period: PERIOD, statistic: 'p99', label: name });

    const widgets: IWidget[] = [
      new AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: 2 * WIDTH, height: 4 }),
      graph('Checkouts, polls and callbacks (per 5 minutes)', [
        invocations('checkout', 'checkouts'),
        invocations('get-invoice', 'polls by the storefront'),
        invocations('public-invoice', "polls by the customer's page"),
        invocations('callbacks', 'callbacks from the payment service'),
      ]),
      graph('Errors (per 5 minutes)', [
        props.api.metricServerError({ period: PERIOD, statistic: 'Sum', label: 'API 5xx' }),
        filledSum(
          'function errors',
          Object.fromEntries(
            Object.values(fns).map((fn, i) => [`e${i}`, fn.metricErrors({ period: PERIOD })]),
          ),
        ),
        customMetric('UpstreamServerErrors', stage).with({ label: 'payment service 5xx or no answer' }),
        customMetric('CallbackSignatureFailures', stage).with({ label: 'callbacks with a bad signature' }),
        customMetric('InvoiceLookupNotFound', stage).with({
          label: 'invoices the payment service did not find',
        }),
      ]),
      graph('p99 latency (ms)', [
        props.api.metricLatency({ period: PERIOD, statistic: 'p99', label: 'API' }),
        p99('checkout'),
        p99('get-invoice'),
        p99('callbacks'),
      ]),
      graph('Webhooks: backlog and failures', [
        customMetric('WebhookDeliveryFailures', stage).with({ label: 'given up after 3 days' }),
        perStoreMetric('WebhookDeliveryFailures', stage, "given up for store ${PROP('Dim.Store')}"),
        ...(props.webhookWakeQueue
          ? [
              props.webhookWakeQueue.metricApproximateNumberOfMessagesVisible({
                period: PERIOD,
                statistic: 'Maximum',
                label: 'retries waiting for their time',
              }),
              fns['webhook-dispatcher'].metric('IteratorAge', {
                period: PERIOD,
                statistic: 'Maximum',
                label: 'oldest record change not yet read (ms)',
              }),
            ]
          : []),
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: PERIOD,
          statistic: 'Maximum',
          label: 'failed job runs and stream batches (dead-letter queue)',
        }),
      ]),
      graph('Stores over their request limit (refused, per 5 minutes)', [
        customMetric('StoreRateLimited', stage).with({ label: 'requests refused, all stores' }),
        perStoreMetric('StoreRateLimited', stage, "refused for store ${PROP('Dim.Store')}"),
      ]),
      logQuery('Webhook deliveries (per 5 minutes)', fns['webhook-dispatcher'], [
        "filter message = 'webhook dispatch done'",
        'stats sum(delivered) as delivered, sum(retrying) as retrying, sum(failed) as failed by bin(5m)',
      ]),
      logQuery('The reconcile job: records checked and given up (per 5 minutes)', fns.reconcile, [
        "filter message = 'reconciliation sweep done'",
        'stats sum(invoicesChecked) as invoices, sum(refundsChecked) as refunds, ' +
          'sum(invoicesAbandoned) as abandoned, sum(failures) as failures, sum(deferred) as deferred by bin(5m)',
      ]),
    ];
    this.dashboard = new Dashboard(this, 'Dashboard', {
      // Dashboards are named per account: the region keeps two regions' stages apart.
      dashboardName: Fn.join('-', [Stack.of(this).stackName, Aws.REGION]),
      defaultInterval: Duration.hours(24),
      widgets: rows(widgets),
    });
  }
}

function graph(title: string, left: IMetric[]): GraphWidget {
  return new GraphWidget({ title, left, width: WIDTH, height: HEIGHT });
}

function logQuery(title: string, fn: LambdaFunction, lines: string[]): LogQueryWidget {
  return new LogQueryWidget({
    title,
    logGroupNames: [fn.logGroup.logGroupName],
    queryLines: lines,
    width: WIDTH,
    height: HEIGHT,
  });
}

/** Widgets two to a row, the full-width ones alone. */
function rows(widgets: IWidget[]): IWidget[][] {
  const result: IWidget[][] = [];
  for (const widget of widgets) {
    const last = result.at(-1);
    const room = last ? 2 * WIDTH - last.reduce((sum, w) => sum + w.width, 0) : 0;
    if (last && room >= widget.width) last.push(widget);
    else result.push([widget]);
  }
  return result;
}
