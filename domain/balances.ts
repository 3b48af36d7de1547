import type { BalanceSnapshot } from './model';
import type { ProcessingApi, SnapshotStore } from './ports';

/** However often balances are read live, one snapshot a minute is kept of it. */
const LIVE_SNAPSHOT_EVERY_MS = 60_000;

export class BalanceService {
  constructor(
    private readonly snapshots: SnapshotStore,
    private readonly processing: ProcessingApi,
    private readonly now: () => number,
  ) {}

  /** Asks the service now and keeps what it said as a snapshot (the scheduled job). */
  async snapshot(source: BalanceSnapshot['source']): Promise<BalanceSnapshot> {
    const snapshot = await this.ask(source);
    await this.snapshots.put(snapshot);
    return snapshot;
  }

  /** The latest snapshot; the service's answer now when `live`, or while no snapshot exists yet. */
  async read(live: boolean): Promise<BalanceSnapshot> {
    const latest = live ? undefined : await this.snapshots.latest();
    if (latest) return latest;
    const snapshot = await this.ask('live');
    if (await this.snapshots.claimLiveSlot(snapshot.takenAt, LIVE_SNAPSHOT_EVERY_MS)) {
      await this.snapshots.put(snapshot);
    }
    return snapshot;
  }

  private async ask(source: BalanceSnapshot['source']): Promise<BalanceSnapshot> {
    return { takenAt: this.now(), source, balances: await this.processing.listBalances() };
  }
}
