import { Decimal } from '../domain/decimal';
import { CANCELLED_ERROR } from '../sandbox/invoices';
import type { ApiCall, History, InvoiceView, RefundView, ShopDelivery, UpstreamInvoice } from './history';

/** One broken guarantee: the order (or refund) it concerns and what shows it. */
export interface CounterExample {
  subject: string;
  detail: string;
}

export interface InvariantResult {
  number: number;
  name: string;
  /** How many orders, calls or items it looked at. */
  checked: number;
  violations: CounterExample[];
}

/** DynamoDB's item limit: 400 KB, names and values counted in UTF-8 bytes. */
export const DYNAMODB_ITEM_LIMIT_BYTES = 400 * 1024;

const DOCUMENTED_5XX = new Set([502, 503, 504]);
const FINAL_STATUSES = new Set(['paid', 'underpaid', 'expired', 'cancelled', 'failed']);
const OPEN_UPSTREAM = new Set(['created', 'pending', 'processing']);
/** A refund that no longer counts against what its order netted. */
const NOT_COUNTING = new Set(['failed', 'rejected']);

export const INVARIANTS = [
  'every order ends final, or is open only because its time has not run out',
  'one upstream invoice per order the storefront saw created, none for the others, no cancel we did not mean',
  'every payment the service credited is visible, and refundable up to what was credited, never more',
  "refunds stay within what each order netted; the service's balances equal what the plugin's records account for",
  'no withdrawal sent twice for one refund, none adopted that is not ours',
  'statuses seen by polls and by webhooks never go backwards',
  "every status or exception change reached the shop's endpoint, in sequence, signed",
  'no 5xx but the documented 502/503/504, and none after the function timeout',
  "no item written past DynamoDB's 400 KB limit",
] as const;

/** Runs the nine invariants over a recorded history. */
export function check(history: History): InvariantResult[] {
  const facts = new Facts(history);
  const checks = [
    endsFinal,
    oneInvoicePerOrder,
    paymentsVisible,
    moneyAddsUp,
    withdrawalsOnce,
    neverBackwards,
    eventsDelivered,
    documentedAnswers,
    itemsWithinLimit,
  ];
  return checks.map((run, index) => {
    const { checked, violations } = run(facts);
    return { number: index + 1, name: INVARIANTS[index], checked, violations };
  });
}

/** The history indexed by order. */
class Facts {
  readonly upstreamByOrder = new Map<string, UpstreamInvoice[]>();
  readonly callsByOrder = new Map<string, ApiCall[]>();
  readonly eventsBySubject = new Map<string, ShopDelivery[]>();
  readonly refundsByOrder = new Map<string, RefundView[]>();

  constructor(readonly history: History) {
    for (const refund of Object.values(history.final.refunds))
      if (refund) push(this.refundsByOrder, refund.invoice_foreign_id, refund);
    for (const invoice of history.upstream.invoices)
      push(this.upstreamByOrder, base(invoice.foreign_id), invoice);
    for (const call of history.calls) if (call.order) push(this.callsByOrder, call.order, call);
    // Received events, each id once, in sequence order.
    const seen = new Set<string>();
    for (const delivery of history.deliveries) {
      if (!delivery.verified || delivery.answered < 200 || delivery.answered > 299) continue;
      if (seen.has(delivery.eventId)) continue;
      seen.add(delivery.eventId);
      push(this.eventsBySubject, `${delivery.type.split('.')[0]}:${delivery.subject}`, delivery);
    }
    for (const events of this.eventsBySubject.values()) events.sort((a, b) => a.sequence - b.sequence);
  }

  view(order: string): InvoiceView | null {
    return this.history.final.invoices[order] ?? null;
  }

  calls(order: string, action?: string): ApiCall[] {
    return (this.callsByOrder.get(order) ?? []).filter((call) => !action || call.action === action);
  }

  sawCreated(order: string): boolean {
    return this.calls(order, 'checkout').some((call) => call.status === 200 || call.status === 201);
  }

  /** The upstream invoice the order's view names. */
  live(order: string): UpstreamInvoice | undefined {
    const id = this.view(order)?.processor_invoice_id;
    return id == null ? undefined : this.upstreamByOrder.get(order)?.find((invoice) => invoice.id === id);
  }

