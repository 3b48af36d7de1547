import { oneAccount } from '../../domain/upstream';
// The one rule for "paid enough" (domain/outcome.ts): every service status, with too little, exactly enough, too
// much and money that came late, in both invoice types, applied as the service's news through InvoiceService.
import { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord, InvoiceStatus, InvoiceType, Payment } from '../../domain/model';
import { invoiceOutcome, isRefundable, refundRefusal, SERVICE_FAILURES } from '../../domain/outcome';
import type { ProcessingApi } from '../../domain/ports';
import { MemoryStore } from '../support/memory-store';
import { sentInvoice } from '../support/records';

const NOW = Date.UTC(2030, 0, 1);
const DUE = '0.00100000';
const AMOUNTS = { under: '0.00050000', exact: DUE, over: '0.00110000' } as const;
const CREDIT = { currency: 'EUR', net: '59.40000000', fees: [{ currency: 'EUR', amount: '0.60000000' }] };

type Paid = keyof typeof AMOUNTS | 'late';
type ServiceSays = [InvoiceStatus, string?];

function record(type: InvoiceType): InvoiceRecord {
  return sentInvoice('order-1', {
    request: { foreignId: 'order-1', currency: 'EUR', type } as InvoiceRecord['request'],
    claimedAt: NOW,
    createdAt: NOW,
    updatedAt: NOW,
    invoice: {
      id: 1,
      url: 'https://pay.example/1',
      address: 'bc1qaddress',
      tag: null,
      amount: '60.00000000',
      senderCurrency: 'BTC',
      senderAmount: DUE,
      fixedAt: NOW / 1000,
      releaseAt: NOW / 1000 + 900,
    },
  });
}

/** As the service words it: a partial-pay invoice also reports what remains while something does. */
function sent(type: InvoiceType, amount: string): Payment {
  const remaining = Math.max(0, Number(DUE) - Number(amount)).toFixed(8);
  return {
    currency: 'BTC',
    amount,
    ...(type === 'good_until_expired' && remaining !== '0.00000000' && { remainingAmount: remaining }),
  };
}

/** The view after the service said `says` with the payment, or (late) said it first and reported the money after. */
async function outcome(type: InvoiceType, [status, error]: ServiceSays, paid: Paid) {
  const store = new MemoryStore<InvoiceRecord>(() => NOW);
  await store.create(record(type));
  const invoices = new InvoiceService(store, oneAccount({} as ProcessingApi), {
    now: () => NOW,
    leaseMs: 1,
    waitMs: 1,
    pollMs: 1,
  });
  const news = { upstreamForeignId: 'order-1', status, error, source: 'callback' as const };
  const credited = status === 'confirmed' || paid === 'late' ? { settlement: CREDIT } : {};
  if (paid === 'late') {
    await invoices.applyStatus(news);
    await invoices.applyStatus({ ...news, payment: sent(type, DUE), ...credited });
  } else {
    await invoices.applyStatus({ ...news, payment: sent(type, AMOUNTS[paid]), ...credited });
  }
  const stored = (await store.get('order-1'))!;
  const { status: shown, exception } = invoiceOutcome(stored);
  return [shown, exception, isRefundable(stored)];
}

const { expiredUnpaid, expiredPartlyPaid, underpaid, cancelled } = SERVICE_FAILURES;

// [what the service says, then for under / exact / over / late: [status shown, exception, refundable]]
const TABLE: Array<[ServiceSays, Record<Paid, [string, string | null, boolean]>]> = [
  [
    ['created'],
    {
      under: ['awaiting_payment', 'paid_partial', false],
      exact: ['awaiting_payment', 'paid_partial', false],
      over: ['awaiting_payment', 'paid_over', false],
      late: ['awaiting_payment', 'paid_partial', false],
    },
  ],
  [
    ['pending'],
    {
      under: ['awaiting_payment', 'paid_partial', false],
      exact: ['awaiting_payment', 'paid_partial', false],
      over: ['awaiting_payment', 'paid_over', false],
      late: ['awaiting_payment', 'paid_partial', false],
    },
  ],
  [
    ['processing'],
    {
      under: ['confirming', 'paid_partial', false],
      exact: ['confirming', null, false],
      over: ['confirming', 'paid_over', false],
      late: ['confirming', null, false],
    },
  ],
  [
    ['confirmed'],
    {
      // Confirmed with half paid is not paid: the shop must not fulfil it, nor refund what the service returns.
      under: ['underpaid', null, false],
      exact: ['paid', null, true],
      over: ['paid', 'paid_over', true],
      late: ['paid', 'paid_late', true],
    },
  ],
  [
    ['failed', expiredUnpaid],
    {
      under: ['expired', 'paid_late', false],
      exact: ['expired', 'paid_late', false],
      over: ['expired', 'paid_late', false],
      late: ['expired', 'paid_late', true],
    },
  ],
  [
    ['failed', expiredPartlyPaid],
    {
      under: ['underpaid', null, false],
      exact: ['underpaid', null, false],
      over: ['underpaid', 'paid_over', false],
      late: ['underpaid', 'paid_late', false],
    },
  ],
  [
    ['failed', underpaid],
    {
      under: ['underpaid', null, false],
      exact: ['underpaid', null, false],
      over: ['underpaid', 'paid_over', false],
      late: ['underpaid', 'paid_late', false],
    },
  ],
  [
    ['failed', cancelled],
    {
      under: ['cancelled', 'paid_late', false],
      exact: ['cancelled', 'paid_late', false],
      over: ['cancelled', 'paid_late', false],
      late: ['cancelled', 'paid_late', true],
    },
  ],
  [
    ['failed', 'Processing took over 24 hours.'],
    {
      under: ['failed', null, false],
      exact: ['failed', null, false],
      over: ['failed', 'paid_over', false],
      late: ['failed', 'paid_late', true],
    },
  ],
];

