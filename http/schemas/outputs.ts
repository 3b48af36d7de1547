// What each route answers, as valibot schemas: the OpenAPI document's response bodies. Our own views are strict
// (a field added to a view must be added here, or the end-to-end suites fail); what the service sends through is
// loose, since the service may add fields.
import * as v from 'valibot';
import { WEBHOOK_EVENT_TYPES } from '../../domain/webhook-model';
import { INVOICE_EXCEPTIONS, INVOICE_STATUS_NAMES } from '../../domain/outcome';
import { TRAVEL_RULE_SETTINGS } from '../../domain/stores';
import { CUSTOMER_VIEW_FIELDS } from '../views';

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

const decimal = (description: string) =>
  v.pipe(v.string(), v.regex(/^-?\d+(\.\d+)?$/), v.description(`${description} An exact decimal string.`));
const nullableDecimal = (description: string) => v.nullable(decimal(description));
const isoTime = (description: string) =>
  described(v.pipe(v.string(), v.isoTimestamp()), `${description} ISO 8601 in UTC, with milliseconds.`);
const nullableText = (description: string) => v.nullable(described(v.string(), description));
const source = v.picklist(['create', 'callback', 'cancel', 'reconcile', 'lookup']);
const history = <E extends v.ObjectEntries>(entries: E) =>
  described(v.array(v.strictObject({ ...entries, source })), 'Every status change, oldest first.');

/** Every list answers a page and the cursor of the next one (http/cursor.ts). */
const listOf = (item: v.GenericSchema, what: string) =>
  v.strictObject({
    data: described(v.array(item), what),
    next_cursor: v.nullable(
      described(v.string(), 'Give it as `cursor` for the next page; null after the last page.'),
    ),
  });

export const invoiceView = v.strictObject({
  foreign_id: v.string(),
  status: described(
    v.picklist(INVOICE_STATUS_NAMES),
    "The invoice's status as the store sees it, from what the service said (README: Invoice statuses).",
  ),
  final: described(
    v.boolean(),
    'True once `status` can no longer change; a late payment may still set `exception`.',
  ),
  exception: v.nullable(
    described(v.picklist(INVOICE_EXCEPTIONS), 'What was paid beside the rule: partly, over, or late.'),
  ),
  failure_message: nullableText("The service's own words when `status` is `failed`."),
  title: v.string(),
  amount: decimal("The order's amount, in `currency`: what the store asked for."),
  currency: v.string(),
  metadata: described(
    v.record(v.string(), v.string()),
    "The store's own key-value pairs, as given at checkout.",
  ),
  payments: described(
    v.array(
      v.strictObject({
        txid: described(v.string(), 'The blockchain transaction id.'),
        amount: decimal('What the deposit brought, in `currency`.'),
        currency: described(v.string(), 'The currency deposited, as the service names it.'),
        confirmations: described(
          v.pipe(v.number(), v.integer(), v.minValue(0)),
          'As the service last reported them; they only grow.',
        ),
        address: described(v.string(), 'Where the deposit went, as the service reported it.'),
        explorer_url: nullableText(
          "The transaction on a block explorer, from the stage's template for `currency`; null for a currency with none.",
        ),
        seen_at: isoTime('When this plugin first heard of the deposit.'),
      }),
    ),
    "The customer's deposits the payment service reported (its `transactions[]`), first seen first; at most 10.",
  ),
  processor_invoice_id: v.nullable(
    described(v.pipe(v.number(), v.integer()), "The service's id, once created."),
  ),
  payment_url: nullableText('The payment page, once created.'),
  pay_currency: nullableText('The currency the customer pays in, once known.'),
  pay_amount: nullableDecimal('What the customer pays, in `pay_currency`, once quoted.'),
  pay_address: nullableText('The address to pay to, once the service gives one.'),
  pay_tag: nullableText('The destination tag or memo the address needs, if any.'),
  paid_amount: nullableDecimal('Received from the customer so far, in `pay_currency`.'),
  owed_amount: nullableDecimal('Still owed, in `pay_currency`.'),
  net_amount: nullableDecimal(
    'What the service credited the store, net of its fees, in `net_currency`; null until it reports a credit.',
  ),
  net_currency: nullableText('The currency of `net_amount`.'),
  fees: described(
    v.array(v.strictObject({ currency: v.string(), amount: decimal('The fees in this currency.') })),
    "The service's fees, summed per currency.",
  ),
  fixed_at: v.nullable(isoTime('When the quote behind `pay_amount` was fixed.')),
  expires_at: v.nullable(isoTime('When the quote runs out.')),
  seconds_left: v.nullable(
    described(
      v.pipe(v.number(), v.integer(), v.minValue(0)),
      'Counted when answered; null without a timer or once final.',
    ),
  ),
  history: history({ service_status: v.string(), at: isoTime('When it changed.') }),
  refunds: described(
    v.array(
      v.strictObject({
        foreign_id: v.string(),
        debited_amount: decimal('What the refund takes from the order, in `debited_currency`.'),
        debited_currency: described(v.string(), 'The currency the order was credited in (`net_currency`).'),
        currency: described(v.string(), 'The currency the customer receives.'),
        status: described(
          v.picklist([
            'pending',
            'confirmed',
            'failed',
            'declined',
            'cancelled',
            'claim_expired',
            'claim_cancelled',
          ]),
          'A `pending` (not ended: awaiting approval or a claim too) or `confirmed` refund counts against `refundable`; a `failed`, `declined`, `cancelled`, `claim_expired` or `claim_cancelled` one no longer does.',
        ),
        created_at: isoTime('When the refund was first received.'),
      }),
    ),
    "The order's refunds, oldest first (GET /refunds/{foreign_id} has each in full).",
  ),
  refundable: v.nullable(
    described(
      v.strictObject({ amount: decimal('Left to refund.'), currency: v.string() }),
      'What is left to refund: the net credited less every refund that is `pending` or `confirmed`, in `net_currency`. Null unless the order is paid (or paid late) and credited.',
    ),
  ),
  not_refundable_reason: v.nullable(
    described(
      v.picklist(['not_paid', 'short_of_due', 'not_credited']),
      'Why `refundable` is null, by the rule the refund route applies: `not_paid` (neither paid nor paid late), `short_of_due` (less than was due reached the service, which returns it to the customer itself), `not_credited` (the service has not reported its credit yet). Null when the order can be refunded.',
    ),
  ),
  created_at: isoTime('When the order was first received.'),
  updated_at: isoTime('When the record last changed.'),
});

