import { randomBytes } from 'node:crypto';
import { medusa, onFreePort, PortTaken, saysPortTaken, type Child } from './processes';

export interface MedusaServer {
  url: string;
  /** Time from start to a healthy answer, in ms. */
  bootMs: number;
  child: Child;
  stop(): Promise<void>;
}

/** Generous: a cold start on a loaded 2-core machine is slow. */
const BOOT_DEADLINE_MS = 180_000;

/** Starts `medusa start` on a free port against `databaseUrl`, and resolves once /health answers 200. */
export function startMedusa(options: {
  databaseUrl: string;
  /** Our provider's options; without them the shop has no payment provider of ours. */
  providerOptions?: Record<string, unknown>;
}): Promise<MedusaServer> {
  return onFreePort((port) => startOn(port, options));
}

async function startOn(
  port: number,
  options: { databaseUrl: string; providerOptions?: Record<string, unknown> },
): Promise<MedusaServer> {
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  const child = medusa(['start', '--port', String(port)], {
    DATABASE_URL: options.databaseUrl,
    JWT_SECRET: randomBytes(24).toString('hex'),
    COOKIE_SECRET: randomBytes(24).toString('hex'),
    MEDUSA_DISABLE_TELEMETRY: 'true',
    NODE_ENV: 'development',
    ...(options.providerOptions
      ? { MEDUSA_E2E_PROVIDER_OPTIONS: JSON.stringify(options.providerOptions) }
      : {}),
  });
  const deadline = started + BOOT_DEADLINE_MS;
  let exitCode: number | null | undefined;
  void child.exited.then((code) => (exitCode = code));
  for (;;) {
    if (saysPortTaken(child.output())) {
      await child.stop();
      throw new PortTaken(`port ${port} taken`);
    }
    if (exitCode !== undefined) throw new Error(`medusa start exited (${exitCode}):\n${child.output()}`);
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`medusa start did not answer /health in time:\n${child.output()}`);
    }
    // Another server on a taken port could answer /health too: only our child's own word that it listens counts.
    const healthy =
      child.said(`Server is ready on port: ${port}`) &&
      (await fetch(`${url}/health`)
        .then((response) => response.status === 200)
        .catch(() => false));
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, bootMs: Date.now() - started, child, stop: () => child.stop() };
}
