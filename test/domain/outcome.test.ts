// The one mapping from what the service said to what the store sees: a row per case a shop must tell apart.
import type { Payment } from '../../domain/model';
import {
  CANCEL_FAILURES,
  failedOnItsOwn,
  invoiceOutcome,
  SERVICE_FAILURES,
  type OutcomeFacts,
} from '../../domain/outcome';
import { awaitsLateMoney } from '../../domain/status';
import {
  CANCELLED_ERROR,
  EXPIRED_ERROR,
  EXPIRED_PARTLY_PAID_ERROR,
  UNDERPAID_ERROR,
} from '../../sandbox/invoices';

const paid = (coverage?: Payment['coverage'], late?: boolean): Payment => ({
  currency: 'BTC',
  amount: '0.00100000',
  ...(coverage && { coverage }),
  ...(late && { late }),
});

const facts = (overrides: Partial<OutcomeFacts>): OutcomeFacts => ({
  phase: 'sent',
  status: 'pending',
  error: null,
  cancelled: false,
  payment: null,
  ...overrides,
});

type Row = [string, Partial<OutcomeFacts>, string, boolean, string | null];

/** When we asked the service to cancel: written before the request was sent. */
const ASKED = Date.UTC(2030, 0, 1);

const rows: Row[] = [
  ['create in flight', { phase: 'sending', status: null }, 'creating', false, null],
  ['create outcome unknown', { phase: 'unknown', status: null }, 'creating', false, null],
  ['created, no timer', { status: 'created' }, 'awaiting_payment', false, null],
  ['pending', { status: 'pending' }, 'awaiting_payment', false, null],
  [
    'pending, part paid',
    { status: 'pending', payment: paid('short') },
    'awaiting_payment',
    false,
    'paid_partial',
  ],
  [
    'pending, paid, nothing due known',
    { status: 'pending', payment: paid() },
    'awaiting_payment',
    false,
    'paid_partial',
  ],
  ['payment confirming', { status: 'processing', payment: paid('exact') }, 'confirming', false, null],
  ['confirming, due unknown', { status: 'processing', payment: paid() }, 'confirming', false, null],
  [
    'confirming too little',
    { status: 'processing', payment: paid('short') },
    'confirming',
    false,
    'paid_partial',
  ],
  ['confirming too much', { status: 'processing', payment: paid('over') }, 'confirming', false, 'paid_over'],
  ['paid exactly', { status: 'confirmed', payment: paid('exact') }, 'paid', true, null],
  ['paid over', { status: 'confirmed', payment: paid('over') }, 'paid', true, 'paid_over'],
  ['paid, top-up after', { status: 'confirmed', payment: paid('over', true) }, 'paid', true, 'paid_late'],
  [
    'expired, nothing paid',
    { status: 'failed', error: SERVICE_FAILURES.expiredUnpaid },
    'expired',
    true,
    null,
  ],
  [
    'expired, then paid late',
    { status: 'failed', error: SERVICE_FAILURES.expiredUnpaid, payment: paid('exact', true) },
    'expired',
    true,
    'paid_late',
  ],
  [
    'expired "not paid", yet paid in time',
    { status: 'failed', error: SERVICE_FAILURES.expiredUnpaid, payment: paid('short') },
    'underpaid',
    true,
    null,
  ],
  [
    'expired, partly paid',
    { status: 'failed', error: SERVICE_FAILURES.expiredPartlyPaid, payment: paid('short') },
    'underpaid',
    true,
    null,
  ],
  [
    'underpaid, then topped up late',
    { status: 'failed', error: SERVICE_FAILURES.expiredPartlyPaid, payment: paid('exact', true) },
    'underpaid',
    true,
    'paid_late',
  ],
  [
    'paid less than required',
    { status: 'failed', error: SERVICE_FAILURES.underpaid, payment: paid('short') },
    'underpaid',
    true,
    null,
  ],
  ['cancelled by the store', { status: 'failed', error: 'ours', cancelled: true }, 'cancelled', true, null],
  [
    'cancelled, says the service',
    { status: 'failed', error: SERVICE_FAILURES.cancelled },
    'cancelled',
    true,
    null,
  ],
  [
    "cancelled, in the reference service's words",
    { status: 'failed', error: 'Cancelled by merchant.' },
    'cancelled',
    true,
    null,
  ],
  [
    'a cancel asked, not yet done',
    { status: 'pending', cancelAskedAt: ASKED },
    'awaiting_payment',
    false,
    null,
  ],
  [
    'a cancel asked, then failed in words we do not know',
    { status: 'failed', error: 'Closed on request.', cancelAskedAt: ASKED },
    'cancelled',
    true,
    null,
  ],
  [
    'a cancel asked, then failed with no words',
    { status: 'failed', error: '', cancelAskedAt: ASKED },
    'cancelled',
    true,
    null,
  ],
  [
    'a cancel asked, then paid late',
    { status: 'failed', error: 'Closed on request.', cancelAskedAt: ASKED, payment: paid('exact', true) },
    'cancelled',
    true,
    'paid_late',
  ],
  [
    'a cancel asked, but failed with money paid in time, in words we do not know',
    { status: 'failed', error: 'Closed on request.', cancelAskedAt: ASKED, payment: paid('short') },
    'failed',
    true,
    null,
  ],
  [
    'a cancel asked, but the timer ran out first',
    { status: 'failed', error: SERVICE_FAILURES.expiredUnpaid, cancelAskedAt: ASKED },
    'expired',
    true,
    null,
  ],
  [
    'a cancel asked, but too little was paid in time',
    {
      status: 'failed',
      error: SERVICE_FAILURES.expiredPartlyPaid,
      cancelAskedAt: ASKED,
      payment: paid('short'),
    },
    'underpaid',
    true,
    null,
  ],
  [
    'a cancel asked, but paid',
    { status: 'confirmed', cancelAskedAt: ASKED, payment: paid('exact') },
    'paid',
    true,
    null,
  ],
  ['failed, unknown text', { status: 'failed', error: 'Processing took too long' }, 'failed', true, null],
  [
    'failed, a text that only resembles one',
    { status: 'failed', error: 'timer expired' },
    'failed',
    true,
    null,
  ],
  ['failed, no text', { status: 'failed', error: '' }, 'failed', true, null],
  [
    'refused by the service',
    { phase: 'rejected', status: null, error: 'amount: too small' },
    'failed',
    true,
    null,
  ],
  ['given up on, until the store retries', { phase: 'abandoned', status: null }, 'creating', false, null],
];

