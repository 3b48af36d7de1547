import { check, DYNAMODB_ITEM_LIMIT_BYTES, INVARIANTS } from '../../soak/checker';
import type { ApiCall, History, InvoiceView, ShopDelivery } from '../../soak/history';
import { CANCELLED_ERROR } from '../../sandbox/invoices';

// Each invariant is shown able to fail: a history that keeps every guarantee passes all nine, and each mutation
// below breaks one and is reported by that one.

const ORDER = 'order-1';

function event(sequence: number, status: string, exception: string | null = null): ShopDelivery {
  return {
    eventId: `evt_${sequence}`,
    type: `invoice.${status}`,
    sequence,
    subject: ORDER,
    status,
    exception,
    verified: true,
    answered: 200,
  };
}

/** The order's poll, as the soak records it: what the route answered, quickly. */
function poll(status: number, body: ApiCall['body']): ApiCall {
  return { order: ORDER, action: 'poll', method: 'GET', path: `/invoices/${ORDER}`, status, body, ms: 5 };
}

/** One order created, paid, refunded in part; every fact agrees. */
function goodHistory(): History {
  const view: InvoiceView = {
    foreign_id: ORDER,
    status: 'paid',
    final: true,
    exception: null,
    processor_invoice_id: 7,
    paid_amount: '0.00100000',
    net_amount: '24.75000000',
    net_currency: 'EUR',
    refundable: { amount: '14.75000000', currency: 'EUR' },
    expires_at: '2026-01-01T00:15:00.000Z',
  };
  return {
    seed: 1,
    orders: [ORDER],
    calls: [
      { order: ORDER, action: 'checkout', method: 'POST', path: '/checkout', status: 201, body: {}, ms: 30 },
      poll(200, { status: 'awaiting_payment' }),
      poll(200, { status: 'paid' }),
      {
        order: ORDER,
        action: 'refund',
        method: 'POST',
        path: `/invoices/${ORDER}/refunds`,
        status: 504,
        body: {},
        ms: 900,
      },
    ],
    deliveries: [event(1, 'awaiting_payment'), event(2, 'confirming'), event(3, 'paid')],
    final: {
      invoices: { [ORDER]: view },
      refunds: {
        'refund-1': {
          foreign_id: 'refund-1',
          invoice_foreign_id: ORDER,
          status: 'confirmed',
          debited_amount: '10.00000000',
          debited_currency: 'EUR',
          transaction_id: 9,
        },
      },
    },
    upstream: {
      invoices: [
        {
          id: 7,
          foreign_id: ORDER,
          status: 'confirmed',
          error: '',
          currency: 'EUR',
          paid_amount: '0.001',
          credited_amount: '24.75',
        },
      ],
      withdrawals: [
        { id: 9, foreign_id: 'refund-1', status: 'confirmed', sender_currency: 'EUR', sender_amount: '10' },
      ],
      withdrawalsAccepted: ['refund-1'],
      balancesBefore: { EUR: '1000' },
      balancesAfter: { EUR: '1014.75' },
    },
    store: { largestItems: [{ key: `INVOICE#${ORDER}`, bytes: 3000 }], refusedForSize: [] },
    endedAt: Date.parse('2026-01-01T01:00:00.000Z'),
    apiTimeoutMs: 25_000,
  };
}

function failing(history: History): number[] {
  return check(history)
    .filter((result) => result.violations.length > 0)
    .map((result) => result.number);
}

test('a history that keeps every guarantee passes all nine invariants', () => {
  const results = check(goodHistory());
  expect(results.map((result) => result.name)).toEqual([...INVARIANTS]);
  expect(results.filter((result) => result.violations.length > 0)).toEqual([]);
});

