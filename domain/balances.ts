import type { BalanceSnapshot } from './model';
import type { ProcessingApi, SnapshotStore } from './ports';

export class BalanceService {
  constructor(
    private readonly snapshots: SnapshotStore,
    private readonly processing: ProcessingApi,
    private readonly now: () => number,
  ) {}

  /** Asks the service now and keeps what it said as a snapshot. */
  async snapshot(source: BalanceSnapshot['source']): Promise<BalanceSnapshot> {
    const balances = await this.processing.listBalances();
    const snapshot: BalanceSnapshot = { takenAt: this.now(), source, balances };
    await this.snapshots.put(snapshot);
    return snapshot;
  }

  latest(): Promise<BalanceSnapshot | undefined> {
    return this.snapshots.latest();
  }
}