export const invoiceList = listOf(invoiceView, 'Invoices, newest first.');

export const checkoutView = v.strictObject({
  ...invoiceView.entries,
  client_secret: nullableText(
    "Opens the invoice's customer view (`GET /public/invoices/{foreign_id}`, header `X-Client-Secret`): hand it to the customer's browser, never a token. The same for every repeat of the checkout; null for an invoice whose secret cannot be issued again (created before client secrets, or before the processing keys changed).",
  ),
});

export const publicInvoiceView = v.strictObject({
  ...v.pick(invoiceView, CUSTOMER_VIEW_FIELDS).entries,
  payment_uri: nullableText(
    'A wallet link (`bitcoin:<address>?amount=<owed>` and the like) where the currency has one; null once final.',
  ),
  rate: nullableDecimal(
    'What one unit of `pay_currency` costs in `currency` at this price: to cents from 1 up, else to four significant digits; null until the currency to pay in is known.',
  ),
  confirmations: v.nullable(
    described(
      v.pipe(v.number(), v.integer(), v.minValue(0)),
      "The fewest confirmations among the payment's deposits, as the payment service last reported them (it never says how many it needs); null before it reported any.",
    ),
  ),
  url_success: described(v.string(), 'Where to send the customer once the invoice is paid.'),
  url_failed: described(v.string(), 'Where to send the customer once it is final unpaid.'),
});

/** The refund's state machine, one line per status; README.md's Refunds section says the same. */
const REFUND_STATES = [
  "Where the refund stands; it only moves down this list, and `history` keeps the service's own words:",
  '- `awaiting_claim`: a claim link waits for its customer to give an address, or to give another after the service refused one (the one way back up this list); its amount counts.',
  '- `claim_expired`, `claim_cancelled` (final): no address came before the link expired or the store cancelled it; nothing was sent and its amount is released.',
  '- `sending`: claimed, its withdrawal not yet answered by the payment service.',
  '- `rejected` (final): the service refused it, at once or by its compliance check; nothing was sent and its amount is released.',
  "- `awaiting_approval`: the service holds it over the account's approval limits (its `pending`) until another owner approves or declines it in the service's back office; its amount still counts.",
  '- `processing`: the service is sending it (`verifying` first, where the service checks compliance).',
  '- `confirmed` (final): sent to the address.',
  '- `failed` (final): the service could not send it; its amount is released.',
  '- `declined` (final): an owner declined it; its amount is released.',
  '- `cancelled` (final): the service cancelled it; its amount is released.',
].join('\n');

