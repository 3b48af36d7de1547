// Every kind of item at its largest, sized by DynamoDB's rules (store/item-size.ts), stays well under its 400 KB
// limit: every text the API takes at its bound in 4-byte characters, every text of the service's at its byte bound
// (processing/translate.ts) in characters JSON writes as 6 bytes, the most refunds an order takes and the most
// events an outbox holds. The items
// are made by the stores' own code, so a field or a bound that grows shows here.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type {
  CheckoutRequest,
  InvoiceRecord,
  OrderRefundRequest,
  RefundEntry,
  RefundRecord,
  StatusChange,
} from '../../domain/model';
import type { Delivery } from '../../domain/webhook-model';
import { MAX_DEPOSIT_IDS } from '../../domain/invoice-news';
import { MAX_DEPOSITS } from '../../domain/model';
import { MAX_REFUNDS_PER_ORDER } from '../../domain/refund-bound';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import {
  carriedOutbox,
  invoiceEvents,
  OUTBOX_CAP,
  OUTBOX_CAP_AT_TAKEOVER,
  recordAsOf,
  refundEvents,
  withEvents,
  type EventKind,
} from '../../domain/webhooks';
import { webhookPayload } from '../../http/webhook-views';
import { MAX_AMOUNT_DIGITS } from '../../processing/json';
import {
  ADDRESS_MAX_BYTES,
  CURRENCY_MAX_BYTES,
  MAX_FEE_CURRENCIES,
  DEPOSIT_ADDRESS_MAX_BYTES,
  DEPOSIT_CURRENCY_MAX_BYTES,
  SERVICE_TEXT_MAX_BYTES,
  TXID_MAX_BYTES,
  URL_MAX_BYTES,
} from '../../processing/translate';
import { DynamoDeliveryStore } from '../../store/delivery-store';
import { itemSize, MAX_ITEM_BYTES } from '../../store/item-size';
import type { Table } from '../../store/table';
import { VersionedDynamoStore } from '../../store/versioned-store';

type Item = Record<string, AttributeValue>;

/** Each item well under the limit: a fifth of it left for what this test does not foresee. */
const BOUND = MAX_ITEM_BYTES * 0.8;

/** U+1F600: 4 bytes in UTF-8, one character to the API's bounds. */
const WIDE = '\u{1F600}';
/** A control character: 1 byte of a service text's bound in UTF-8, 6 bytes as JSON writes it (`\u0001`). */
const ESCAPED = '\u0001';
const api = (characters: number) => WIDE.repeat(characters);
const service = (maxBytes = SERVICE_TEXT_MAX_BYTES) => ESCAPED.repeat(maxBytes);
const id = (prefix: string) => prefix.padEnd(64, 'x');
const amount = () => `${'9'.repeat(MAX_AMOUNT_DIGITS)}.${'9'.repeat(MAX_AMOUNT_DIGITS)}`;
const CURRENCY = service(CURRENCY_MAX_BYTES);
/** Times far in the future have the most digits a time has. */
const AT = 9_999_999_999_999;
const AT_SECONDS = 9_999_999_999;

/** The items a store sends, caught before any network: the stores build them synchronously. */
function caught(): { table: Table; items: Item[] } {
  const items: Item[] = [];
  const client = {
    send: (command: {
      input: {
        Item?: Item;
        ExpressionAttributeNames?: Record<string, string>;
        ExpressionAttributeValues?: Item;
      };
    }) => {
      const {
        Item: item,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      } = command.input;
      if (item) items.push(item);
      // The dispatcher's progress, which only its drain writes, beside the record: as an item of that one attribute.
      if (names?.['#progress'] && values?.[':progress'])
        items.push({ [names['#progress']]: values[':progress'] });
      return Promise.resolve({});
    },
  };
  return { table: { client: client as unknown as Table['client'], name: 'bounds' }, items };
}

function history(): StatusChange[] {
  // Status only moves forward: one entry per status of the service's, at most.
  return ['created', 'pending', 'processing', 'confirmed', 'failed'].map((status) => ({
    status,
    at: AT,
    source: 'reconcile',
  }));
}

