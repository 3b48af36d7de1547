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
          claim_expires_at: null,
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

// A store moved to its own account mid-run: its orders on either account, each where its record was claimed.
const STORE = 'shop-b';
const [OWN_ORDER, SHARED_ORDER] = ['order-2', 'order-3'];

function eventsOf(subject: string, statuses: string[]): ShopDelivery[] {
  return statuses.map((status, i) => ({ ...event(i + 1, status), eventId: `evt_${subject}_${i}`, subject }));
}

function paidView(foreignId: string, id: number, net: string, refundable: string): InvoiceView {
  return {
    ...goodHistory().final.invoices[ORDER]!,
    foreign_id: foreignId,
    processor_invoice_id: id,
    net_amount: net,
    refundable: { amount: refundable, currency: 'EUR' },
  };
}

/**
 * The good history, and a store that moved: one order claimed before the move, on the deployment's account under the
 * store's prefix and refunded there, one after it on the store's own account, whose invoice has the same numeric id
 * as the default store's order's (each account numbers its own).
 */
function movedHistory(): History {
  const history = goodHistory();
  history.orders.push(OWN_ORDER, SHARED_ORDER);
  history.stores = { [OWN_ORDER]: STORE, [SHARED_ORDER]: STORE };
  history.accounts = {
    invoices: { [ORDER]: 'shared', [OWN_ORDER]: 'own', [SHARED_ORDER]: 'shared' },
    refunds: { 'refund-1': 'shared', 'refund-3': 'shared' },
  };
  for (const order of [OWN_ORDER, SHARED_ORDER]) {
    history.calls.push({
      order,
      action: 'checkout',
      method: 'POST',
      path: '/checkout',
      status: 201,
      body: {},
      ms: 30,
    });
    history.deliveries.push(...eventsOf(order, ['awaiting_payment', 'confirming', 'paid']));
  }
  history.final.invoices[OWN_ORDER] = paidView(OWN_ORDER, 7, '30.00000000', '30.00000000');
  history.final.invoices[SHARED_ORDER] = paidView(SHARED_ORDER, 8, '10.00000000', '6.00000000');
  history.final.refunds['refund-3'] = {
    foreign_id: 'refund-3',
    invoice_foreign_id: SHARED_ORDER,
    status: 'confirmed',
    debited_amount: '4.00000000',
    debited_currency: 'EUR',
    transaction_id: 10,
    claim_expires_at: null,
  };
  const paid = { status: 'confirmed', error: '', currency: 'EUR', paid_amount: '0.001' };
  history.upstream.invoices.push({
    ...paid,
    id: 8,
    foreign_id: `${STORE}!${SHARED_ORDER}`,
    credited_amount: '10',
  });
  history.upstream.withdrawals.push({
    id: 10,
    foreign_id: `${STORE}!refund-3`,
    status: 'confirmed',
    sender_currency: 'EUR',
    sender_amount: '4',
  });
  history.upstream.withdrawalsAccepted.push(`${STORE}!refund-3`);
  history.upstream.balancesAfter.EUR = '1020.75';
  history.upstream.own = {
    [STORE]: {
      invoices: [{ ...paid, id: 7, foreign_id: OWN_ORDER, credited_amount: '30' }],
      withdrawals: [],
      withdrawalsAccepted: [],
      balancesBefore: { EUR: '1000' },
      balancesAfter: { EUR: '1030' },
    },
  };
  return history;
}

/** The subjects each invariant names, by number, for the invariants that fail. */
function named(history: History): Record<number, string[]> {
  return Object.fromEntries(
    check(history)
      .filter((result) => result.violations.length > 0)
      .map((result) => [result.number, result.violations.map((violation) => violation.subject)]),
  );
}

test('a store moved mid-run, its orders on either account where their records say, passes all nine', () => {
  expect(named(movedHistory())).toEqual({});
});

test("an order's invoice on the deployment's account when its record says its store's own breaks invariant 2", () => {
  const history = movedHistory();
  const own = history.upstream.own![STORE];
  history.upstream.invoices.push({ ...own.invoices[0], foreign_id: `${STORE}!${OWN_ORDER}` });
  own.invoices = [];
  const second = check(history)[1];
  expect(second.violations).toEqual(
    expect.arrayContaining([
      {
        subject: OWN_ORDER,
        detail: expect.stringContaining("is on the deployment's account as shop-b's"),
      },
    ]),
  );
  expect(new Set(second.violations.map((violation) => violation.subject))).toEqual(new Set([OWN_ORDER]));
});

