import { fork } from 'node:child_process';
import * as path from 'node:path';
import { startWebhookReceiver } from '../local/webhook-receiver';
import { newWebhookSecret } from '../webhooks/signing';
import type { Units } from './capacity';
import { figure, type Figure } from './figures';
import type { WebhookMeasured, WebhookRequest } from './webhook-process';

/** What webhooks cost an order: for the cost table. */
export interface WebhookCosts {
  /** Events delivered per order. */
  events: number;
  /** Dispatcher runs per order, each woken by a write of the record that left events waiting. */
  runs: number;
  /** Of which found something to move or deliver. */
  deliveringRuns: number;
  /** The dispatcher's units, DynamoDB calls and time, per order. */
  dispatcher: { units: Units; dynamoCalls: number; ms: number };
  /** Per checkout and per callback with webhooks on: the outbox in the status writes, and the due index's keys. */
  checkout: Units;
  callback: Units;
}

/** What the same calls cost with webhooks off, measured in the bench's own process. */
export interface WebhooksOff {
  checkout: Units;
  callback: Units;
  recordBytes: number;
}

const per = (units: Units, count: number): Units => ({
  readUnits: units.readUnits / count,
  writeUnits: units.writeUnits / count,
  indexWriteUnits: units.indexWriteUnits / count,
  largestItem: units.largestItem,
});
const written = (units: Units) => units.writeUnits + units.indexWriteUnits;

/**
 * Orders paid with webhooks on, in a process of their own (bench/webhook-process.ts) that runs the dispatcher
 * whenever a record write would wake it in AWS, against a shop's endpoint in this process answering 200; twice,
 * once metered for capacity units and once timed.
 */
export async function webhookCosts(
  orders: number,
  off: WebhooksOff,
): Promise<{ figures: Figure[]; costs: WebhookCosts }> {
  const secret = newWebhookSecret();
  const endpoint = await startWebhookReceiver(secret);
  let measured: WebhookMeasured;
  try {
    measured = await inProcessOfItsOwn({ orders, endpointUrl: endpoint.url, secret });
  } finally {
    await endpoint.close();
  }
  const { metered, timed, leftOver } = measured;
  const delivered = metered.dispatcher.delivered + timed.dispatcher.delivered;
  const undelivered = leftOver.moved + leftOver.delivered + leftOver.retrying + leftOver.failed;
  if (endpoint.received.length !== delivered || undelivered > 0 || delivered === 0) {
    throw new Error(
      `Webhooks: ${delivered} delivered, ${endpoint.received.length} received, ${undelivered} left`,
    );
  }
  const costs: WebhookCosts = {
    events: metered.dispatcher.delivered / orders,
    runs: metered.dispatcher.runs / orders,
    deliveringRuns: (metered.dispatcher.runs - metered.empty.runs) / orders,
    dispatcher: {
      units: per(metered.dispatcher, orders),
      dynamoCalls: metered.dispatcher.dynamoCalls / orders,
      ms: timed.dispatcher.ms / orders,
    },
    checkout: per(metered.checkout, metered.checkouts),
    callback: per(metered.callback, metered.callbacks),
  };
  const perEvent = (value: number) => value / costs.events;
  const onOff = (on: Units, offUnits: Units) =>
    `${written(on).toFixed(2)} on (largest item ${on.largestItem} bytes), ${written(offUnits).toFixed(2)} off`;
  return {
    costs,
    figures: [
      figure({
        id: 'webhooks.perOrder',
        label: 'webhooks delivered per paid order (verified by the endpoint, each once)',
        value: costs.events,
        unit: '',
        detail: `${endpoint.received.length} received for ${2 * orders} orders (two passes), none left due`,
      }),
      figure({
        id: 'webhooks.dispatcherRuns',
        label:
          'webhook dispatcher runs per order, one per record write that left events waiting (stream wake)',
        value: costs.runs,
        unit: '',
        detail: `${costs.deliveringRuns.toFixed(2)} found work`,
      }),
      figure({
        id: 'webhooks.perEvent.units',
        label: 'webhook dispatcher per event delivered: read units, write units (incl. index)',
        value: Number(perEvent(written(costs.dispatcher.units)).toFixed(2)),
        unit: 'WRU',
        detail: `${perEvent(costs.dispatcher.units.readUnits).toFixed(2)} RRU, ${perEvent(costs.dispatcher.dynamoCalls).toFixed(1)} DynamoDB calls, ${perEvent(costs.dispatcher.ms).toFixed(1)} ms here`,
      }),
      figure({
        id: 'webhooks.checkout.writeUnits',
        label: 'checkout write units (incl. index), webhooks on: the outbox and its due-index key',
        value: written(costs.checkout),
        unit: 'WRU',
        detail: onOff(costs.checkout, off.checkout),
      }),
      figure({
        id: 'webhooks.callback.writeUnits',
        label: 'callback write units (incl. index), webhooks on: the outbox and its due-index key',
        value: written(costs.callback),
        unit: 'WRU',
        detail: onOff(costs.callback, off.callback),
      }),
      figure({
        id: 'webhooks.record.bytes',
        label: 'invoice item, typical order after payment, webhooks on and the outbox drained: size',
        value: measured.drainedRecordBytes,
        unit: 'bytes',
        detail: `${off.recordBytes} bytes off; ${Math.max(costs.checkout.largestItem, costs.callback.largestItem)} while an event waits in it`,
      }),
    ],
  };
}

/** Forks bench/webhook-process.ts and answers what it measured. */
async function inProcessOfItsOwn(request: WebhookRequest): Promise<WebhookMeasured> {
  const child = fork(path.join(__dirname, 'webhook-process.ts'), [JSON.stringify(request)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise<WebhookMeasured>((resolve, reject) => {
    child.once('message', (message) => resolve(message as WebhookMeasured));
    child.once('exit', (code) =>
      reject(new Error(`The webhook process exited (${code}) without its figures`)),
    );
  });
}
