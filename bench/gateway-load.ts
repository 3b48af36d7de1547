import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { figure, type Figure } from './figures';
import type { PluginUnderTest } from './plugin';

interface AutocannonResult {
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  requests: { total: number };
  latency: { p50: number; p99: number };
}

/**
 * A fixed number of polls through the local gateway, from autocannon in its own process so that the load
 * generator does not share the gateway's event loop.
 */
export async function gatewayLoad(
  plugin: PluginUnderTest,
  foreignId: string,
  requests: number,
  connections: number,
): Promise<Figure[]> {
  const cli = require.resolve('autocannon/autocannon.js');
  const url = `${plugin.backends.url}/invoices/${foreignId}`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      cli,
      '--json',
      '--no-progress',
      // Samples every 10 ms, so that the run stops (and its duration ends) right after the last answer.
      '--sampleInt',
      '10',
      '--amount',
      String(requests),
      '--connections',
      String(connections),
      '--headers',
      `authorization=Bearer ${plugin.backends.storefrontToken}`,
      url,
    ],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const result = JSON.parse(stdout) as AutocannonResult;
  const failed = result.errors + result.timeouts + result.non2xx;
  if (failed > 0 || result.requests.total < requests) {
    throw new Error(`autocannon: ${failed} failed of ${result.requests.total} requests`);
  }
  const label = `local gateway, GET /invoices/{id}, ${connections} connections`;
  const detail = `${result.requests.total} requests`;
  return [
    figure({
      id: 'gateway.requestsPerSecond',
      label: `${label}: throughput`,
      value: result.requests.total / result.duration,
      unit: 'req/s',
      detail,
    }),
    figure({ id: 'gateway.p99', label: `${label}: p99`, value: result.latency.p99, unit: 'ms', detail }),
  ];
}