test("an order's invoice under another store's prefix breaks invariant 2", () => {
  const history = movedHistory();
  history.upstream.invoices[1].foreign_id = `shop-c!${SHARED_ORDER}`;
  const second = check(history)[1];
  expect(second.violations).toEqual(
    expect.arrayContaining([{ subject: SHARED_ORDER, detail: expect.stringContaining("as shop-c's") }]),
  );
  expect(new Set(second.violations.map((violation) => violation.subject))).toEqual(new Set([SHARED_ORDER]));
});

test("a default store's order with an invoice on a moved store's own account breaks invariant 2", () => {
  const history = movedHistory();
  history.upstream.own![STORE].invoices.push({ ...history.upstream.invoices[0], id: 3 });
  expect(check(history)[1].violations).toEqual([
    { subject: ORDER, detail: expect.stringContaining("is on shop-b's own account") },
  ]);
});

test("money on a store's own account that its records do not account for breaks invariant 4", () => {
  const history = movedHistory();
  history.upstream.own![STORE].balancesAfter.EUR = '1029';
  expect(named(history)).toEqual({ 4: [`${STORE}:EUR`] });
});

test("a refund's withdrawal on another account than its record's breaks invariant 5", () => {
  const history = movedHistory();
  const withdrawal = history.upstream.withdrawals.pop()!;
  history.upstream.withdrawalsAccepted.pop();
  const own = history.upstream.own![STORE];
  own.withdrawals.push({ ...withdrawal, foreign_id: 'refund-3' });
  own.withdrawalsAccepted.push('refund-3');
  // The money went from the own account: each balance as the withdrawal left it.
  history.upstream.balancesAfter.EUR = '1024.75';
  own.balancesAfter.EUR = '1026';
  const fifth = named(history)[5];
  expect(fifth).toEqual(expect.arrayContaining(['refund-3']));
});

test('a withdrawal accepted twice on an own account breaks invariant 5', () => {
  const history = movedHistory();
  const own = history.upstream.own![STORE];
  own.withdrawalsAccepted.push(`${OWN_ORDER}-r0`, `${OWN_ORDER}-r0~2`);
  expect(named(history)[5]).toEqual(expect.arrayContaining([`${OWN_ORDER}-r0`]));
});

// Refunds by claim link: one its customer claimed (its address given twice at once), one the store cancelled, one
// still open and holding its amount on the order.
const [CLAIMED, CANCELLED, OPEN] = ['refund-1', 'refund-2', 'refund-3'];

function refundEvent(subject: string, sequence: number, status: string): ShopDelivery {
  return {
    ...event(sequence, status),
    eventId: `evt_${subject}_${sequence}`,
    type: `refund.${status}`,
    subject,
  };
}

/** A customer's or store's call about one refund, as the soak records it. */
function refundCall(refund: string, action: string, status: number, body: ApiCall['body']): ApiCall {
  const path =
    action === 'cancel-claim' ? `/refunds/${refund}/cancel-claim` : `/public/refund-claims/${refund}`;
  return { order: ORDER, refund, action, method: 'POST', path, status, body, ms: 20 };
}

function claimHistory(): History {
  const history = goodHistory();
  const { refunds } = history.final;
  const links = { claim_expires_at: '2026-01-01T03:00:00.000Z', transaction_id: null };
  refunds[CLAIMED] = { ...refunds[CLAIMED]!, claim_expires_at: links.claim_expires_at };
  refunds[CANCELLED] = { ...refunds[CLAIMED]!, ...links, foreign_id: CANCELLED, status: 'claim_cancelled' };
  refunds[OPEN] = {
    ...refunds[CLAIMED]!,
    ...links,
    foreign_id: OPEN,
    status: 'awaiting_claim',
    debited_amount: '4.75000000',
  };
  history.final.invoices[ORDER]!.refundable = { amount: '10.00000000', currency: 'EUR' };
  history.calls.push(
    refundCall(CLAIMED, 'claim-read', 200, { status: 'awaiting_claim' }),
    // A double submit: the second answer, sent as the first one's send began, is recorded after it.
    { ...refundCall(CLAIMED, 'claim', 200, { status: 'processing' }), alongside: true },
    { ...refundCall(CLAIMED, 'claim', 200, { status: 'sending' }), alongside: true },
    refundCall(CLAIMED, 'claim-read', 200, { status: 'processing' }),
    refundCall(CANCELLED, 'cancel-claim', 200, { status: 'claim_cancelled' }),
    refundCall(CANCELLED, 'claim', 409, { error: { code: 'claim_closed' } }),
  );
  history.deliveries.push(
    ...['awaiting_claim', 'processing', 'confirmed'].map((status, i) => refundEvent(CLAIMED, i + 1, status)),
    ...['awaiting_claim', 'claim_cancelled'].map((status, i) => refundEvent(CANCELLED, i + 1, status)),
    refundEvent(OPEN, 1, 'awaiting_claim'),
  );
  return history;
}

