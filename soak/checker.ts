import { Decimal } from '../domain/decimal';
import { CANCELLED_ERROR } from '../sandbox/invoices';
import type {
  AccountKind,
  ApiCall,
  History,
  InvoiceView,
  RefundView,
  ShopDelivery,
  UpstreamAccount,
  UpstreamInvoice,
  UpstreamWithdrawal,
} from './history';

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
/** A refund that no longer counts against what its order netted; one awaiting approval or a claim still does. */
const NOT_COUNTING = new Set([
  'failed',
  'rejected',
  'declined',
  'cancelled',
  'claim_expired',
  'claim_cancelled',
]);
/** A claim link's refund that took no address: nothing may be sent for it. */
const UNCLAIMED = new Set(['awaiting_claim', 'claim_expired', 'claim_cancelled']);
/** A refund whose withdrawal the service has not taken yet, or refused. */
const NOT_TAKEN = new Set(['sending', 'rejected']);
/** A withdrawal's end at the service that leaves the money on the balance. */
const NOT_SENT = new Set(['failed', 'declined', 'cancelled']);

export const INVARIANTS = [
  'every order and claim link ends final, or is open only because its time has not run out',
  'one upstream invoice per order the storefront saw created, on the account its record was claimed on, none for the others, no cancel we did not mean',
  'every payment the service credited is visible, and refundable up to what was credited, never more',
  "refunds, open claim links among them, stay within what each order netted; the service's balances equal what the plugin's records account for",
  'no withdrawal sent twice for one refund, none adopted that is not ours; one for a claim link given an address, none for one that took none',
  "orders' and refunds' statuses seen by polls, claim pages and webhooks never go backwards",
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

/** The default store: its orders' foreign_ids go to the deployment's account as they are. */
const DEFAULT_STORE = 'default';
/** Between a store's id and its foreign_id on the deployment's account. */
const STORE_SEPARATOR = '!';

/** Where a record of the service's is: its account, the store it belongs to, and the order or refund it is about. */
interface Placement {
  account: AccountKind;
  store: string;
  subject: string;
}

/** The history indexed by order, each upstream record placed on its account and store. */
class Facts {
  readonly upstreamByOrder = new Map<string, UpstreamInvoice[]>();
  readonly callsByOrder = new Map<string, ApiCall[]>();
  readonly callsByRefund = new Map<string, ApiCall[]>();
  readonly eventsBySubject = new Map<string, ShopDelivery[]>();
  readonly refundsByOrder = new Map<string, RefundView[]>();
  /** Every account the run used, the deployment's first, with the store an own account belongs to. */
  readonly accounts: Array<{ account: AccountKind; store?: string; records: UpstreamAccount }>;
  private readonly placements = new Map<UpstreamInvoice | UpstreamWithdrawal, Placement>();

  constructor(readonly history: History) {
    const { own = {}, ...shared } = history.upstream;
    this.accounts = [
      { account: 'shared', records: shared },
      ...Object.entries(own).map(([store, records]) => ({ account: 'own' as const, store, records })),
    ];
    for (const refund of Object.values(history.final.refunds))
      if (refund) push(this.refundsByOrder, refund.invoice_foreign_id, refund);
    for (const { account, store, records } of this.accounts) {
      for (const invoice of records.invoices) {
        const placement = place(account, store, invoice.foreign_id);
        this.placements.set(invoice, placement);
        push(this.upstreamByOrder, placement.subject, invoice);
      }
      for (const withdrawal of records.withdrawals)
        this.placements.set(withdrawal, place(account, store, withdrawal.foreign_id));
    }
    for (const call of history.calls) {
      if (call.order) push(this.callsByOrder, call.order, call);
      if (call.refund) push(this.callsByRefund, call.refund, call);
    }
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

  storeOf(order: string): string {
    return this.history.stores?.[order] ?? DEFAULT_STORE;
  }

  /** The account the order's record was claimed on. */
  invoiceAccount(order: string): AccountKind {
    return this.history.accounts?.invoices[order] ?? 'shared';
  }

  /** The account the refund's record was claimed on. */
  refundAccount(refund: RefundView): AccountKind {
    return this.history.accounts?.refunds[refund.foreign_id] ?? 'shared';
  }

  placement(record: UpstreamInvoice | UpstreamWithdrawal): Placement {
    return this.placements.get(record)!;
  }

  /** Whether an upstream invoice is on the account and under the store of the order's record. */
  whereRecordSays(order: string, invoice: UpstreamInvoice): boolean {
    const { account, store } = this.placement(invoice);
    return account === this.invoiceAccount(order) && store === this.storeOf(order);
  }

  /** The upstream invoice the order's view names, on the account its record was claimed on. */
  live(order: string): UpstreamInvoice | undefined {
    const id = this.view(order)?.processor_invoice_id;
    return id == null
      ? undefined
      : this.upstreamByOrder
          .get(order)
          ?.find((invoice) => invoice.id === id && this.whereRecordSays(order, invoice));
  }

  /** The refund's withdrawals on the account its record was claimed on. */
  withdrawalsOf(refund: RefundView): UpstreamWithdrawal[] {
    const account = this.refundAccount(refund);
    const store = this.storeOf(refund.invoice_foreign_id ?? '');
    return this.accounts
      .filter((entry) => entry.account === account && (account === 'shared' || entry.store === store))
      .flatMap((entry) => entry.records.withdrawals)
      .filter((withdrawal) => {
        const placement = this.placement(withdrawal);
        return placement.subject === refund.foreign_id && placement.store === store;
      });
  }

  invoiceEvents(order: string): ShopDelivery[] {
    return this.eventsBySubject.get(`invoice:${order}`) ?? [];
  }

  refundEvents(refund: string): ShopDelivery[] {
    return this.eventsBySubject.get(`refund:${refund}`) ?? [];
  }

  /** The refunds made by a claim link, as the plugin's refund views say. */
  claims(): RefundView[] {
    return Object.values(this.history.final.refunds).filter(
      (refund): refund is RefundView => refund != null && refund.claim_expires_at != null,
    );
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

/** An account's name as a counter-example gives it. */
function accountName(account: AccountKind, store: string): string {
  return account === 'shared' ? "the deployment's account" : `${store}'s own account`;
}

/** An account, and on the deployment's account the store whose prefix a foreign_id has. */
function placeName(account: AccountKind, store: string): string {
  return account === 'shared' ? `the deployment's account as ${store}'s` : accountName(account, store);
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
  const claims = facts.claims();
  for (const refund of claims) {
    if (refund.status !== 'awaiting_claim' || Date.parse(refund.claim_expires_at!) > facts.history.endedAt)
      continue;
    violations.push({
      subject: refund.foreign_id,
      detail: `a claim link still awaiting its customer's address, though it expired at ${refund.claim_expires_at}`,
    });
  }
  return { checked: facts.history.orders.length + claims.length, violations };
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
      if (facts.history.final.invoices[order] && !facts.whereRecordSays(order, invoice)) {
        const { account, store } = facts.placement(invoice);
        violations.push({
          subject: order,
          detail: `upstream invoice ${invoice.foreign_id} (${invoice.id}, ${invoice.status}) is on ${placeName(
            account,
            store,
          )}; the order's record, in ${facts.storeOf(order)}, was claimed on ${placeName(
            facts.invoiceAccount(order),
            facts.storeOf(order),
          )}`,
        });
        continue;
      }
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
  for (const order of history.orders) {
    const sent = facts
      .refunds(order)
      .flatMap((refund) => facts.withdrawalsOf(refund).slice(-1))
      .filter((w) => !NOT_SENT.has(w.status));
    // An open claim link holds its amount on the order though nothing was sent yet.
    const held = sum(
      facts
        .refunds(order)
        .filter((refund) => refund.status === 'awaiting_claim')
        .map((refund) => refund.debited_amount),
    );
    const credited = facts.live(order)?.credited_amount ?? '0';
    const total = sum(sent.map((w) => w.sender_amount)).plus(held);
    if (total.gt(credited)) {
      violations.push({
        subject: order,
        detail: `withdrawals not failed, declined or cancelled${
          held.isZero() ? '' : `, and open claim links holding ${held.toFixed(8)},`
        } total ${total.toFixed(8)}, more than the ${credited} credited`,
      });
    }
  }
  // Each account's balances against what the plugin's records on that account say came in and went out.
  let checked = history.orders.length;
  for (const { account, store, records } of facts.accounts) {
    const onThis = (recordAccount: AccountKind, recordStore: string) =>
      recordAccount === account && (account === 'shared' || recordStore === store);
    const expected = new Map<string, Decimal>();
    const add = (currency: string, amount: Decimal | string) =>
      expected.set(currency, (expected.get(currency) ?? new Decimal(0)).plus(amount));
    for (const [currency, balance] of Object.entries(records.balancesBefore)) add(currency, balance);
    for (const [order, view] of Object.entries(history.final.invoices)) {
      if (!view?.net_currency || !view.net_amount) continue;
      if (onThis(facts.invoiceAccount(order), facts.storeOf(order))) add(view.net_currency, view.net_amount);
    }
    for (const refund of Object.values(history.final.refunds)) {
      // An open claim link's amount has not left the balance.
      if (!refund || NOT_COUNTING.has(refund.status) || refund.status === 'awaiting_claim') continue;
      if (onThis(facts.refundAccount(refund), facts.storeOf(refund.invoice_foreign_id ?? ''))) {
        add(refund.debited_currency, dec(refund.debited_amount).neg());
      }
    }
    for (const [currency, balance] of Object.entries(records.balancesAfter)) {
      const ours = expected.get(currency) ?? new Decimal(0);
      checked++;
      if (!ours.eq(balance)) {
        violations.push({
          subject: account === 'shared' ? currency : `${store}:${currency}`,
          detail: `the service's balance on ${accountName(account, store ?? '')} is ${balance}, the plugin's records account for ${ours.toFixed(8)}`,
        });
      }
    }
  }
  return { checked, violations };
};

const withdrawalsOnce: Check = (facts) => {
  const { history } = facts;
  const violations: CounterExample[] = [];
  let checked = 0;
  for (const { account, store, records } of facts.accounts) {
    // By store and refund: stores sharing the deployment's account each have their own foreign_ids.
    const accepted = new Map<string, { refund: string; count: number }>();
    for (const foreignId of records.withdrawalsAccepted) {
      const { store: owner, subject } = place(account, store, foreignId);
      const key = `${owner}|${subject}`;
      accepted.set(key, { refund: subject, count: (accepted.get(key)?.count ?? 0) + 1 });
    }
    checked += accepted.size + records.withdrawals.length;
    for (const { refund, count } of accepted.values()) {
      if (count > 1)
        violations.push({
          subject: refund,
          detail: `${count} withdrawals accepted for one refund on ${accountName(account, store ?? '')}`,
        });
    }
    for (const withdrawal of records.withdrawals) {
      const placement = facts.placement(withdrawal);
      const refund = history.final.refunds[placement.subject];
      const belongs =
        refund &&
        facts.refundAccount(refund) === placement.account &&
        facts.storeOf(refund.invoice_foreign_id ?? '') === placement.store;
      if (!belongs) {
        violations.push({
          subject: withdrawal.foreign_id,
          detail: `withdrawal ${withdrawal.id} (${withdrawal.sender_amount} ${withdrawal.sender_currency}) on ${accountName(
            placement.account,
            placement.store,
          )} belongs to no refund the plugin holds there${
            refund
              ? ` (its record was claimed on ${accountName(facts.refundAccount(refund), facts.storeOf(refund.invoice_foreign_id ?? ''))})`
              : ''
          }`,
        });
      }
    }
  }
  for (const refund of Object.values(history.final.refunds)) {
    if (!refund || refund.transaction_id == null) continue;
    const named = facts.withdrawalsOf(refund).find((w) => w.id === refund.transaction_id);
    if (!named) {
      violations.push({
        subject: refund.foreign_id,
        detail: `the refund names withdrawal ${refund.transaction_id}, which ${accountName(
          facts.refundAccount(refund),
          facts.storeOf(refund.invoice_foreign_id ?? ''),
        )} does not hold under its foreign_id`,
      });
    }
  }
  // A claim link's withdrawal is sent once its customer gives the address, and never for one that took none.
  for (const refund of facts.claims()) {
    checked++;
    const sent = facts.withdrawalsOf(refund);
    const unclaimed = UNCLAIMED.has(refund.status);
    if (unclaimed ? sent.length === 0 : sent.length === 1 || NOT_TAKEN.has(refund.status)) continue;
    violations.push({
      subject: refund.foreign_id,
      detail: `a claim link's refund ${refund.status}, ${
        unclaimed ? 'no address taken' : 'its address taken'
      }, with ${sent.length} withdrawals on ${accountName(
        facts.refundAccount(refund),
        facts.storeOf(refund.invoice_foreign_id ?? ''),
      )} (${sent.map((w) => `${w.id} ${w.status}`).join(', ') || 'none'})`,
    });
  }
  return { checked, violations };
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

/**
 * Where a refund's status stands: a claim link waiting, or its address being sent (a refused or unfinished send
 * opens the claim again), then held for approval, then sent; a final one may never give way to another.
 */
const REFUND_RANK: Record<string, number> = {
  awaiting_claim: 0,
  sending: 0,
  awaiting_approval: 1,
  processing: 2,
};
const refundRank = (status: string) => REFUND_RANK[status] ?? 3;

function refundBackwards(statuses: string[]): string | undefined {
  for (let i = 1; i < statuses.length; i++) {
    const [before, after] = [statuses[i - 1], statuses[i]];
    // Nothing was made of a refused request: its foreign_id is free for the same request again.
    if (before === 'rejected') continue;
    if (refundRank(after) < refundRank(before) || (refundRank(before) === 3 && after !== before)) {
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
  // A refund's reads, claim pages and cancels one after another, then its view at the end; a call sent alongside
  // another is held only against the end, as the two answers' order tells nothing.
  const refunds = Object.values(facts.history.final.refunds).filter((refund) => refund != null);
  for (const refund of refunds) {
    const seen = (facts.callsByRefund.get(refund.foreign_id) ?? []).filter(
      (call) => call.status >= 200 && call.status <= 299 && typeof call.body.status === 'string',
    );
    const status = (call: ApiCall) => call.body.status as string;
    const inTurn = seen.filter((call) => !call.alongside).map(status);
    const byCalls = [
      refundBackwards([...inTurn, refund.status]),
      ...seen.filter((call) => call.alongside).map((call) => refundBackwards([status(call), refund.status])),
    ].find((found) => found !== undefined);
    if (byCalls) violations.push({ subject: refund.foreign_id, detail: `its reads saw ${byCalls}` });
    const events = facts.refundEvents(refund.foreign_id).map((event) => event.status ?? '');
    const byEvents = refundBackwards([...events, refund.status]);
    if (byEvents) violations.push({ subject: refund.foreign_id, detail: `webhooks carried ${byEvents}` });
  }
  return { checked: facts.history.orders.length + refunds.length, violations };
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

/**
 * An upstream foreign_id's place. On the deployment's account, a store other than the default one puts `<store>!`
 * before its foreign_id; on a store's own account, no prefix. The order or refund it names comes before any `~n` of a
 * later attempt.
 */
function place(account: AccountKind, ownStore: string | undefined, foreignId: string): Placement {
  const separator = foreignId.indexOf(STORE_SEPARATOR);
  const prefix = separator < 0 ? undefined : foreignId.slice(0, separator);
  const subject = upstreamSubject(foreignId);
  if (account === 'shared') return { account, store: prefix ?? DEFAULT_STORE, subject };
  // A prefix on an own account names no store's record there.
  return { account, store: prefix === undefined ? ownStore! : `${ownStore} (prefixed ${prefix})`, subject };
}

/** The order or refund an upstream foreign_id is about, on any account: no store's prefix, no `~n`. */
export function upstreamSubject(foreignId: string): string {
  return foreignId.slice(foreignId.indexOf(STORE_SEPARATOR) + 1).split('~')[0];
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
