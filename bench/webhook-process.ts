// One webhook per order, measured in a process of its own: the handler modules read WEBHOOK_EVENTS and WEBHOOK_URL
// when they load, and the bench's own process runs them with webhooks off. Forked by bench/webhooks.ts, with its
// own backends; the shop's endpoint (a receiver answering 200) runs in the bench's process.
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { DispatchReport } from '../domain/webhook-deliveries';
import { routes } from '../lib/routes';
import { startGateway } from '../local/gateway';
import { SECRET_ENV, WEBHOOK_SECRET_FIELDS } from '../secrets/fields';
import { DELIVERIES_DUE_INDEX, TABLE_SCHEMA } from '../store/schema';
import { CapacityMeter, type Units } from './capacity';
import { checkoutByHandler, idSequence, pollByHandler } from './calls';
import { sandboxControl, until } from './lifecycle';
import { reads, startPlugin, writes, type PluginUnderTest } from './plugin';
import { withOutputDiscarded } from './quiet';

export interface WebhookRequest {
  /** Orders paid in each of two passes: one metered for capacity units, one timed. */
  orders: number;
  endpointUrl: string;
  secret: string;
}

/** Sums over a pass, per order unless said. */
export interface WebhookPass {
  checkouts: number;
  callbacks: number;
  /** Per checkout and per callback, webhooks on (metered pass). */
  checkout: Units;
  callback: Units;
  /** Every dispatcher run: the ones that delivered and the ones a write woke that found nothing due. */
  dispatcher: Units & { runs: number; delivered: number; dynamoCalls: number; ms: number };
  empty: Units & { runs: number; dynamoCalls: number; ms: number };
}

export interface WebhookMeasured {
  orders: number;
  metered: WebhookPass;
  timed: WebhookPass;
  /** A paid order's record once its events are delivered (the outbox drained), in bytes. */
  drainedRecordBytes: number;
  /** What a final run found left to deliver: nothing, when every event went out. */
  leftOver: DispatchReport;
}

const NO_UNITS: Units = { readUnits: 0, writeUnits: 0, indexWriteUnits: 0, largestItem: 0 };
const RECORD_KEY = /^(INVOICE|REFUND)#/;
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);

/**
 * Writes of invoice and refund records that landed and left events waiting: in AWS each is a stream record that
 * wakes the dispatcher (lib/webhook-trigger.ts filters on these keys and on the new image's due-index key), one run
 * each at a shop's pace (no batching window). The item is read after the write with a client of its own.
 */
function recordWrites(client: DynamoDBClient, tableName: string): { woken: string[]; close: () => void } {
  const woken: string[] = [];
  const reader = new DynamoDBClient({});
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const output = await next(args);
      const input = args.input as {
        Key?: Record<string, { S: string }>;
        Item?: Record<string, { S: string }>;
      };
      const item = input.Key ?? input.Item;
      const key = item?.[TABLE_SCHEMA.partitionKey]?.S ?? '';
      if (!WRITES.has(context.commandName ?? '') || !RECORD_KEY.test(key)) return output;
      const Key = {
        [TABLE_SCHEMA.partitionKey]: item![TABLE_SCHEMA.partitionKey],
        [TABLE_SCHEMA.sortKey]: item![TABLE_SCHEMA.sortKey],
      };
      const { Item: written } = await reader.send(
        new GetItemCommand({ TableName: tableName, Key, ConsistentRead: true }),
      );
      if (written?.[DELIVERIES_DUE_INDEX.partitionKey]) woken.push(key);
      return output;
    },
    { step: 'initialize', name: 'benchStreamWakes' },
  );
  return { woken, close: () => reader.destroy() };
}

function add(total: Units, units: Units): void {
  total.readUnits += units.readUnits;
  total.writeUnits += units.writeUnits;
  total.indexWriteUnits += units.indexWriteUnits;
  total.largestItem = Math.max(total.largestItem, units.largestItem);
}

