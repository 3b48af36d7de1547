import type { BaselineIo } from './baseline-io';
import { checkouts } from './checkouts';
import { pollByHand, pollByHandler } from './calls';
import { atMost, exactly, figure, type Figure, type Target } from './figures';
import type { Peer } from './peer';
import { leases, reads, writes, type CommandCounts, type PluginUnderTest } from './plugin';
import type { Call } from './timing';

const LABELS = {
  upstreamCalls: 'upstream calls',
  upstreamConnections: 'new connections to the service (sandbox count)',
  dynamoCalls: "DynamoDB calls (server count), the limiter's leases apart",
  dynamoWrites: "DynamoDB writes, the limiter's leases apart",
  limiterLeases: "the per-store limit's lease writes (one per warm function, store and second at most)",
  dynamoReads: 'DynamoDB reads',
  secretsCalls: 'Secrets Manager calls',
  cpuMicros: 'CPU in this process, µs per call',
  backendsCpuMicros: 'CPU in the backends process, µs per call',
};

export type Counts = Record<keyof typeof LABELS, number>;

interface Subject {
  commands: CommandCounts;
  call: Call;
}

/**
 * Per 1000 sequential warm invocations of each subject; CPU per invocation. The subjects take turns in rounds of
 * `ROUND` calls, so that a change in the machine's load lands on all of them.
 */
async function countDuring<K extends string>(
  plugin: PluginUnderTest,
  subjects: Record<K, Subject>,
  invocations: number,
): Promise<Record<K, Counts>> {
  const read = async (commands: CommandCounts): Promise<Counts> => {
    const upstream = await plugin.upstream();
    const served = await plugin.backends.counts();
    const cpu = process.cpuUsage();
    return {
      upstreamCalls: upstream.requests,
      upstreamConnections: upstream.connections,
      dynamoCalls: served.dynamoCalls - leases(commands),
      dynamoWrites: writes(commands),
      limiterLeases: leases(commands),
      dynamoReads: reads(commands),
      secretsCalls: served.secretsCalls,
      cpuMicros: (cpu.user + cpu.system) / 1000,
      backendsCpuMicros: served.cpuMs,
    };
  };
  const keys = Object.keys(LABELS) as Array<keyof Counts>;
  const names = Object.keys(subjects) as K[];
  const totals = Object.fromEntries(
    names.map((name) => [name, Object.fromEntries(keys.map((key) => [key, 0])) as Counts]),
  ) as Record<K, Counts>;
  for (let done = 0; done < invocations; done += ROUND) {
    for (const name of names) {
      const { commands, call } = subjects[name];
      // Readied first: building an invocation's event is the Lambda runtime's work, not the handler's CPU.
      const readied = Array.from({ length: Math.min(ROUND, invocations - done) }, () => call());
      const before = await read(commands);
      const countedBefore = counted(commands);
      for (const run of readied) await run();
      const after = await read(commands);
      // A counter added after its client's first send of a command never sees that command (cacheMiddleware). The
      // server also counts the SDK's retries, which are rare here.
      const seen = counted(commands) - countedBefore;
      const served = after.dynamoCalls - before.dynamoCalls;
      if (seen < served * 0.99) {
        throw new Error(`${name}: its client's counter saw ${seen} of the ${served} DynamoDB calls served`);
      }
      for (const key of keys) totals[name][key] += after[key] - before[key];
    }
  }
  for (const name of names)
    for (const key of keys) totals[name][key] = (totals[name][key] * 1000) / invocations;
  return totals;
}

const ROUND = 100;

const counted = (commands: CommandCounts) => [...commands.values()].reduce((sum, count) => sum + count, 0);

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
): Promise<{
  figures: Figure[];
  counts: Record<'checkout' | 'byHand' | 'poll' | 'byHandPoll' | 'peer', Counts>;
}> {
  const calls = checkouts(plugin, baseline, peer, 'bench-io');
  const byHandCheckout = calls.byHand();
  const counts = await countDuring(
    plugin,
    {
      checkout: { commands: plugin.commands, call: calls.ours },
      poll: { commands: plugin.commands, call: () => pollByHandler(plugin, pollId) },
      byHand: { commands: baseline.commands, call: byHandCheckout },
      byHandPoll: { commands: baseline.commands, call: pollByHand(baseline, pollId) },
      peer: { commands: peer.commands, call: calls.peer },
    },
    invocations,
  );
  const { checkout, poll, byHand, byHandPoll, peer: peerCounts } = counts;
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
    counts,
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
      ...ioFigures('baseline.poll', 'by-hand poll', byHandPoll, {}),
      ...ioFigures('peer.checkout', 'peer checkout', peerCounts, {}),
      noMoreThanPeer('dynamoCalls', 'DynamoDB calls'),
      noMoreThanPeer('upstreamCalls', 'calls to the service'),
      noMoreThanPeer('secretsCalls', 'Secrets Manager calls'),
    ],
  };
}