export const refundView = v.strictObject({
  foreign_id: v.string(),
  invoice_foreign_id: nullableText('The order refunded; null for a payout tied to no order.'),
  status: described(v.string(), REFUND_STATES),
  final: described(
    v.boolean(),
    'True once the refund can no longer change: confirmed, failed, declined, cancelled, rejected, claim_expired or claim_cancelled.',
  ),
  failure_message: nullableText("The service's reason for a rejected, failed, declined or cancelled refund."),
  amount: nullableDecimal('What the customer receives, in `currency`, once the service has answered.'),
  currency: nullableText('The currency the customer receives.'),
  debited_amount: nullableDecimal(
    "What leaves the store's balance, in `debited_currency`; null until an order's refund is reserved.",
  ),
  debited_currency: nullableText("The currency that leaves the store's balance: the order's `net_currency`."),
  address: nullableText('Where it is sent; null for a claim link until the customer gives it.'),
  transaction_id: v.nullable(v.pipe(v.number(), v.integer())),
  claim_url: nullableText(
    'The link to send the customer while the claim is open: the claim page, the refund and its token after `#`. In the answers of the refund create and `GET /refunds/{foreign_id}`; null elsewhere.',
  ),
  claim_expires_at: v.nullable(
    isoTime('When an unclaimed link stops working; null for a refund made with its address.'),
  ),
  history: history({ status: v.string(), at: isoTime('When it changed.') }),
  created_at: isoTime('When the refund was first received.'),
  updated_at: isoTime('When the record last changed.'),
});

export const refundList = listOf(refundView, 'Refunds, newest first.');

export const claimView = v.strictObject({
  store_name: nullableText("The store's name; null for the default store."),
  travel_rule: described(
    v.picklist(['off', 'optional', 'required']),
    "Whether the address must come with the travel rule's `receiver` (`required`), may (`optional`) or may not (`off`).",
  ),
  status: described(v.string(), "The refund's status, as in the refund view."),
  final: v.boolean(),
  failure_message: nullableText(
    "The payment service's words when it refused the address, or why the claim link closed; null otherwise (a refusal of anything else ends the refund `rejected`, and the store sees why).",
  ),
  debited_amount: nullableDecimal("What leaves the store's balance for the customer, in `debited_currency`."),
  debited_currency: nullableText("The store's balance currency."),
  currency: nullableText(
    "The cryptocurrency the customer receives, at the payment service's rate when it is sent.",
  ),
  amount: nullableDecimal('What the customer receives, once the payment service has answered.'),
  address: nullableText('The address the customer gave; null before.'),
  expires_at: v.nullable(isoTime('When the link stops working.')),
});

const nullableTime = (description: string) => v.nullable(isoTime(description));

export const deliveryView = v.strictObject({
  id: described(v.string(), "The event's id: the `webhook-id` header and the payload's `id`."),
  type: described(v.picklist(WEBHOOK_EVENT_TYPES), 'Such as `invoice.paid` or `refund.confirmed`.'),
  subject: v.picklist(['invoice', 'refund']),
  foreign_id: v.string(),
  sequence: described(v.pipe(v.number(), v.integer()), 'Per invoice or refund; only grows.'),
  state: described(
    v.picklist(['pending', 'delivered', 'failed']),
    '`failed` after 3 days of retries, until re-sent.',
  ),
  attempts: v.pipe(v.number(), v.integer()),
  created_at: isoTime('When the change that made the event was written.'),
  next_attempt_at: nullableTime('When it is next tried, while pending.'),
  last_attempt_at: nullableTime('When it was last tried.'),
  last_status: v.nullable(described(v.pipe(v.number(), v.integer()), "The endpoint's HTTP status then.")),
  last_error: nullableText('Why the last attempt got no status, such as `timeout`; never the answer body.'),
  delivered_at: nullableTime('When the endpoint answered 2xx.'),
});

export const deliveryList = listOf(deliveryView, 'Webhook deliveries, newest first.');