test.each(rows)('%s', (_name, given, status, final, exception) => {
  expect(invoiceOutcome(facts(given))).toMatchObject({ status, final, exception });
});

test("both wordings of a cancel are known; neither is one of the service's own failures", () => {
  expect(CANCEL_FAILURES).toEqual([CANCELLED_ERROR, 'Cancelled by merchant.']);
  for (const text of CANCEL_FAILURES) expect(failedOnItsOwn(text)).toBe(false);
});

test.each<[string, boolean, Partial<OutcomeFacts>]>([
  ['cancelled in the reference words, our answer lost', true, { error: 'Cancelled by merchant.' }],
  ['failed in other words after our cancel was asked', true, { error: 'Closed.', cancelAskedAt: ASKED }],
  ['expired, a cancel asked too late', true, { error: SERVICE_FAILURES.expiredUnpaid, cancelAskedAt: ASKED }],
  ['failed in other words, no cancel asked', false, { error: 'Closed.' }],
  [
    'failed in other words with money paid in time',
    false,
    { error: 'Closed.', cancelAskedAt: ASKED, payment: paid('exact') },
  ],
])('an invoice %s: watched for late money, %s', (_name, watched, given) => {
  expect(awaitsLateMoney(facts({ status: 'failed', ...given }))).toBe(watched);
});

test('failure_message carries the service text for failed only', () => {
  expect(invoiceOutcome(facts({ status: 'failed', error: 'Processing took too long' })).failureMessage).toBe(
    'Processing took too long',
  );
  expect(
    invoiceOutcome(facts({ phase: 'rejected', status: null, error: 'amount: too small' })).failureMessage,
  ).toBe('amount: too small');
  expect(invoiceOutcome(facts({ status: 'failed', error: '' })).failureMessage).toBeNull();
  expect(invoiceOutcome(facts({ status: 'failed', error: EXPIRED_ERROR })).failureMessage).toBeNull();
});

test('the texts it knows are the ones the sandbox sends', () => {
  expect(SERVICE_FAILURES).toEqual({
    expiredUnpaid: EXPIRED_ERROR,
    expiredPartlyPaid: EXPIRED_PARTLY_PAID_ERROR,
    underpaid: UNDERPAID_ERROR,
    cancelled: CANCELLED_ERROR,
  });
});