  invoiceEvents(order: string): ShopDelivery[] {
    return this.eventsBySubject.get(`invoice:${order}`) ?? [];
  }

  /** The order's refunds that still count, as the plugin's refund views say. */
  countingRefunds(order: string): RefundView[] {
    return this.refunds(order).filter((refund) => !NOT_COUNTING.has(refund.status));
  }

  /** The order's refunds, as the plugin's refund views name them. */
  refunds(order: string): RefundView[] {
    return this.refundsByOrder.get(order) ?? [];
  }
}

type Check = (facts: Facts) => { checked: number; violations: CounterExample[] };

const endsFinal: Check = (facts) => {
  const violations: CounterExample[] = [];
  for (const order of facts.history.orders) {
    const view = facts.view(order);
    if (!view || view.final) continue;
    const live = facts.live(order);
    const expiresAt = view.expires_at ? Date.parse(view.expires_at) : undefined;
    const timeLeft = expiresAt === undefined || expiresAt > facts.history.endedAt;
    if (live && OPEN_UPSTREAM.has(live.status) && timeLeft) continue;
    violations.push({
      subject: order,
      detail: `open as ${view.status} (expires_at ${view.expires_at}); the service says ${
        live ? `${live.status} "${live.error}"` : 'no invoice of ours'
      }`,
    });
  }
  return { checked: facts.history.orders.length, violations };
};

const oneInvoicePerOrder: Check = (facts) => {
  const violations: CounterExample[] = [];
  for (const order of facts.history.orders) {
    const upstream = facts.upstreamByOrder.get(order) ?? [];
    const live = facts.live(order);
    const cancelledByUs = (invoice: UpstreamInvoice) =>
      invoice.status === 'failed' && invoice.error === CANCELLED_ERROR;
    if (facts.sawCreated(order) && !live) {
      violations.push({
        subject: order,
        detail: `the storefront saw it created, but its view names no invoice the service holds (${upstream.length} upstream)`,
      });
    }
    for (const invoice of upstream) {
      if (invoice === live) {
        if (cancelledByUs(invoice) && facts.calls(order, 'cancel').length === 0) {
          violations.push({
            subject: order,
            detail: `invoice ${invoice.id} cancelled upstream, no cancel asked`,
          });
        }
        continue;
      }
      if (!cancelledByUs(invoice)) {
        violations.push({
          subject: order,
          detail: `a second upstream invoice ${invoice.foreign_id} (${invoice.id}) left ${invoice.status}, the view names ${
            live?.id ?? 'none'
          }`,
        });
      }
    }
  }
  return { checked: facts.history.orders.length, violations };
};

const paymentsVisible: Check = (facts) => {
  const violations: CounterExample[] = [];
  let checked = 0;
  for (const order of facts.history.orders) {
    const view = facts.view(order);
    const live = facts.live(order);
    for (const invoice of facts.upstreamByOrder.get(order) ?? []) {
      if (invoice !== live && dec(invoice.paid_amount).gt(0)) {
        violations.push({
          subject: order,
          detail: `${invoice.paid_amount} paid on upstream invoice ${invoice.id}, which the order's view does not name`,
        });
      }
    }
    if (!live || !view || dec(live.paid_amount).isZero()) continue;
    checked++;
    if (!dec(view.paid_amount).eq(live.paid_amount)) {
      violations.push({
        subject: order,
        detail: `the service saw ${live.paid_amount} paid, the view shows ${view.paid_amount} (${view.status})`,
      });
    }
    if (live.credited_amount === null || dec(live.credited_amount).isZero()) continue;
    if (!dec(view.net_amount ?? 0).eq(live.credited_amount)) {
      violations.push({
        subject: order,
        detail: `the service credited ${live.credited_amount}, the view's net_amount is ${view.net_amount} (${view.status}/${view.exception})`,
      });
    }
    const left = dec(live.credited_amount).minus(
      sum(facts.countingRefunds(order).map((refund) => refund.debited_amount)),
    );
    const refundable = view.refundable?.amount;
    if (refundable === undefined || refundable === null || !dec(refundable).eq(left)) {
      violations.push({
        subject: order,
        detail: `credited ${live.credited_amount}, refunds counting leave ${left.toFixed(8)}, the view's refundable is ${
          refundable ?? null
        } (${view.status}/${view.exception})`,
      });
    }
  }
  return { checked, violations };
};

