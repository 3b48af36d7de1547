import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import type { InvoiceStore } from '../domain/ports';
import { JOB_FUNCTION_TIMEOUT_SECONDS, type ScheduledJobName } from '../lib/routes';
import { lambdaContext } from '../local/lambda-context';
import type { HttpHandler } from '../local/gateway';
import { LEASE_PARTITION_PREFIX } from '../store/request-leases';
import { TABLE_SCHEMA } from '../store/schema';
import { startBackends, type Backends } from './backends';
import type { CpuMeter } from './timing';

/** DynamoDB commands a client has sent, by command name (e.g. `PutItemCommand`). */
export type CommandCounts = Map<string, number>;

/** The name a per-store limit's lease is counted under, apart from the route's own writes (store/request-leases.ts). */
export const LIMITER_LEASE = 'LimiterLease';

/** Counts each command as the client sends it; the server's own count (backends.counts) includes retries. */
export function countCommands(client: DynamoDBClient): CommandCounts {
  const counts: CommandCounts = new Map();
  client.middlewareStack.add(
    (next, context) => (args) => {
      const key = (args.input as { Key?: { [TABLE_SCHEMA.partitionKey]?: { S?: string } } }).Key;
      const lease = key?.[TABLE_SCHEMA.partitionKey]?.S?.startsWith(LEASE_PARTITION_PREFIX);
      const name = lease ? LIMITER_LEASE : (context.commandName ?? 'unknown');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCommandCounter' },
  );
  return counts;
}

/** This process's CPU and the backends', in µs, for timings that need to know whose cores a call took. */
export function cpuMeter(backends: Backends): CpuMeter {
  return async () => {
    const { cpuMs } = await backends.counts();
    const { user, system } = process.cpuUsage();
    return { process: user + system, backends: cpuMs * 1000 };
  };
}

const WRITES = ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand'];
const READS = ['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand'];
const sum = (counts: CommandCounts, names: string[]) =>
  names.reduce((total, name) => total + (counts.get(name) ?? 0), 0);
export const writes = (counts: CommandCounts) => sum(counts, WRITES);
export const reads = (counts: CommandCounts) => sum(counts, READS);
export const leases = (counts: CommandCounts) => counts.get(LIMITER_LEASE) ?? 0;

type JobHandler = () => Promise<unknown>;

/** A scheduled job run as the scheduler invokes it: its event, and a context with the job's timeout. */
const scheduled =
  (name: ScheduledJobName, handler: (event: unknown, context: Context) => Promise<unknown>): JobHandler =>
  () =>
    handler(
      { job: name, scheduledTime: new Date().toISOString() },
      lambdaContext(name, JOB_FUNCTION_TIMEOUT_SECONDS * 1000),
    );

/**
 * The handlers under measurement, loaded in this process, and the backends they call in another, as in AWS. The
 * by-hand baseline and the peer run in this process too, taking turns with the handlers.
 */
export interface PluginUnderTest {
  backends: Backends;
  checkout: HttpHandler;
  getInvoice: HttpHandler;
  callbacks: HttpHandler;
  reconcile: JobHandler;
  snapshotBalances: JobHandler;
  /** Does nothing unless WEBHOOK_URL is set (bench/webhooks.ts sets it in a process of its own). */
  webhookDispatcher: JobHandler;
  /** The dispatcher as the table's stream invokes it, for writes of these partition keys. */
  webhookDispatcherWoken: (keys: string[]) => Promise<unknown>;
  /** The store the handlers keep invoices in (runtime/stores.ts). */
  invoices: InvoiceStore;
  /** The handlers' shared DynamoDB client (runtime/table.ts). */
  dynamo: DynamoDBClient;
  /** Commands sent by that client. */
  commands: CommandCounts;
  /** The sandbox's counters: /v2 requests, and connections that carried one. */
  upstream(): Promise<{ requests: number; connections: number }>;
}

/** `env` is set over the local stack's environment (e.g. webhooks on), before the handlers read it. */
export async function startPlugin(env: Record<string, string> = {}): Promise<PluginUnderTest> {
  const backends = await startBackends();
  // Lambda names the function in its environment: the handlers then hold one invocation's context at a time
  // (observability/context.ts), as each deployed environment does.
  Object.assign(process.env, backends.env, { AWS_LAMBDA_FUNCTION_NAME: 'payments-plugin-bench' }, env);
  // Loaded only now: handler modules read the environment they were just given.
  const [
    checkout,
    getInvoice,
    callbacks,
    reconcile,
    snapshotBalances,
    webhookDispatcher,
    { table },
    { invoiceStore },
  ] = await Promise.all([
    import('../functions/checkout'),
    import('../functions/get-invoice'),
    import('../functions/callbacks'),
    import('../functions/reconcile'),
    import('../functions/snapshot-balances'),
    import('../functions/webhook-dispatcher'),
    import('../runtime/table'),
    import('../runtime/stores'),
  ]);
  return {
    backends,
    checkout: checkout.handler as HttpHandler,
    getInvoice: getInvoice.handler as HttpHandler,
    callbacks: callbacks.handler as HttpHandler,
    reconcile: scheduled('reconcile', reconcile.handler as never),
    snapshotBalances: scheduled('snapshot-balances', snapshotBalances.handler as never),
    webhookDispatcher: scheduled('webhook-dispatcher', webhookDispatcher.handler as never),
    webhookDispatcherWoken: (keys) =>
      (webhookDispatcher.handler as (event: unknown, context: Context) => Promise<unknown>)(
        {
          Records: keys.map((pk) => ({ eventSource: 'aws:dynamodb', dynamodb: { Keys: { pk: { S: pk } } } })),
        },
        lambdaContext('webhook-dispatcher', JOB_FUNCTION_TIMEOUT_SECONDS * 1000),
      ),
    invoices: invoiceStore,
    dynamo: table.client,
    commands: countCommands(table.client),
    upstream: async () => {
      const response = await fetch(`${backends.sandbox.url}/_sandbox/stats`);
      const stats = (await response.json()) as { requests: number; api_connections: number };
      return { requests: stats.requests, connections: stats.api_connections };
    },
  };
}
