import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { HttpHandler } from '../local/gateway';
import { startLocalStack, type LocalStack } from '../local/stack';

/** DynamoDB commands a client has sent, by command name (e.g. `PutItemCommand`). */
export type CommandCounts = Map<string, number>;

/** Counts each command as the client sends it; the server's own count (stack.dynamo.calls) includes retries. */
export function countCommands(client: DynamoDBClient): CommandCounts {
  const counts: CommandCounts = new Map();
  client.middlewareStack.add(
    (next, context) => (args) => {
      const name = context.commandName ?? 'unknown';
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCommandCounter' },
  );
  return counts;
}

const WRITES = ['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand'];
const READS = ['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand'];
const sum = (counts: CommandCounts, names: string[]) =>
  names.reduce((total, name) => total + (counts.get(name) ?? 0), 0);
export const writes = (counts: CommandCounts) => sum(counts, WRITES);
export const reads = (counts: CommandCounts) => sum(counts, READS);

/** The plugin running in this process: the local stack, and the two handler modules it serves, loaded once. */
export interface PluginUnderTest {
  stack: LocalStack;
  checkout: HttpHandler;
  getInvoice: HttpHandler;
  /** Commands sent by the handlers' shared DynamoDB client (runtime/table.ts). */
  commands: CommandCounts;
  /** The sandbox's counters: /v2 requests, and connections that carried one. */
  upstream(): Promise<{ requests: number; connections: number }>;
}

export async function startPlugin(): Promise<PluginUnderTest> {
  const stack = await startLocalStack({ schedule: false });
  // Loaded only now: handler modules read the environment the stack has just set.
  const [{ handler: checkout }, { handler: getInvoice }, { table }] = await Promise.all([
    import('../functions/checkout'),
    import('../functions/get-invoice'),
    import('../runtime/table'),
  ]);
  const sandboxUrl = stack.sandbox!.url;
  return {
    stack,
    checkout: checkout as HttpHandler,
    getInvoice: getInvoice as HttpHandler,
    commands: countCommands(table.client),
    upstream: async () => {
      const response = await fetch(`${sandboxUrl}/_sandbox/stats`);
      const stats = (await response.json()) as { requests: number; api_connections: number };
      return { requests: stats.requests, connections: stats.api_connections };
    },
  };
}
