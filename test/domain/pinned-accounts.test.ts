// Each record lives on the account it was claimed on (issue 40): a store that moves to its own account keeps its
// earlier orders' calls and callbacks on the shared one, and news about another invoice is never applied.
import { CallbackService } from '../../domain/callbacks';
import { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord, RefundRecord } from '../../domain/model';
import { invoiceOutcome } from '../../domain/outcome';
import type { ProcessingAccounts, ProcessingApi } from '../../domain/ports';
import { nextSweepAt } from '../../domain/reconcile';
import { RefundService } from '../../domain/refunds';
import type { AccountKind } from '../../domain/stores';
import { sharedAccountOf } from '../../domain/upstream';
import { ProcessingAdapter } from '../../processing/adapter';
import { ProcessingClient } from '../../processing/client';
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { checkoutRequest, startDomainRig, SWEEP_TIMING, type DomainRig } from '../support/domain-rig';
import { MemoryStore } from '../support/memory-store';

const STORE = 'shop-b';

let rig: DomainRig;
let ownSandbox: Sandbox;
let own: ProcessingApi;
let shared: ProcessingApi;
/** The store's account now: the tests move it. */
let storeAccount: AccountKind;
/** The account of its records that name none (made before accounts were pinned). */
let unpinnedAccount: AccountKind;
let mismatches: Array<{ foreignId: string; reason: string }>;
let invoices: InvoiceService;
let refunds: RefundService;
let invoiceStore: MemoryStore<InvoiceRecord>;

