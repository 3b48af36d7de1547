import middy from '@middy/core';
import { BalanceService } from '../domain/balances';
import { log } from '../observability/log';
import { invocation } from '../runtime/invocation';
import { processing } from '../runtime/processing';
import { snapshotStore } from '../runtime/stores';

const balances = new BalanceService(snapshotStore, processing, Date.now);

/** Scheduled: keeps a balance snapshot. A failure throws, so the scheduler retries and then dead-letters. */
export const handler = middy(async (): Promise<{ takenAt: number; currencies: number }> => {
  const snapshot = await balances.snapshot('scheduled');
  log.info('balance snapshot taken', { currencies: snapshot.balances.length });
  return { takenAt: snapshot.takenAt, currencies: snapshot.balances.length };
}).use(invocation());
