// Stores sharing the deployment's account (issue 33): each sends its foreign_ids with its own prefix, and callbacks
// come back to the store the prefix names, applied to that store's records alone.
import { CallbackService } from '../../domain/callbacks';
import { InvoiceService } from '../../domain/invoices';
import type { CallbackEvent, InvoiceRecord, RefundRecord, RefundRequest } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';
import { nextSweepAt } from '../../domain/reconcile';
import { RefundService } from '../../domain/refunds';
import {
  defaultStoreAccountOf,
  isOwnAccountEvent,
  routeSharedCallback,
  sharedAccountOf,
  sharedUpstreamId,
  oneAccount,
} from '../../domain/upstream';
import { ProcessingAdapter } from '../../processing/adapter';
import { checkoutRequest, startDomainRig, SWEEP_TIMING, type DomainRig } from '../support/domain-rig';
import { MemoryStore } from '../support/memory-store';

const STORE_B = 'shop-b';

describe('the upstream foreign_id and the routing of callbacks', () => {
  test('a shared store puts `<storeId>!` in front; the default store sends its foreign_id as it is', () => {
    expect(sharedUpstreamId('default', 'order-1~2')).toBe('order-1~2');
    expect(sharedUpstreamId(STORE_B, 'order-1~2')).toBe('shop-b!order-1~2');
  });

  test('the longest store id and foreign_id with an attempt fit in what a callback may name (128)', () => {
    const longest = sharedUpstreamId('s'.repeat(32), `${'f'.repeat(64)}~5`);
    expect(longest.length).toBe(99);
    expect(routeSharedCallback({ kind: 'invoice', upstreamForeignId: longest, status: 'pending' })).toEqual({
      storeId: 's'.repeat(32),
      event: { kind: 'invoice', upstreamForeignId: `${'f'.repeat(64)}~5`, status: 'pending' },
    });
  });

  test("a callback's prefix names its store, stripped from the event; none is the default store's", () => {
    const invoice: CallbackEvent = { kind: 'invoice', upstreamForeignId: 'shop-b!order-1~2', status: 'paid' };
    const withdrawal: CallbackEvent = {
      kind: 'withdrawal',
      foreignId: 'shop-b!refund-1',
      status: 'confirmed',
    };
    expect(routeSharedCallback(invoice)).toEqual({
      storeId: STORE_B,
      event: { ...invoice, upstreamForeignId: 'order-1~2' },
    });
    expect(routeSharedCallback(withdrawal)).toEqual({
      storeId: STORE_B,
      event: { ...withdrawal, foreignId: 'refund-1' },
    });
    const plain: CallbackEvent = { kind: 'invoice', upstreamForeignId: 'order-1', status: 'paid' };
    expect(routeSharedCallback(plain)).toEqual({ storeId: 'default', event: plain });
    expect(routeSharedCallback({ kind: 'other' })).toEqual({ storeId: 'default', event: { kind: 'other' } });
  });

  test('a prefix that names no possible store, or names the default store, routes nowhere', () => {
    for (const upstreamForeignId of ['Shop!order-1', '!order-1', 'default!order-1', `${'s'.repeat(33)}!x`]) {
      expect(routeSharedCallback({ kind: 'invoice', upstreamForeignId, status: 'paid' })).toBeUndefined();
    }
  });

  test("a store's own account names its foreign_ids bare: one with a prefix is no record of the store's", () => {
    expect(isOwnAccountEvent({ kind: 'invoice', upstreamForeignId: 'order-1~2', status: 'paid' })).toBe(true);
    expect(isOwnAccountEvent({ kind: 'withdrawal', foreignId: 'shop-a!refund-1', status: 'paid' })).toBe(
      false,
    );
  });
});