const moneyAddsUp: Check = (facts) => {
  const { history } = facts;
  const violations: CounterExample[] = [];
  const withdrawals = new Map(history.upstream.withdrawals.map((w) => [base(w.foreign_id), w]));
  for (const order of history.orders) {
    const sent = facts
      .refunds(order)
      .map((refund) => withdrawals.get(refund.foreign_id))
      .filter((w) => w !== undefined && w.status !== 'failed');
    const credited = facts.live(order)?.credited_amount ?? '0';
    const total = sum(sent.map((w) => w!.sender_amount));
    if (total.gt(credited)) {
      violations.push({
        subject: order,
        detail: `withdrawals not failed total ${total.toFixed(8)}, more than the ${credited} credited`,
      });
    }
  }
  // The service's balances against what the plugin's records say came in and went out.
  const expected = new Map<string, Decimal>();
  const add = (currency: string, amount: Decimal | string) =>
    expected.set(currency, (expected.get(currency) ?? new Decimal(0)).plus(amount));
  for (const [currency, balance] of Object.entries(history.upstream.balancesBefore)) add(currency, balance);
  for (const view of Object.values(history.final.invoices)) {
    if (view?.net_currency && view.net_amount) add(view.net_currency, view.net_amount);
  }
  for (const refund of Object.values(history.final.refunds)) {
    if (refund && !NOT_COUNTING.has(refund.status))
      add(refund.debited_currency, dec(refund.debited_amount).neg());
  }
  for (const [currency, balance] of Object.entries(history.upstream.balancesAfter)) {
    const ours = expected.get(currency) ?? new Decimal(0);
    if (!ours.eq(balance)) {
      violations.push({
        subject: currency,
        detail: `the service's balance is ${balance}, the plugin's records account for ${ours.toFixed(8)}`,
      });
    }
  }
  return { checked: history.orders.length + Object.keys(history.upstream.balancesAfter).length, violations };
};

const withdrawalsOnce: Check = (facts) => {
  const { history } = facts;
  const violations: CounterExample[] = [];
  const accepted = new Map<string, number>();
  for (const foreignId of history.upstream.withdrawalsAccepted) {
    accepted.set(base(foreignId), (accepted.get(base(foreignId)) ?? 0) + 1);
  }
  for (const [refund, count] of accepted) {
    if (count > 1)
      violations.push({ subject: refund, detail: `${count} withdrawals accepted for one refund` });
  }
  const byId = new Map(history.upstream.withdrawals.map((w) => [w.id, w]));
  for (const refund of Object.values(history.final.refunds)) {
    if (!refund || refund.transaction_id == null) continue;
    const withdrawal = byId.get(refund.transaction_id);
    if (!withdrawal || base(withdrawal.foreign_id) !== refund.foreign_id) {
      violations.push({
        subject: refund.foreign_id,
        detail: `the refund names withdrawal ${refund.transaction_id}, which the service holds under ${
          withdrawal?.foreign_id ?? 'nothing'
        }`,
      });
    }
  }
  for (const withdrawal of history.upstream.withdrawals) {
    if (!history.final.refunds[base(withdrawal.foreign_id)]) {
      violations.push({
        subject: withdrawal.foreign_id,
        detail: `withdrawal ${withdrawal.id} (${withdrawal.sender_amount} ${withdrawal.sender_currency}) belongs to no refund the plugin holds`,
      });
    }
  }
  return { checked: accepted.size + history.upstream.withdrawals.length, violations };
};

/** Where a status stands: a final one may never give way to another. */
const RANK: Record<string, number> = { creating: 0, awaiting_payment: 1, confirming: 2 };
const rank = (status: string) => RANK[status] ?? 3;

function backwards(statuses: string[]): string | undefined {
  for (let i = 1; i < statuses.length; i++) {
    const [before, after] = [statuses[i - 1], statuses[i]];
    if (rank(after) < rank(before) || (FINAL_STATUSES.has(before) && after !== before)) {
      return `${before} then ${after} (${statuses.join(' > ')})`;
    }
  }
  return undefined;
}