const breakages: Array<[number, string, (history: History) => void]> = [
  [
    1,
    'an order left open though the service confirmed its invoice',
    (h) => {
      h.final.invoices[ORDER] = { ...h.final.invoices[ORDER]!, status: 'confirming', final: false };
      h.deliveries = h.deliveries.slice(0, 2);
      h.calls = h.calls.filter((call) => call.body.status !== 'paid');
    },
  ],
  [
    2,
    'a second upstream invoice left open',
    (h) => {
      h.upstream.invoices.push({
        id: 8,
        foreign_id: `${ORDER}~2`,
        status: 'pending',
        error: '',
        currency: 'EUR',
        paid_amount: '0',
        credited_amount: null,
      });
    },
  ],
  [
    2,
    'the invoice cancelled upstream with no cancel asked',
    (h) => {
      h.upstream.invoices[0] = {
        ...h.upstream.invoices[0],
        status: 'failed',
        error: CANCELLED_ERROR,
        paid_amount: '0',
        credited_amount: null,
      };
      h.final.invoices[ORDER] = {
        ...h.final.invoices[ORDER]!,
        status: 'cancelled',
        net_amount: '0',
        net_currency: null,
        refundable: null,
        paid_amount: '0',
      };
      h.final.refunds = {};
      h.upstream.withdrawals = [];
      h.upstream.withdrawalsAccepted = [];
      h.upstream.balancesAfter.EUR = '1000';
      h.deliveries = [event(1, 'awaiting_payment'), event(2, 'cancelled')];
      h.calls = h.calls.filter((call) => call.action !== 'poll');
    },
  ],
  [
    3,
    'a credited payment the view does not show as refundable',
    (h) => {
      h.final.invoices[ORDER] = {
        ...h.final.invoices[ORDER]!,
        refundable: { amount: '24.75000000', currency: 'EUR' },
      };
    },
  ],
  [
    4,
    "a balance the plugin's records do not account for",
    (h) => {
      h.upstream.balancesAfter.EUR = '1004.75';
    },
  ],
  [
    5,
    'a withdrawal accepted twice for one refund',
    (h) => {
      h.upstream.withdrawalsAccepted.push('refund-1~2');
    },
  ],
  [
    6,
    'a poll that saw a paid order awaiting payment again',
    (h) => {
      h.calls.push(poll(200, { status: 'awaiting_payment' }));
    },
  ],
  [
    7,
    'a webhook event skipped',
    (h) => {
      h.deliveries.splice(1, 1);
    },
  ],
  [
    7,
    'a webhook that did not verify',
    (h) => {
      h.deliveries.push({ ...event(4, 'paid'), verified: false, answered: 401 });
    },
  ],
  [
    8,
    'an undocumented 500',
    (h) => {
      h.calls.push(poll(500, {}));
    },
  ],
  [
    8,
    'a function that answered past its timeout',
    (h) => {
      h.calls.push({ ...h.calls[3], ms: 25_400, functionMs: 25_100 });
    },
  ],
  [
    8,
    "the gateway's answer for a function that did not answer within its timeout",
    (h) => {
      h.calls.push({ ...poll(500, { message: 'Internal Server Error' }), ms: 25_050 });
    },
  ],
  [
    9,
    'an item past 400 KB',
    (h) => {
      h.store.largestItems.push({ key: `INVOICE#${ORDER}`, bytes: DYNAMODB_ITEM_LIMIT_BYTES + 1 });
    },
  ],
];

test.each(breakages)('invariant %i reports %s', (number, _what, breakIt) => {
  const history = goodHistory();
  breakIt(history);
  const results = check(history);
  const result = results[number - 1];
  expect(result.violations.length).toBeGreaterThan(0);
  expect(result.violations[0].subject).toEqual(expect.any(String));
  expect(failing(history)).toEqual([number]);
});

test('a busy machine is not a late answer: past the timeout for the caller, within it for the function', () => {
  const history = goodHistory();
  // The local runner queued the request and its answer in its one busy process; the function answered in time.
  history.calls.push({ ...history.calls[3], ms: 28_035, functionMs: 24_100 });
  expect(failing(history)).toEqual([]);
});

test('more refunds netted than credited break invariant 4, per order', () => {
  const history = goodHistory();
  history.upstream.withdrawals[0].sender_amount = '30';
  expect(check(history)[3].violations.map((v) => v.subject)).toContain(ORDER);
});

test('a cancelled order whose credit is hidden breaks invariant 3', () => {
  const history = goodHistory();
  history.final.invoices[ORDER] = {
    ...history.final.invoices[ORDER]!,
    status: 'cancelled',
    refundable: null,
  };
  const third = check(history)[2];
  expect(third.violations.map((v) => v.subject)).toContain(ORDER);
});

test('late money hidden on a final invoice whose callback was dropped breaks invariants 3 and 4', () => {
  const history = goodHistory();
  history.upstream.invoices[0] = {
    ...history.upstream.invoices[0],
    status: 'failed',
    error: 'Timer expired. User not paid.',
  };
  history.final.invoices[ORDER] = {
    ...history.final.invoices[ORDER]!,
    status: 'expired',
    paid_amount: '0',
    net_amount: '0',
    refundable: null,
  };
  history.final.refunds = {};
  history.upstream.withdrawals = [];
  history.upstream.withdrawalsAccepted = [];
  history.upstream.balancesAfter.EUR = '1024.75';
  history.callbacks = [{ subject: ORDER, status: 'failed', fate: 'drop' }];

  const results = check(history);

  expect(results[2].violations.map((v) => v.subject)).toEqual([ORDER, ORDER, ORDER]);
  expect(results[3].violations).toEqual([expect.objectContaining({ subject: 'EUR' })]);
});