/** The body of each webhook (http/webhook-views.ts, `webhookPayload`). */
export const webhookEvent = v.strictObject({
  id: described(v.string(), 'The `webhook-id` header: deduplicate on it.'),
  type: described(v.picklist(WEBHOOK_EVENT_TYPES), 'Such as `invoice.paid` or `refund.confirmed`.'),
  created_at: v.nullable(isoTime('When the change that made the event was written; null only with `error`.')),
  sequence: described(v.pipe(v.number(), v.integer()), 'Per invoice or refund; only grows.'),
  store_id: described(v.string(), 'The store whose record it is: `default` for the default store.'),
  data: described(
    v.nullable(v.union([invoiceView, refundView])),
    'The view `GET` answers, as the change left it; null only with `error`.',
  ),
  error: v.optional(
    described(
      v.strictObject({ code: v.literal('unrenderable_record'), message: v.string(), foreign_id: v.string() }),
      'The record holds a time no view can write: its events are still sent, in order.',
    ),
  ),
});

export const resendReport = v.strictObject({
  resent: described(v.pipe(v.number(), v.integer()), 'Failed deliveries set to be sent again now.'),
  more: described(v.boolean(), 'More failed ones remain: call again.'),
});

const balance = v.looseObject({
  currency: v.string(),
  type: v.picklist(['crypto', 'fiat']),
  balance: decimal('The balance.'),
});

export const snapshot = v.strictObject({
  taken_at: isoTime('When the balances were read.'),
  source: v.picklist(['live', 'scheduled']),
  balances: v.array(balance),
});

export const snapshotList = listOf(snapshot, 'Snapshots, oldest first.');

const pairSide = {
  currency: v.string(),
  type: v.picklist(['crypto', 'fiat']),
  description: v.optional(v.string()),
};

const pairEntry = v.looseObject({
  currency_from: v.looseObject({
    ...pairSide,
    min_amount: decimal('The least amount the service takes.'),
    min_amount_deposit_with_exchange: decimal('The least deposit it exchanges.'),
  }),
  currency_to: v.looseObject(pairSide),
  rate_from: decimal('Units of `currency_from`…'),
  rate_to: decimal('…for this many of `currency_to`; an estimate.'),
});

export const pairList = v.strictObject({ data: v.array(pairEntry) });

export const checkoutOptions = v.strictObject({
  amount: decimal('The amount asked about, with 8 fractional digits.'),
  currency: described(v.string(), 'The currency of the order.'),
  options: described(
    v.array(
      v.strictObject({
        pay_currency: described(
          v.string(),
          'A cryptocurrency the customer may pay in (checkout `sender_currency`).',
        ),
        min_amount: decimal(
          'The least `amount` the payment service takes for an invoice paid in `pay_currency`, in `currency`.',
        ),
        pay_amount: decimal(
          'About what the customer pays, in `pay_currency`, at the estimated rate; the invoice fixes the quote.',
        ),
      }),
    ),
    'The currencies the amount reaches the minimum of; empty when none: offer no crypto.',
  ),
});

const sent = v.looseObject({ currency: v.string(), amount: decimal('The amount.') });

/** The service's transaction record (its spec, section 2.6), as it sent it, with exact amounts. */
export const transaction = v.looseObject({
  id: v.pipe(v.number(), v.integer()),
  foreign_id: v.string(),
  type: v.string(),
  crypto_address: v.nullish(v.looseObject({ currency: v.string(), address: v.string() })),
  currency_sent: v.nullish(
    v.looseObject({ ...sent.entries, remaining_amount: v.optional(decimal('Still owed.')) }),
  ),
  currency_received: v.nullish(sent),
  transactions: v.array(v.looseObject({ currency: v.string(), amount: decimal('The amount.') })),
  fees: v.array(v.looseObject({ type: v.string(), currency: v.string(), amount: decimal('The fee.') })),
  error: v.string(),
  status: v.string(),
});

export const callbackOutcome = v.strictObject({
  outcome: described(
    v.picklist(['applied', 'duplicate', 'ignored']),
    'What the callback changed: applied, already seen, or nothing of ours.',
  ),
});

export const errorBody = v.strictObject({
  error: v.strictObject({
    code: described(v.string(), 'What went wrong, for code to switch on.'),
    message: described(v.string(), 'What went wrong, for people.'),
    fields: v.optional(
      described(v.record(v.string(), v.string()), 'Each field at fault, with what is wrong with it.'),
    ),
    refundable: v.optional(
      described(
        v.strictObject({ amount: decimal('Left to refund.'), currency: v.string() }),
        'With `refund_exceeds_refundable`: what the order has left to refund.',
      ),
    ),
    minimum: v.optional(
      described(
        v.strictObject({ amount: decimal('The least amount.'), currency: v.string() }),
        "With `rejected_by_processor` for an amount below the payment service's minimum: that minimum, in the order's currency.",
      ),
    ),
  }),
});