const neverBackwards: Check = (facts) => {
  const violations: CounterExample[] = [];
  for (const order of facts.history.orders) {
    const polled = facts.calls(order, 'poll').filter((call) => call.status === 200);
    const byPolls = backwards(polled.map((call) => call.body.status ?? ''));
    if (byPolls) violations.push({ subject: order, detail: `polls saw ${byPolls}` });
    const byEvents = backwards(facts.invoiceEvents(order).map((event) => event.status ?? ''));
    if (byEvents) violations.push({ subject: order, detail: `webhooks carried ${byEvents}` });
  }
  return { checked: facts.history.orders.length, violations };
};

const eventsDelivered: Check = (facts) => {
  const { history } = facts;
  const violations: CounterExample[] = [];
  for (const delivery of history.deliveries) {
    if (!delivery.verified) {
      violations.push({ subject: delivery.subject, detail: `event ${delivery.eventId} did not verify` });
    }
  }
  for (const [subject, events] of facts.eventsBySubject) {
    const sequences = events.map((event) => event.sequence);
    const missing = [];
    for (let expected = 1; expected <= Math.max(...sequences); expected++) {
      if (!sequences.includes(expected)) missing.push(expected);
    }
    if (missing.length > 0) {
      violations.push({
        subject,
        detail: `sequences ${missing.join(', ')} never received (got ${sequences})`,
      });
    }
  }
  for (const order of history.orders) {
    const view = facts.view(order);
    if (!view || view.status === 'creating') continue;
    const events = facts.invoiceEvents(order);
    const last = events.at(-1);
    if (!last || last.status !== view.status || last.exception !== view.exception) {
      violations.push({
        subject: order,
        detail: `the view ends ${view.status}/${view.exception}, the last event received says ${
          last ? `${last.status}/${last.exception} (seq ${last.sequence})` : 'nothing'
        }`,
      });
    }
    const pushed = new Set(events.map((event) => event.status));
    for (const call of facts.calls(order, 'poll')) {
      const status = call.status === 200 ? call.body.status : undefined;
      if (status && status !== 'creating' && !pushed.has(status)) {
        violations.push({ subject: order, detail: `a poll saw ${status}, no event ever carried it` });
        break;
      }
    }
  }
  return { checked: history.deliveries.length, violations };
};

const documentedAnswers: Check = (facts) => {
  const violations: CounterExample[] = [];
  for (const call of facts.history.calls) {
    const subject = call.order ?? call.path;
    if (call.killed) continue;
    if (call.status >= 500 && !DOCUMENTED_5XX.has(call.status)) {
      violations.push({
        subject,
        detail: `${call.method} ${call.path} (${call.action}) answered ${call.status} ${JSON.stringify(call.body).slice(0, 200)}`,
      });
    }
    // The function's own time, as Lambda times it: the caller's wall time also holds the local runner's queueing.
    const timeout = facts.history.apiTimeoutMs;
    if (call.functionMs !== undefined && call.functionMs > timeout) {
      violations.push({
        subject,
        detail: `${call.method} ${call.path} answered after ${call.functionMs} ms (${call.ms} ms for the caller), past the ${timeout} ms timeout`,
      });
    } else if (call.functionMs === undefined && call.status === 500) {
      violations.push({
        subject,
        detail: `${call.method} ${call.path} answered by the gateway after ${call.ms} ms: its function did not answer within the ${timeout} ms timeout`,
      });
    }
  }
  return { checked: facts.history.calls.length, violations };
};

const itemsWithinLimit: Check = (facts) => {
  const { largestItems, refusedForSize } = facts.history.store;
  const violations: CounterExample[] = [
    ...largestItems
      .filter((item) => item.bytes > DYNAMODB_ITEM_LIMIT_BYTES)
      .map((item) => ({
        subject: item.key,
        detail: `an item of ${item.bytes} bytes`,
      })),
    ...refusedForSize.map((key) => ({
      subject: key,
      detail: 'a write refused for its size',
    })),
  ];
  return { checked: largestItems.length, violations };
};

/** An upstream foreign_id names its order before any `~n` of a later attempt. */
function base(foreignId: string): string {
  return foreignId.split('~')[0];
}

function dec(value: Decimal | string | number): Decimal {
  return new Decimal(value);
}

function sum(values: Array<Decimal | string>): Decimal {
  return values.reduce<Decimal>((total, value) => total.plus(value), new Decimal(0));
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
