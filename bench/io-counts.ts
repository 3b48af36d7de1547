import type { BaselineIo } from './baseline-io';
import { checkoutByHandler, idSequence, pollByHandler } from './calls';
import { atMost, exactly, figure, type Figure, type Target } from './figures';
import { checkoutByPeer, type Peer } from './peer';
import { reads, writes, type CommandCounts, type PluginUnderTest } from './plugin';

const LABELS = {
  upstreamCalls: 'upstream calls',
  upstreamConnections: 'new connections to the service (sandbox count)',
  dynamoCalls: 'DynamoDB calls (server count)',
  dynamoWrites: 'DynamoDB writes',
  dynamoReads: 'DynamoDB reads',
  secretsCalls: 'Secrets Manager calls',
  cpuMicros: 'CPU in this process, µs per call',
  backendsCpuMicros: 'CPU in the backends process, µs per call',
};

export type Counts = Record<keyof typeof LABELS, number>;

/** Per 1000 sequential warm invocations of `call`; CPU per invocation. */
async function countDuring(
  plugin: PluginUnderTest,
  commands: CommandCounts,
  invocations: number,
  call: () => Promise<unknown>,
): Promise<Counts> {
  const read = async (): Promise<Counts> => {
    const upstream = await plugin.upstream();
    const served = await plugin.backends.counts();
    const cpu = process.cpuUsage();
    return {
      upstreamCalls: upstream.requests,
      upstreamConnections: upstream.connections,
      dynamoCalls: served.dynamoCalls,
      dynamoWrites: writes(commands),
      dynamoReads: reads(commands),
      secretsCalls: served.secretsCalls,
      cpuMicros: (cpu.user + cpu.system) / 1000,
      backendsCpuMicros: served.cpuMs,
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
      label: key.endsWith('Micros')
        ? `${label}, warm: ${LABELS[key]}`
        : `${label} per 1000 warm invocations: ${LABELS[key]}`,
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
 * Manager endpoint) and, by command, on the handlers' DynamoDB client; the by-hand checkout and the peer's are
 * counted the same way. CPU is per invocation, in this process and in the backends'.
 */
export async function ioCounts(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  peer: Peer,
  invocations: number,
  pollId: string,
): Promise<{ figures: Figure[]; counts: Record<'checkout' | 'byHand' | 'poll' | 'peer', Counts> }> {
  const handlerId = idSequence('bench-io');
  const baselineId = idSequence('bench-io-baseline');
  const peerId = idSequence('bench-io-peer');
  const checkout = await countDuring(plugin, plugin.commands, invocations, () =>
    checkoutByHandler(plugin, handlerId())(),
  );
  const poll = await countDuring(plugin, plugin.commands, invocations, () => pollByHandler(plugin, pollId)());
  const byHand = await countDuring(plugin, baseline.commands, invocations, () =>
    baseline.checkout(baselineId()),
  );
  const peerCounts = await countDuring(plugin, peer.commands, invocations, () =>
    checkoutByPeer(plugin, peer, peerId())(),
  );
  const noMoreThanPeer = (key: 'dynamoCalls' | 'upstreamCalls' | 'secretsCalls', label: string) =>
    figure({
      id: `peer.io.${key}`,
      label: `peer comparison, ${label} per 1000 checkouts: ours - peer`,
      value: checkout[key] - peerCounts[key],
      unit: '',
      detail: `${checkout[key]} against ${peerCounts[key]}`,
      target: atMost(0),
    });
  return {
    counts: { checkout, byHand, poll, peer: peerCounts },
    figures: [
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
      ...ioFigures('baseline.checkout', 'by-hand checkout', byHand, {}),
      ...ioFigures('peer.checkout', 'peer checkout', peerCounts, {}),
      noMoreThanPeer('dynamoCalls', 'DynamoDB calls'),
      noMoreThanPeer('upstreamCalls', 'calls to the service'),
      noMoreThanPeer('secretsCalls', 'Secrets Manager calls'),
    ],
  };
}