function servicesOver(accounts: ProcessingAccounts) {
  invoiceStore = new MemoryStore<InvoiceRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  const refundStore = new MemoryStore<RefundRecord>((record) => nextSweepAt(record, SWEEP_TIMING));
  const timing = { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
  const onNewsMismatch = (foreignId: string, reason: string) => mismatches.push({ foreignId, reason });
  invoices = new InvoiceService(invoiceStore, accounts, timing, { onNewsMismatch });
  refunds = new RefundService(refundStore, accounts, timing, invoices, { onNewsMismatch });
}

beforeEach(async () => {
  rig = await startDomainRig();
  ownSandbox = await startSandbox({
    port: 0,
    apiKey: 'own-key',
    secretKey: 'own-secret',
    now: () => rig.clock.ms,
  });
  const ownKeys = { apiKey: 'own-key', secretKey: 'own-secret' };
  own = new ProcessingAdapter(
    new ProcessingClient({
      baseUrl: ownSandbox.url,
      keys: { get: async () => ownKeys, refresh: async () => ownKeys },
    }),
  );
  shared = sharedAccountOf(new ProcessingAdapter(rig.client), STORE);
  storeAccount = 'shared';
  unpinnedAccount = 'shared';
  mismatches = [];
  servicesOver({
    current: async () => storeAccount,
    unpinned: async () => unpinnedAccount,
    of: (kind) => ((kind ?? unpinnedAccount) === 'own' ? own : shared),
  });
});
afterEach(async () => {
  await ownSandbox.close();
  await rig.close();
});

const ownControl = async (path: string, body: object) => {
  const response = await fetch(`${ownSandbox.url}/_sandbox${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
};

test('an order claimed before its store moved is cancelled, looked up and refunded on the shared account', async () => {
  const paid = await invoices.checkout(checkoutRequest('before-move-paid'));
  await invoices.checkout(checkoutRequest('before-move-open'));
  expect(paid.record.account).toBe('shared');
  storeAccount = 'own';
  // The own account holds a paid invoice under each of the same numeric ids: a lookup there would find it.
  await own.createInvoice('someone-else-1', checkoutRequest('someone-else-1'));
  await own.createInvoice('someone-else-2', checkoutRequest('someone-else-2'));
  await ownControl('/invoices/someone-else-2/pay', { kind: 'full' });

  await rig.control('POST', `/invoices/${encodeURIComponent(`${STORE}!before-move-paid`)}/pay`, {
    kind: 'full',
  });
  const refreshed = await invoices.refresh(paid.record, 'lookup');
  expect(invoiceOutcome(refreshed!).status).toBe('paid');
  const cancelled = await invoices.cancel('before-move-open');
  expect(invoiceOutcome(cancelled).status).toBe('cancelled');

  const refund = await refunds.create({
    foreignId: 'refund-1',
    invoiceForeignId: 'before-move-paid',
    address: 'bc1qrefundaddress000000000000000000000000',
  });
  expect(refund.record).toMatchObject({ phase: 'sent', account: 'shared' });
  const sharedSeen = (await rig.control('GET', '/transactions')) as {
    withdrawals: Array<{ foreign_id: string }>;
  };
  expect(sharedSeen.withdrawals.map((w) => w.foreign_id)).toContain(`${STORE}!refund-1`);

  // An order claimed now is made on the store's own account.
  const after = await invoices.checkout(checkoutRequest('after-move'));
  expect(after.record.account).toBe('own');
  expect(mismatches).toEqual([]);
});

test('a lookup that answers another invoice with the same numeric id applies nothing and is counted', async () => {
  // The order's invoice is on the shared account; its lookups are sent, wrongly, to the store's own account.
  servicesOver({
    current: async () => 'shared',
    unpinned: async () => 'shared',
    of: () => ({ ...shared, invoiceNews: (invoiceId) => own.invoiceNews(invoiceId) }),
  });
  const { record } = await invoices.checkout(checkoutRequest('order-1'));
  const other = await own.createInvoice('someone-else', checkoutRequest('someone-else'));
  expect(other.details.id).toBe(record.invoice!.id);
  await ownControl('/invoices/someone-else/pay', { kind: 'full' });

  expect(await invoices.refresh(record, 'lookup')).toBeUndefined();
  // The cancel's own lookup is refused the same way: the order is cancelled, never read as paid.
  const cancelled = await invoices.cancel('order-1');

  expect(invoiceOutcome(cancelled).status).toBe('cancelled');
  expect(cancelled.payment).toBeNull();
  expect(mismatches).toEqual([
    { foreignId: 'order-1', reason: 'foreign_id' },
    { foreignId: 'order-1', reason: 'foreign_id' },
  ]);
});

test('a callback applies only to records claimed on the account whose endpoint it came to', async () => {
  const onShared = await invoices.checkout(checkoutRequest('on-shared'));
  storeAccount = 'own';
  const onOwn = await invoices.checkout(checkoutRequest('on-own'));
  const sharedEndpoint = new CallbackService(invoices, refunds, 'shared');
  const ownEndpoint = new CallbackService(invoices, refunds, 'own');
  const news = (upstreamForeignId: string) => ({
    kind: 'invoice' as const,
    upstreamForeignId,
    status: 'processing',
  });

  expect(await ownEndpoint.receive(news('on-shared'))).toBe('ignored');
  expect(await sharedEndpoint.receive(news('on-own'))).toBe('ignored');
  expect(mismatches).toEqual([
    { foreignId: 'on-shared', reason: 'account' },
    { foreignId: 'on-own', reason: 'account' },
  ]);
  expect(await sharedEndpoint.receive(news('on-shared'))).toBe('applied');
  expect(await ownEndpoint.receive(news('on-own'))).toBe('applied');
  expect((await invoiceStore.get(onShared.record.foreignId))!.status).toBe('processing');
  expect((await invoiceStore.get(onOwn.record.foreignId))!.status).toBe('processing');
});

test('an order from before accounts were pinned follows the account its store had then, after a move', async () => {
  await invoices.checkout(checkoutRequest('unpinned-order'));
  const { account: _none, ...unpinned } = (await invoiceStore.get('unpinned-order'))!;
  const version = unpinned.version + 1;
  expect(await invoiceStore.update({ ...unpinned, version }, unpinned.version)).toBe(true);
  // The store has moved since: its orders that name no account were made on the shared one.
  storeAccount = 'own';
  unpinnedAccount = 'shared';
  const sharedEndpoint = new CallbackService(invoices, refunds, 'shared');
  const ownEndpoint = new CallbackService(invoices, refunds, 'own');
  const news = { kind: 'invoice' as const, upstreamForeignId: 'unpinned-order', status: 'processing' };

  expect(await ownEndpoint.receive(news)).toBe('ignored');
  expect(await sharedEndpoint.receive(news)).toBe('applied');
  await rig.control('POST', `/invoices/${encodeURIComponent(`${STORE}!unpinned-order`)}/pay`, {
    kind: 'full',
  });
  const paid = await invoices.refresh((await invoiceStore.get('unpinned-order'))!, 'lookup');
  expect(invoiceOutcome(paid!).status).toBe('paid');
  const refund = await refunds.create({
    foreignId: 'refund-unpinned',
    invoiceForeignId: 'unpinned-order',
    address: 'bc1qrefundaddress000000000000000000000000',
  });
  expect(refund.record).toMatchObject({ phase: 'sent', account: 'shared' });
  expect(mismatches).toEqual([{ foreignId: 'unpinned-order', reason: 'account' }]);
});
