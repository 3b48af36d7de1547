// A cancel is known by what we asked, not by the service's words (issue 40): once we have sent a cancel, a `failed`
// with no money reads `cancelled`, is announced as such, and is watched for late money.
import { NotConfiguredError, ServiceError, surelyNotProcessed } from '../../domain/errors';
import { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord } from '../../domain/model';
import { invoiceOutcome, isRefundable } from '../../domain/outcome';
import type { ProcessingApi } from '../../domain/ports';
import { isOpen } from '../../domain/status';
import { oneAccount } from '../../domain/upstream';
import { MemoryStore } from '../support/memory-store';
import { sentInvoice } from '../support/records';
import { checkoutRequest, startDomainRig, type DomainRig } from '../support/domain-rig';

const NOW = Date.UTC(2030, 0, 1);
const TIMING = { now: () => NOW, leaseMs: 1, waitMs: 1, pollMs: 1 };
/** Words of a service that are neither the sandbox's nor the reference service's. */
const OTHER_WORDS = 'Closed at the merchant’s request.';

/** order-1, answered with the service's invoice 7 and a fixed quote; nothing paid yet. */
function answeredInvoice(): InvoiceRecord {
  return sentInvoice('order-1', {
    request: checkoutRequest('order-1'),
    claimedAt: NOW,
    createdAt: NOW,
    updatedAt: NOW,
    invoice: {
      id: 7,
      url: 'https://pay.example/7',
      address: 'bc1q',
      tag: null,
      amount: '25.50000000',
      senderCurrency: 'BTC',
      senderAmount: '0.00045900',
      fixedAt: NOW / 1000,
      releaseAt: NOW / 1000 + 900,
    },
  });
}

const eventTypes = (record: InvoiceRecord) => record.outbox?.pending.map((event) => event.type) ?? [];

/** Our cancel's answer is lost, and the lookup finds nothing: the cancel's outcome stays unknown. */
function lostCancel(onCancel: () => Promise<void> = async () => undefined) {
  return {
    invoiceNews: async () => undefined,
    cancelInvoice: async () => {
      await onCancel();
      throw new ServiceError('connection_lost', 'The connection broke', {
        code: 'ECONNRESET',
        outcomeUnknown: true,
      });
    },
  } as unknown as ProcessingApi;
}

describe('a cancel whose answer was lost, then the service says `failed` in its own words', () => {
  test.each([
    ['the sandbox words', 'Invoice cancelled by merchant.'],
    ["the reference service's words", 'Cancelled by merchant.'],
    ['words we do not know', OTHER_WORDS],
    ['no words', ''],
  ])(
    'in %s: reads cancelled, announces invoice.cancelled, is watched, and late money reads paid_late',
    async (_name, words) => {
      const store = new MemoryStore<InvoiceRecord>(() => NOW);
      await store.create(answeredInvoice());
      const invoices = new InvoiceService(store, oneAccount(lostCancel()), TIMING);

      await expect(invoices.cancel('order-1')).rejects.toMatchObject({ outcomeUnknown: true });
      expect((await store.get('order-1'))!.cancelAskedAt).toBe(NOW);
      await invoices.applyStatus({
        upstreamForeignId: 'order-1',
        status: 'failed',
        source: 'callback',
        error: words,
      });

      const failed = (await store.get('order-1'))!;
      expect(invoiceOutcome(failed)).toMatchObject({ status: 'cancelled', exception: null });
      expect(eventTypes(failed)).toContain('invoice.cancelled');
      expect(eventTypes(failed)).not.toContain('invoice.failed');
      expect(isOpen(failed)).toBe(true);

      await invoices.applyStatus({
        upstreamForeignId: 'order-1',
        status: 'failed',
        source: 'callback',
        error: words,
        payment: { currency: 'BTC', amount: '0.00045900' },
        settlement: { currency: 'EUR', net: '25.24500000', fees: [] },
      });
      const paidLate = (await store.get('order-1'))!;
      expect(invoiceOutcome(paidLate)).toMatchObject({ status: 'cancelled', exception: 'paid_late' });
      expect(isRefundable(paidLate)).toBe(true);
      expect(isOpen(paidLate)).toBe(true);
    },
  );

  test('a timer that ran out before the cancel got there keeps the order expired', async () => {
    const store = new MemoryStore<InvoiceRecord>(() => NOW);
    await store.create(answeredInvoice());
    const invoices = new InvoiceService(store, oneAccount(lostCancel()), TIMING);

    await expect(invoices.cancel('order-1')).rejects.toBeInstanceOf(ServiceError);
    await invoices.applyStatus({
      upstreamForeignId: 'order-1',
      status: 'failed',
      source: 'callback',
      error: 'Timer expired. User not paid.',
    });

    const stored = (await store.get('order-1'))!;
    expect(invoiceOutcome(stored).status).toBe('expired');
    expect(eventTypes(stored)).toContain('invoice.expired');
  });

  test('an invoice we never asked to cancel that fails in words we do not know stays failed', async () => {
    const store = new MemoryStore<InvoiceRecord>(() => NOW);
    await store.create(answeredInvoice());
    const invoices = new InvoiceService(store, oneAccount({} as ProcessingApi), TIMING);

    await invoices.applyStatus({
      upstreamForeignId: 'order-1',
      status: 'failed',
      source: 'callback',
      error: OTHER_WORDS,
    });

    const stored = (await store.get('order-1'))!;
    expect(stored.cancelAskedAt).toBeUndefined();
    expect(invoiceOutcome(stored)).toMatchObject({ status: 'failed', failureMessage: OTHER_WORDS });
    expect(isOpen(stored)).toBe(false);
  });
});