async function measure(plugin: PluginUnderTest, orders: number): Promise<WebhookMeasured> {
  const meter = new CapacityMeter(plugin.dynamo);
  const streamWakes = recordWrites(plugin.dynamo, plugin.backends.tableName);
  const dynamoCalls = () => reads(plugin.commands) + writes(plugin.commands);
  let pass: WebhookPass;
  let metered = false;
  /** Runs `work` metered or not, as the pass is. */
  const run = async <T>(work: () => Promise<T>): Promise<{ value: T; units: Units }> => {
    let value: T;
    const units = metered
      ? await meter.during(async () => {
          value = await work();
        })
      : ((value = await work()), NO_UNITS);
    return { value: value!, units };
  };
  /** A handler's call, then a dispatcher run for each record write it made that the stream lets through. */
  const withWakes = async <T>(kind: 'checkout' | 'callback', call: () => Promise<T>): Promise<T> => {
    const { value, units } = await run(call);
    add(pass[kind], units);
    pass[kind === 'checkout' ? 'checkouts' : 'callbacks'] += 1;
    for (let key = streamWakes.woken.shift(); key !== undefined; key = streamWakes.woken.shift()) {
      const [calls, begin] = [dynamoCalls(), performance.now()];
      const woken = key;
      const { value: report, units: runUnits } = await run(
        () => plugin.webhookDispatcherWoken([woken]) as Promise<DispatchReport>,
      );
      const ms = performance.now() - begin;
      const found = report.moved + report.delivered + report.retrying + report.failed > 0;
      for (const total of found ? [pass.dispatcher] : [pass.dispatcher, pass.empty]) {
        add(total, runUnits);
        total.runs += 1;
        total.dynamoCalls += dynamoCalls() - calls;
        total.ms += ms;
      }
      pass.dispatcher.delivered += report.delivered;
    }
    return value;
  };
  // Callbacks one at a time, each with the runs it wakes, so that the meter sees one call at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };
  const gateway = await startGateway([
    {
      route: routes.find((route) => route.name === 'callbacks')!,
      handler: (event, context) =>
        serially(() => withWakes('callback', () => plugin.callbacks(event, context))),
    },
  ]);
  const control = sandboxControl(plugin);
  await control('/callbacks', { url: `${gateway.url}/callbacks` });

  const nextId = idSequence('bench-webhook');
  let lastId = '';
  const onePass = async (meterIt: boolean): Promise<WebhookPass> => {
    metered = meterIt;
    pass = {
      checkouts: 0,
      callbacks: 0,
      checkout: { ...NO_UNITS },
      callback: { ...NO_UNITS },
      dispatcher: { ...NO_UNITS, runs: 0, delivered: 0, dynamoCalls: 0, ms: 0 },
      empty: { ...NO_UNITS, runs: 0, dynamoCalls: 0, ms: 0 },
    };
    for (let i = 0; i < orders; i++) {
      const foreignId = (lastId = nextId());
      await serially(() => withWakes('checkout', checkoutByHandler(plugin, foreignId)));
      const handled = pass.callbacks;
      await control(`/invoices/${foreignId}/pay`, { kind: 'full' });
      // Paid in full: one callback at `processing`, one at `confirmed`.
      await until(() => pass.callbacks >= handled + 2);
      await queue;
    }
    return pass;
  };
  try {
    const meteredPass = await onePass(true);
    const timedPass = await onePass(false);
    const drained = await meter.during(() => pollByHandler(plugin, lastId)());
    return {
      orders,
      metered: meteredPass,
      timed: timedPass,
      drainedRecordBytes: drained.largestItem,
      leftOver: (await plugin.webhookDispatcher()) as DispatchReport,
    };
  } finally {
    meter.close();
    streamWakes.close();
    await gateway.close();
  }
}

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2]) as WebhookRequest;
  const plugin = await startPlugin({ WEBHOOK_EVENTS: 'on', WEBHOOK_URL: request.endpointUrl });
  try {
    await plugin.backends.putSecret(
      process.env[SECRET_ENV.webhookSecret]!,
      JSON.stringify({ [WEBHOOK_SECRET_FIELDS.current]: request.secret }),
    );
    process.send!(await withOutputDiscarded(() => measure(plugin, request.orders)));
  } finally {
    await plugin.backends.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