describe("a shared store's calls to the payment service", () => {
  const calls: Array<[string, unknown]> = [];
  const recording = new Proxy({} as ProcessingApi, {
    get:
      (_, method: string) =>
      async (...args: unknown[]) => {
        calls.push([method, args]);
        if (method === 'transaction') return { id: 7, foreign_id: 'shop-a!order-1' };
        return { status: 'created', details: {} };
      },
  });
  const account = sharedAccountOf(recording, STORE_B);
  const withdrawal: RefundRequest = {
    foreignId: 'refund-1',
    senderCurrency: 'EUR',
    receivedCurrency: 'BTC',
    senderAmount: '10',
    address: 'bc1q',
  };
  beforeEach(() => calls.splice(0));

  test('invoices, cancels, deposit lookups and withdrawals carry the prefix', async () => {
    await account.createInvoice('order-1~2', checkoutRequest('order-1'));
    await account.cancelInvoice('order-1~2');
    await account.depositNews([5], 'order-1');
    await account.createWithdrawal(withdrawal);
    await account.findWithdrawal(withdrawal);
    expect(calls.map(([method, args]) => [method, (args as unknown[])[0], (args as unknown[])[1]])).toEqual([
      ['createInvoice', 'shop-b!order-1~2', checkoutRequest('order-1')],
      ['cancelInvoice', 'shop-b!order-1~2', undefined],
      ['depositNews', [5], 'shop-b!order-1'],
      ['createWithdrawal', { ...withdrawal, foreignId: 'shop-b!refund-1' }, undefined],
      ['findWithdrawal', { ...withdrawal, foreignId: 'shop-b!refund-1' }, undefined],
    ]);
  });

  test("a transaction is looked up by the store's foreign_id; by id only one of the store's own is answered", async () => {
    await account.transaction({ foreign_id: 'refund-1' });
    expect(calls[0]).toEqual(['transaction', [{ foreign_id: 'shop-b!refund-1' }]]);
    await expect(account.transaction({ id: 7 })).rejects.toMatchObject({ failure: 'not_found' });
    await expect(sharedAccountOf(recording, 'shop-a').transaction({ id: 7 })).resolves.toEqual({
      id: 7,
      foreign_id: 'shop-a!order-1',
    });
  });
});

describe("the default store's view of the deployment's account", () => {
  const records: Record<number, object> = {
    1: { id: 1, foreign_id: 'refund-1' },
    2: { id: 2, foreign_id: 'shop-a!refund-1' },
    3: { id: 3 },
  };
  const account = defaultStoreAccountOf({
    transaction: async (query: { id?: number }) => records[query.id!],
  } as unknown as ProcessingApi);

  test("a transaction by id is answered unless its foreign_id carries a sharing store's prefix", async () => {
    await expect(account.transaction({ id: 1 })).resolves.toEqual(records[1]);
    await expect(account.transaction({ id: 3 })).resolves.toEqual(records[3]);
    await expect(account.transaction({ id: 2 })).rejects.toMatchObject({ failure: 'not_found' });
  });
});

describe('two stores on the sandbox, one account', () => {
  let rig: DomainRig;
  let storeB: MemoryStore<InvoiceRecord>;
  let invoicesB: InvoiceService;
  let callbacksB: CallbackService;
  let callbacksA: CallbackService;
  beforeEach(async () => {
    rig = await startDomainRig();
    storeB = new MemoryStore<InvoiceRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
    const timing = { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
    const shared = sharedAccountOf(new ProcessingAdapter(rig.client), STORE_B);
    invoicesB = new InvoiceService(storeB, oneAccount(shared), timing);
    const refundsB = new RefundService(
      new MemoryStore<RefundRecord>((record) => nextSweepAt(record, SWEEP_TIMING)),
      oneAccount(shared),
      timing,
      invoicesB,
    );
    callbacksB = new CallbackService(invoicesB, refundsB, 'shared');
    callbacksA = new CallbackService(rig.invoices, rig.refunds, 'shared');
  });
  afterEach(() => rig.close());

  test('the same foreign_id in two stores makes two invoices upstream, one per store', async () => {
    const a = await rig.invoices.checkout(checkoutRequest('order-1'));
    const b = await invoicesB.checkout(checkoutRequest('order-1'));

    expect(a.created && b.created).toBe(true);
    expect(a.record.invoice?.id).not.toBe(b.record.invoice?.id);
    const upstreamA = await rig.control('GET', '/invoices/order-1');
    const upstreamB = await rig.control('GET', `/invoices/${encodeURIComponent('shop-b!order-1')}`);
    expect([upstreamA.id, upstreamB.id]).toEqual([a.record.invoice?.id, b.record.invoice?.id]);
    expect([upstreamA.foreign_id, upstreamB.foreign_id]).toEqual(['order-1', 'shop-b!order-1']);
  });

  test("a callback reaches only the store its prefix names, never the other store's order of the same id", async () => {
    await rig.invoices.checkout(checkoutRequest('order-1'));
    await invoicesB.checkout(checkoutRequest('order-1'));
    const forB = routeSharedCallback({
      kind: 'invoice',
      upstreamForeignId: 'shop-b!order-1',
      status: 'processing',
    })!;

    expect(forB.storeId).toBe(STORE_B);
    expect(await callbacksB.receive(forB.event)).toBe('applied');
    expect((await storeB.get('order-1'))?.status).toBe('processing');
    expect((await rig.invoiceStore.get('order-1'))?.status).not.toBe('processing');

    // The default store's news, under the bare foreign_id, moves only the default store's order.
    const forA = routeSharedCallback({ kind: 'invoice', upstreamForeignId: 'order-1', status: 'confirmed' })!;
    expect(await callbacksA.receive(forA.event)).toBe('applied');
    expect((await rig.invoiceStore.get('order-1'))?.status).toBe('confirmed');
    expect((await storeB.get('order-1'))?.status).toBe('processing');
  });
});