test('the retried cancel finds the failed invoice its lost answer left, and answers it cancelled', async () => {
  // The callback was lost too; the retry's lookup finds the invoice failed in words we do not know.
  const store = new MemoryStore<InvoiceRecord>(() => NOW);
  await store.create(answeredInvoice());
  let cancelled = false;
  const processing = {
    invoiceNews: async () => ({
      upstreamForeignId: 'order-1',
      ...(cancelled ? { status: 'failed', error: OTHER_WORDS } : { status: 'pending' }),
    }),
    cancelInvoice: async () => {
      cancelled = true;
      throw new ServiceError('failed', 'The service answered 502', { code: 'bad_gateway' });
    },
  } as unknown as ProcessingApi;
  const invoices = new InvoiceService(store, oneAccount(processing), TIMING);

  await expect(invoices.cancel('order-1')).rejects.toMatchObject({ failure: 'failed' });
  const answered = await invoices.cancel('order-1');

  expect(invoiceOutcome(answered).status).toBe('cancelled');
  expect(answered.cancelled).toBe(true);
  expect(eventTypes((await store.get('order-1'))!)).toContain('invoice.cancelled');
});

describe('a cancel that surely never left us keeps no marker, so a later failure of theirs reads failed', () => {
  test.each([
    [
      'an unreachable service',
      new ServiceError('unreachable', 'Connection refused', { code: 'ECONNREFUSED' }),
    ],
    [
      'too little time to send it',
      new ServiceError('timeout', 'not sent', { code: 'deadline_exceeded', outcomeUnknown: false }),
    ],
    ["a store's keys a stale cache did not have", new NotConfiguredError('The store has no keys')],
  ])('%s', async (_name, error) => {
    expect(surelyNotProcessed(error)).toBe(true);
    const store = new MemoryStore<InvoiceRecord>(() => NOW);
    await store.create(answeredInvoice());
    const processing = {
      invoiceNews: async () => ({ upstreamForeignId: 'order-1', status: 'pending' }),
      cancelInvoice: async () => {
        expect((await store.get('order-1'))!.cancelAskedAt).toBe(NOW);
        throw error;
      },
    } as unknown as ProcessingApi;
    const invoices = new InvoiceService(store, oneAccount(processing), TIMING);

    await expect(invoices.cancel('order-1')).rejects.toBe(error);
    expect((await store.get('order-1'))!.cancelAskedAt).toBeUndefined();
    await invoices.applyStatus({
      upstreamForeignId: 'order-1',
      status: 'failed',
      source: 'callback',
      error: OTHER_WORDS,
    });
    const stored = (await store.get('order-1'))!;
    expect(invoiceOutcome(stored)).toMatchObject({ status: 'failed', failureMessage: OTHER_WORDS });
    expect(eventTypes(stored)).not.toContain('invoice.cancelled');
  });

  test('the marker of an earlier cancel whose outcome is unknown stays', async () => {
    const store = new MemoryStore<InvoiceRecord>(() => NOW);
    await store.create(answeredInvoice());
    let tries = 0;
    const processing = {
      invoiceNews: async () => ({ upstreamForeignId: 'order-1', status: 'pending' }),
      cancelInvoice: async () => {
        tries += 1;
        throw tries === 1
          ? new ServiceError('connection_lost', 'The connection broke', {
              code: 'ECONNRESET',
              outcomeUnknown: true,
            })
          : new ServiceError('unreachable', 'Connection refused', { code: 'ECONNREFUSED' });
      },
    } as unknown as ProcessingApi;
    const invoices = new InvoiceService(store, oneAccount(processing), TIMING);

    await expect(invoices.cancel('order-1')).rejects.toMatchObject({ outcomeUnknown: true });
    await expect(invoices.cancel('order-1')).rejects.toMatchObject({ failure: 'unreachable' });
    expect((await store.get('order-1'))!.cancelAskedAt).toBe(NOW);
  });
});