/** What API Gateway answers itself, before any function runs. */
export const gatewayMessage = v.strictObject({ message: v.string() });

const healthCheck = v.strictObject({
  ok: v.boolean(),
  ms: described(v.pipe(v.number(), v.integer(), v.minValue(0)), 'How long the check took.'),
  error: v.optional(described(v.string(), 'Our error code, as a route would answer it.')),
});

export const health = v.strictObject({
  status: v.picklist(['ok', 'degraded']),
  version: described(v.string(), 'The plugin release deployed (semver), as in CHANGELOG.md.'),
  checks: v.strictObject({
    secrets: described(healthCheck, 'The processing keys are loaded.'),
    service: described(healthCheck, 'The service answered one signed call in time.'),
  }),
});

/** The document itself, as `GET /openapi.json` serves it. */
export const openApiObject = v.looseObject({
  openapi: v.string(),
  info: v.looseObject({}),
  paths: v.looseObject({}),
});

// Stores (issue 33). A store's view never holds a key, a token or a secret.
export const storeView = v.strictObject({
  id: described(v.string(), 'The store id.'),
  name: v.string(),
  status: described(
    v.picklist(['active', 'disabled']),
    "`disabled`: the store's tokens answer 403 `store_disabled`; its callbacks and webhooks go on.",
  ),
  account: described(
    v.picklist(['shared', 'own']),
    "`shared`: the deployment's processing account; `own`: the store's own keys.",
  ),
  base_url: nullableText("The payment service's base URL of the store's own account; null when shared."),
  webhook_url: nullableText("Where the store's webhooks go; null when none."),
  callback_url: nullableText(
    "With its own account: the callback URL to enter in that account's merchant administration; null when shared.",
  ),
  travel_rule: described(
    v.picklist(TRAVEL_RULE_SETTINGS),
    "Whether its refunds carry the travel rule's `receiver`: `off` refuses one, `required` refuses a refund without one, `optional` sends it when given.",
  ),
  travel_rule_sender: described(
    v.picklist(TRAVEL_RULE_SETTINGS),
    "Whether its checkouts carry the payer's travel-rule data, `sender`: `off` refuses one, `required` refuses a checkout without one, `optional` sends it when given.",
  ),
  claim_link_days: described(
    v.nullable(v.number()),
    "How many days its refund claim links take an address; null: the deployment's `CLAIM_LINK_DAYS` (30 by default).",
  ),
  requests_per_second: described(
    v.nullable(v.number()),
    "How many requests a second its tokens and its customers may make; null: the stage's `storeRequestsPerSecond`.",
  ),
  created_at: v.nullable(
    isoTime('When the store was made; null for the default store, as old as the deployment.'),
  ),
  updated_at: v.nullable(isoTime('When the store last changed; null for the default store.')),
});

export const storeList = listOf(storeView, 'The stores: the default store first, then oldest first.');

const issuedToken = (what: string) =>
  described(v.string(), `${what}: answered this once; only its SHA-256 digest is kept.`);

export const createdStore = v.strictObject({
  store: storeView,
  storefront_token: issuedToken("The store's storefront token"),
  admin_token: issuedToken("The store's admin token"),
  webhook_secret: described(
    v.string(),
    "The secret that signs the store's webhooks (`whsec_...`): answered this once.",
  ),
});

export const rotatedWebhookSecret = v.strictObject({
  store: storeView,
  webhook_secret: described(
    v.string(),
    "The new secret that signs the store's webhooks (`whsec_...`): answered this once.",
  ),
  previous_secret_expires_at: isoTime('When the secret replaced stops signing beside the new one.'),
});

export const rotatedTokens = v.strictObject({
  store: storeView,
  storefront_token: issuedToken('The new storefront token'),
  admin_token: issuedToken('The new admin token'),
  previous_tokens_expire_at: isoTime('When the tokens replaced stop working.'),
});

export const currentToken = v.strictObject({
  scope: described(v.picklist(['platform', 'admin', 'storefront']), 'What the token may do.'),
  store_id: described(
    v.string(),
    'The store it acts for: its own, or for the platform token the one in `Store-Id` (else `default`).',
  ),
});
