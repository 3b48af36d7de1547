import type { BaselineIo } from './baseline-io';
import { checkoutByHandler, idSequence, pollByHandler } from './calls';
import { atMost, exactly, figure, type Figure, type Target } from './figures';
import { reads, writes, type CommandCounts, type PluginUnderTest } from './plugin';

const LABELS = {
  upstreamCalls: 'upstream calls',
  upstreamConnections: 'new connections to the service (sandbox count)',
  dynamoCalls: 'DynamoDB calls (server count)',
  dynamoWrites: 'DynamoDB writes',
  dynamoReads: 'DynamoDB reads',
  secretsCalls: 'Secrets Manager calls',
};

type Counts = Record<keyof typeof LABELS, number>;

/** Per 1000 sequential warm invocations of `call`. */
async function countDuring(
  plugin: PluginUnderTest,
  commands: CommandCounts,
  invocations: number,
  call: () => Promise<unknown>,
): Promise<Counts> {
  const read = async (): Promise<Counts> => {
    const upstream = await plugin.upstream();
    return {
      upstreamCalls: upstream.requests,
      upstreamConnections: upstream.connections,
      dynamoCalls: plugin.stack.dynamo.calls(),
      dynamoWrites: writes(commands),
      dynamoReads: reads(commands),
      secretsCalls: plugin.stack.secrets.calls(),
    };
  };
  const before = await read();
  for (let i = 0; i < invocations; i++) await call();
  const after = await read();
  const keys = Object.keys(LABELS) as Array<keyof Counts>;
  return Object.fromEntries(
    keys.map((key) => [key, ((after[key] - before[key]) * 1000) / invocations]),
  ) as Counts;
}

function ioFigures(id: string, label: string, io: Counts, targets: Partial<Record<keyof Counts, Target>>) {
  return (Object.keys(LABELS) as Array<keyof Counts>).map((key) =>
    figure({
      id: `io.${id}.${key}`,
      label: `${label} per 1000 warm invocations: ${LABELS[key]}`,
      value: io[key],
      unit: '',
      target: targets[key],
    }),
  );
}

/** ≤ 1 new upstream connection per 100 sequential warm invocations. */
const CONNECTIONS = atMost(10);

/**
 * I/O of each handler per 1000 sequential warm invocations, counted at the servers (sandbox, dynalite, Secrets
 * Manager endpoint) and, by command, on the handlers' DynamoDB client. The by-hand checkout is counted the same
 * way, to show it does the writes the design does.
 */
export async function ioCounts(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  invocations: number,
  pollId: string,
): Promise<Figure[]> {
  const handlerId = idSequence('bench-io');
  const baselineId = idSequence('bench-io-baseline');
  const checkout = await countDuring(plugin, plugin.commands, invocations, () =>
    checkoutByHandler(plugin, handlerId())(),
  );
  const poll = await countDuring(plugin, plugin.commands, invocations, () => pollByHandler(plugin, pollId)());
  const byHand = await countDuring(plugin, baseline.commands, invocations, () =>
    baseline.checkout(baselineId()),
  );
  return [
    ...ioFigures('checkout', 'checkout', checkout, {
      upstreamCalls: exactly(1000),
      dynamoWrites: atMost(2000),
      secretsCalls: exactly(0),
      upstreamConnections: CONNECTIONS,
    }),
    ...ioFigures('poll', 'poll', poll, {
      upstreamCalls: exactly(0),
      dynamoReads: exactly(1000),
      secretsCalls: exactly(0),
      upstreamConnections: CONNECTIONS,
    }),
    figure({
      id: 'io.baseline.checkout.dynamoWrites',
      label: 'by-hand checkout per 1000: DynamoDB writes',
      value: byHand.dynamoWrites,
      unit: '',
      detail: 'conditional PutItem claim + conditional UpdateItem',
    }),
  ];
}