test('claim links claimed, cancelled and open, each where its status says, pass all nine', () => {
  expect(named(claimHistory())).toEqual({});
});

test('a claim link whose address was sent twice breaks invariant 5 (and 4: the money left twice)', () => {
  const history = claimHistory();
  history.upstream.withdrawals.push({
    ...history.upstream.withdrawals[0],
    id: 11,
    foreign_id: `${CLAIMED}~2`,
  });
  history.upstream.withdrawalsAccepted.push(`${CLAIMED}~2`);
  history.upstream.balancesAfter.EUR = '1004.75';
  expect(named(history)).toEqual({ 4: ['EUR'], 5: [CLAIMED, CLAIMED] });
  expect(check(history)[4].violations[1].detail).toContain('its address taken, with 2 withdrawals');
});

test.each(['claim_cancelled', 'claim_expired'])(
  'a claim link ended %s with a withdrawal sent for it breaks invariant 5 (and 4)',
  (status) => {
    const history = claimHistory();
    if (status === 'claim_expired') {
      // No one cancelled it: its link ran out.
      history.final.refunds[CANCELLED]!.status = status;
      history.calls = history.calls.filter((call) => call.refund !== CANCELLED);
      history.deliveries = history.deliveries.map((delivery) =>
        delivery.eventId === `evt_${CANCELLED}_2` ? refundEvent(CANCELLED, 2, status) : delivery,
      );
    }
    history.upstream.withdrawals.push({
      id: 12,
      foreign_id: CANCELLED,
      status: 'confirmed',
      sender_currency: 'EUR',
      sender_amount: '10',
    });
    history.upstream.withdrawalsAccepted.push(CANCELLED);
    history.upstream.balancesAfter.EUR = '1004.75';
    expect(named(history)).toEqual({ 4: ['EUR'], 5: [CANCELLED] });
    expect(check(history)[4].violations[0].detail).toContain('no address taken, with 1 withdrawals');
  },
);

test("an open claim link's amount released on the order's view breaks invariant 3", () => {
  const history = claimHistory();
  history.final.invoices[ORDER]!.refundable = { amount: '14.75000000', currency: 'EUR' };
  expect(named(history)).toEqual({ 3: [ORDER] });
});

test('an open claim link holding more than the order has left breaks invariant 4', () => {
  const history = claimHistory();
  history.final.refunds[OPEN]!.debited_amount = '20.00000000';
  history.final.invoices[ORDER]!.refundable = { amount: '-5.25000000', currency: 'EUR' };
  expect(named(history)).toEqual({ 4: [ORDER] });
});

test('a claim link left open past its expiry breaks invariant 1', () => {
  const history = claimHistory();
  history.final.refunds[OPEN]!.claim_expires_at = '2026-01-01T00:30:00.000Z';
  expect(named(history)).toEqual({ 1: [OPEN] });
});

test('a cancelled claim link that a webhook then carries as sent breaks invariant 6', () => {
  const history = claimHistory();
  history.deliveries.push(refundEvent(CANCELLED, 3, 'processing'));
  expect(named(history)).toEqual({ 6: [CANCELLED] });
});

test("a customer's answer that saw the claim sent, when it ends open, breaks invariant 6", () => {
  const history = claimHistory();
  history.calls.push({ ...refundCall(OPEN, 'claim', 200, { status: 'processing' }), alongside: true });
  expect(named(history)).toEqual({ 6: [OPEN] });
});