function checkoutRequest(): CheckoutRequest {
  return {
    foreignId: id('order'),
    amount: `${'9'.repeat(30)}.${'9'.repeat(8)}`,
    currency: 'C'.repeat(10),
    title: api(50),
    email: `${api(250)}@a.b`,
    urlSuccess: `https://a/${api(2038)}`,
    urlFailed: `https://a/${api(2038)}`,
    timer: true,
    senderCurrency: 'C'.repeat(10),
    description: api(1000),
    endUserReference: api(100),
    type: 'good_until_expired',
    metadata: Object.fromEntries(
      Array.from({ length: 20 }, (_, key) => [`${key}`.padEnd(40, 'k'), api(500)]),
    ),
  };
}

function largestInvoice(): InvoiceRecord {
  const refunds: RefundEntry[] = Array.from({ length: MAX_REFUNDS_PER_ORDER }, (_, n) => ({
    foreignId: id(`refund-${n}`),
    debitedAmount: amount(),
    currency: 'C'.repeat(10),
    state: 'confirmed',
    createdAt: AT,
  }));
  return {
    foreignId: id('order'),
    version: 999_999,
    phase: 'abandoned',
    request: checkoutRequest(),
    claimedAt: AT,
    status: 'pending',
    error: service(),
    history: history(),
    createdAt: AT,
    updatedAt: AT,
    sweptAt: AT,
    attempt: 999_999,
    invoice: {
      id: Number.MAX_SAFE_INTEGER,
      url: service(URL_MAX_BYTES),
      address: service(ADDRESS_MAX_BYTES),
      tag: service(ADDRESS_MAX_BYTES),
      amount: amount(),
      senderCurrency: CURRENCY,
      senderAmount: amount(),
      fixedAt: AT_SECONDS,
      releaseAt: AT_SECONDS,
    },
    payment: {
      currency: CURRENCY,
      amount: amount(),
      remainingAmount: amount(),
      due: amount(),
      owed: amount(),
      coverage: 'short',
      late: true,
    },
    settlement: {
      currency: CURRENCY,
      net: amount(),
      fees: Array.from({ length: MAX_FEE_CURRENCIES }, () => ({ currency: CURRENCY, amount: amount() })),
    },
    cancelled: true,
    depositIds: Array.from({ length: MAX_DEPOSIT_IDS }, () => Number.MAX_SAFE_INTEGER),
    deposits: Array.from({ length: MAX_DEPOSITS }, () => ({
      id: Number.MAX_SAFE_INTEGER,
      // Plain ASCII words, as processing/translate.ts holds them.
      txid: 'x'.repeat(TXID_MAX_BYTES),
      amount: amount(),
      currency: 'C'.repeat(DEPOSIT_CURRENCY_MAX_BYTES),
      confirmations: Number.MAX_SAFE_INTEGER,
      address: 'a'.repeat(DEPOSIT_ADDRESS_MAX_BYTES),
      seenAt: AT,
    })),
    refunds,
    refundable: amount(),
    clientSecretHash: 'h'.repeat(43),
  };
}

function largestRefund(): RefundRecord {
  const address = '~'.repeat(256);
  const request: OrderRefundRequest = {
    foreignId: id('refund'),
    invoiceForeignId: id('order'),
    debitedAmount: `${'9'.repeat(30)}.${'9'.repeat(8)}`,
    currency: 'C'.repeat(10),
    address,
    endUserReference: api(100),
  };
  return {
    foreignId: request.foreignId,
    version: 999_999,
    phase: 'sent',
    request,
    sends: {
      foreignId: request.foreignId,
      senderCurrency: CURRENCY,
      receivedCurrency: 'C'.repeat(10),
      senderAmount: amount(),
      address,
      endUserReference: request.endUserReference,
    },
    // A refund made as a claim link keeps its link once sent.
    claimLink: {
      tokenHash: 'h'.repeat(43),
      madeAt: AT,
      expiresAt: AT,
      reserved: {
        foreignId: request.foreignId,
        senderCurrency: CURRENCY,
        receivedCurrency: 'C'.repeat(10),
        senderAmount: amount(),
        endUserReference: request.endUserReference,
      },
      cancelledAt: AT,
      closed: 'cancelled',
    },
    claimedAt: AT,
    status: 'pending',
    error: service(),
    history: history(),
    createdAt: AT,
    updatedAt: AT,
    sweptAt: AT,
    withdrawal: { id: Number.MAX_SAFE_INTEGER, senderAmount: amount(), receivedAmount: amount() },
  };
}