test('a cancel refused before it is sent writes no marker', async () => {
  const store = new MemoryStore<InvoiceRecord>(() => NOW);
  await store.create(answeredInvoice());
  const processing = {
    invoiceNews: async () => ({
      upstreamForeignId: 'order-1',
      status: 'processing',
      payment: { currency: 'BTC', amount: '0.00045900' },
    }),
    cancelInvoice: jest.fn(),
  } as unknown as ProcessingApi;
  const invoices = new InvoiceService(store, oneAccount(processing), TIMING);

  await expect(invoices.cancel('order-1')).rejects.toMatchObject({ code: 'payment_confirming' });

  expect(processing.cancelInvoice).not.toHaveBeenCalled();
  expect((await store.get('order-1'))!.cancelAskedAt).toBeUndefined();
});

test("a view never reads failed for our own cancel whose callback comes before the cancel's answer", async () => {
  const store = new MemoryStore<InvoiceRecord>(() => NOW);
  await store.create(answeredInvoice());
  const seenBeforeAnswer: string[] = [];
  const processing = {
    invoiceNews: async () => ({ upstreamForeignId: 'order-1', status: 'pending' }),
    cancelInvoice: async (upstreamForeignId: string) => {
      await invoices.applyStatus({
        upstreamForeignId,
        status: 'failed',
        source: 'callback',
        error: OTHER_WORDS,
      });
      seenBeforeAnswer.push(invoiceOutcome((await store.get('order-1'))!).status);
    },
  } as unknown as ProcessingApi;
  const invoices = new InvoiceService(store, oneAccount(processing), TIMING);

  const answered = await invoices.cancel('order-1');

  expect(seenBeforeAnswer).toEqual(['cancelled']);
  expect(invoiceOutcome(answered).status).toBe('cancelled');
  const stored = (await store.get('order-1'))!;
  expect(stored.cancelled).toBe(true);
  expect(eventTypes(stored).filter((type) => type !== 'invoice.awaiting_payment')).toEqual([
    'invoice.cancelled',
  ]);
});

describe('through the sandbox, with every callback lost and a service whose cancel words are not ours', () => {
  let rig: DomainRig;
  beforeEach(async () => {
    rig = await startDomainRig();
  });
  afterEach(() => rig.close());

  test.each(['Cancelled by merchant.', OTHER_WORDS])(
    'a cancel whose answer and lookup were lost, in "%s": the sweep finds it cancelled, then the late money',
    async (words) => {
      await rig.control('POST', '/features', { cancel_error: words });
      await rig.invoices.checkout(checkoutRequest('asked-1'));
      await rig.control('POST', '/faults', {
        path: '/v2/invoices/asked-1/cancel/',
        kind: 'reset_after_commit',
      });
      // The lookup after the lost answer finds nothing, as a service written from the spec may answer.
      await rig.control('POST', '/features', { invoice_lookups: false });

      await expect(rig.invoices.cancel('asked-1')).rejects.toMatchObject({ outcomeUnknown: true });
      await rig.control('POST', '/features', { invoice_lookups: true });
      expect((await rig.control('GET', '/invoices/asked-1')).error).toBe(words);

      rig.clock.ms += 10 * 60_000;
      await rig.sweep();
      const cancelled = (await rig.invoiceStore.get('asked-1'))!;
      expect(invoiceOutcome(cancelled)).toMatchObject({ status: 'cancelled', exception: null });
      expect(isOpen(cancelled)).toBe(true);

      const paid = await rig.control('POST', '/invoices/asked-1/pay', { kind: 'full' });
      rig.clock.ms += 10 * 60_000;
      await rig.sweep();
      const found = (await rig.invoiceStore.get('asked-1'))!;
      expect(invoiceOutcome(found)).toMatchObject({ status: 'cancelled', exception: 'paid_late' });
      expect(found.settlement?.net).toBe(paid.credited_amount);
      expect(isRefundable(found)).toBe(true);
    },
  );
});