const CASES = TABLE.flatMap(([says, byPaid]) =>
  (['fill_or_kill', 'good_until_expired'] as const).flatMap((type) =>
    (Object.keys(byPaid) as Paid[]).map((paid) => [type, says, paid, byPaid[paid]] as const),
  ),
);

test.each(CASES)('%s, the service says %j, paid %s', async (type, says, paid, expected) => {
  expect(await outcome(type, says, paid)).toEqual(expected);
});

test('the table covers every service status, each amount and both invoice types', () => {
  const statuses = new Set(TABLE.map(([[status]]) => status));
  expect([...statuses].sort()).toEqual(['confirmed', 'created', 'failed', 'pending', 'processing']);
  expect(CASES).toHaveLength(TABLE.length * 2 * 4);
});

test('an underpaid order stays unrefundable when more money, still too little, comes after it was final', async () => {
  // The payment service returns an underpaid order's money itself: a late part must not open the refund route.
  const store = new MemoryStore<InvoiceRecord>(() => NOW);
  await store.create(record('fill_or_kill'));
  const invoices = new InvoiceService(store, oneAccount({} as ProcessingApi), {
    now: () => NOW,
    leaseMs: 1,
    waitMs: 1,
    pollMs: 1,
  });
  const confirmed = {
    upstreamForeignId: 'order-1',
    status: 'confirmed' as const,
    source: 'callback' as const,
  };
  await invoices.applyStatus({
    ...confirmed,
    payment: sent('fill_or_kill', AMOUNTS.under),
    settlement: CREDIT,
  });
  await invoices.applyStatus({
    ...confirmed,
    payment: sent('fill_or_kill', '0.00080000'),
    settlement: { ...CREDIT, net: '95.04000000' },
  });

  const stored = (await store.get('order-1'))!;
  expect(stored.payment).toMatchObject({ amount: '0.00080000', coverage: 'short', late: true });
  expect(invoiceOutcome(stored)).toMatchObject({ status: 'underpaid', exception: 'paid_late' });
  expect(isRefundable(stored)).toBe(false);
  expect(refundRefusal(stored)).toBe('short_of_due');
});

test.each([
  ['cancelled', 'failed', SERVICE_FAILURES.cancelled],
  ['expired', 'failed', SERVICE_FAILURES.expiredUnpaid],
] as const)(
  'money short of what was due that lands on an invoice already %s is shown, and never refundable',
  async (shown, status, error) => {
    // Less than was set: the payment service e-mails the customer a full refund (spec 2.1, `email_user`).
    const store = new MemoryStore<InvoiceRecord>(() => NOW);
    await store.create(record('fill_or_kill'));
    const invoices = new InvoiceService(store, oneAccount({} as ProcessingApi), {
      now: () => NOW,
      leaseMs: 1,
      waitMs: 1,
      pollMs: 1,
    });
    const news = { upstreamForeignId: 'order-1', status, error, source: 'callback' as const };
    await invoices.applyStatus(news);
    await invoices.applyStatus({ ...news, payment: sent('fill_or_kill', AMOUNTS.under), settlement: CREDIT });

    const stored = (await store.get('order-1'))!;
    expect(stored.payment).toMatchObject({ coverage: 'short', late: true });
    expect(invoiceOutcome(stored)).toMatchObject({ status: shown, exception: 'paid_late' });
    expect(isRefundable(stored)).toBe(false);
    // By the quote, whatever remainder the service reports: the console's notice reads this reason.
    expect(refundRefusal(stored)).toBe('short_of_due');
  },
);

test("the refund route's reason for refusing an order: not paid, short of the quote, or not credited yet", async () => {
  const store = new MemoryStore<InvoiceRecord>(() => NOW);
  await store.create(record('fill_or_kill'));
  const invoices = new InvoiceService(store, oneAccount({} as ProcessingApi), {
    now: () => NOW,
    leaseMs: 1,
    waitMs: 1,
    pollMs: 1,
  });
  const reason = async () => refundRefusal((await store.get('order-1'))!);
  const news = { upstreamForeignId: 'order-1', source: 'callback' as const };

  expect(await reason()).toBe('not_paid');
  // The whole quote, though the service's own word says some remains.
  const remainder = { ...sent('fill_or_kill', DUE), remainingAmount: '0.00000100' };
  await invoices.applyStatus({ ...news, status: 'processing', payment: remainder });
  expect(await reason()).toBe('not_paid');
  await invoices.applyStatus({ ...news, status: 'confirmed', payment: remainder });
  expect((await store.get('order-1'))!.payment).toMatchObject({ owed: '0.00000100', coverage: 'exact' });
  expect(await reason()).toBe('not_credited');
  await invoices.applyStatus({ ...news, status: 'confirmed', payment: remainder, settlement: CREDIT });
  expect(await reason()).toBeUndefined();
  expect(isRefundable((await store.get('order-1'))!)).toBe(true);
});