/**
 * The record with a full outbox: OUTBOX_CAP_AT_TAKEOVER events carried over by a claim (keeping the request,
 * history and invoice they were made with), then its own events up to OUTBOX_CAP, each of the largest state.
 */
function withFullOutbox<T extends InvoiceRecord | RefundRecord>(kind: EventKind<T>, record: T): T {
  const announced = { status: 'nothing yet', exception: null };
  let carried: T = { ...record, outbox: { seq: 0, announced, pending: [] } };
  carried = withEvents(kind, carried, AT);
  while (carried.outbox!.pending.length < OUTBOX_CAP_AT_TAKEOVER) {
    carried = withEvents(kind, { ...carried, outbox: { ...carried.outbox!, announced } }, AT);
  }
  const pending = carriedOutbox(carried)!.pending.slice(0, OUTBOX_CAP_AT_TAKEOVER);
  let full: T = { ...record, outbox: { seq: pending.length, announced, pending } };
  while (full.outbox!.pending.length < OUTBOX_CAP) {
    full = withEvents(kind, { ...full, outbox: { ...full.outbox!, announced } }, AT);
  }
  return full;
}

const sizes: Record<string, number> = {};

/** The dispatcher's progress at its longest: every seq with the most digits, a delivery's time too. */
const LONGEST_PROGRESS = { through: 999_999, parked: 999_999, delivered: { seq: 999_999, at: AT } };

/** A record's item as its store creates it, with the progress the dispatcher's drain adds beside it. */
function recordItemSize<T extends InvoiceRecord | RefundRecord>(
  kind: 'INVOICE' | 'REFUND',
  record: T,
): number {
  const { table, items } = caught();
  const store = new VersionedDynamoStore<T>(table, DEFAULT_STORE_ID, kind, () => true);
  void store.create(record);
  void store.drainOutbox({ record, progress: LONGEST_PROGRESS }, LONGEST_PROGRESS);
  const [created, progress] = items;
  if (!progress) throw new Error('The drain wrote no progress');
  return itemSize({ ...created, ...progress });
}

const invoice = withFullOutbox(invoiceEvents, largestInvoice());
sizes.invoice = recordItemSize('INVOICE', invoice);
const refund = withFullOutbox(refundEvents, largestRefund());
sizes.refund = recordItemSize('REFUND', refund);
{
  // The largest body: an invoice event carried over, whose view shows the request's texts; the longest keys: a store
  // with the longest id (its keys and `store` attribute name it).
  const event = invoice.outbox!.pending[0];
  const delivery: Delivery = {
    id: event.id,
    storeId: 's'.repeat(32),
    type: event.type,
    seq: event.seq,
    subject: 'invoice',
    foreignId: invoice.foreignId,
    recordCreatedAt: AT,
    body: webhookPayload('invoice', recordAsOf(invoice, event), event, 's'.repeat(32)),
    createdAt: AT,
    state: 'failed',
    attempts: 999_999,
    retryFrom: AT,
    nextAttemptAt: AT,
    attemptUntil: AT,
    lastAttempt: { at: AT, status: 599, error: 'connection failed' },
    deliveredAt: AT,
    version: 999_999,
  };
  const { table, items } = caught();
  void new DynamoDeliveryStore(table, 30).create(delivery);
  sizes.delivery = itemSize(items[0]);
}

describe.each(Object.entries(sizes))('the largest %s item', (_kind, size) => {
  test(`is ${size.toLocaleString('en')} bytes, under ${BOUND.toLocaleString('en')} (DynamoDB's limit: ${MAX_ITEM_BYTES.toLocaleString('en')})`, () => {
    expect(size).toBeLessThan(BOUND);
  });
});

test('the outboxes are full, and their events kept no request but the carried ones', () => {
  for (const record of [invoice, refund]) {
    const { pending } = record.outbox!;
    expect(pending).toHaveLength(OUTBOX_CAP);
    expect(pending.filter((event) => 'request' in event.state)).toHaveLength(OUTBOX_CAP_AT_TAKEOVER);
  }
});
