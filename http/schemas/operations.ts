// Each route's page in the OpenAPI document: its input and answer schemas, and the refusals its domain may give.
// Method, path, access and whether it calls the service come from its entry in lib/routes.ts; a route in the
// table without an entry here does not compile.
import * as v from 'valibot';
import type { RouteFunctionName } from '../../lib/routes';
import type { FieldsSchema } from '../validate';
import {
  balancesQuery,
  checkoutBody,
  checkoutOptionsQuery,
  historyQuery,
  invoiceListQuery,
  noQuery,
  orderRefundBody,
  claimBody,
  pairQuery,
  rotateTokensBody,
  rotateWebhookSecretBody,
  storeBody,
  storeChangesBody,
  storeListQuery,
  deliveryListQuery,
  exportQuery,
  refundBody,
  refundListQuery,
  transactionQuery,
} from './inputs';
import { callbackBody } from './callback-body';
import {
  callbackOutcome,
  checkoutOptions,
  checkoutView,
  createdStore,
  currentToken,
  deliveryList,
  deliveryView,
  health,
  invoiceList,
  invoiceView,
  openApiObject,
  pairList,
  publicInvoiceView,
  refundList,
  refundView,
  claimView,
  resendReport,
  rotatedTokens,
  rotatedWebhookSecret,
  snapshot,
  snapshotList,
  storeList,
  storeView,
  transaction,
} from './outputs';

/** 503 too, for a route whose answer says what is down (`GET /health`); 304 for a poll that finds no change. */
export type AnswerStatus = 200 | 201 | 304 | 503;

/** Refusals that depend on what the route does; the document adds those its route entry implies. */
export type DomainErrorStatus = 404 | 409 | 422 | 503;

export interface Operation {
  summary: string;
  description?: string;
  body?: FieldsSchema;
  /** A body the route reads as bytes (a signed callback): documented here, checked by its signature alone. */
  rawBody?: v.GenericSchema;
  query?: FieldsSchema;
  /** Request headers the route reads, each with what it does. */
  headers?: Record<string, string>;
  /** An answer without `schema` has no body; `headers` are the response headers it sets, each described. */
  answers: Partial<
    Record<
      AnswerStatus,
      {
        description: string;
        schema?: v.GenericSchema;
        /** The body's media type; JSON unless given. */
        mediaType?: 'text/csv';
        headers?: Record<string, string>;
      }
    >
  >;
  errors?: readonly DomainErrorStatus[];
}

/** An answer with a JSON body. */
const view = (description: string, schema: v.GenericSchema) => ({ description, schema });
const invoice = view('The invoice view.', invoiceView);
const refund = view('The refund view.', refundView);
const store = view('The store.', storeView);
const received = view('Received.', callbackOutcome);

/** An idempotent create's answers: 201 when it is made, 200 with the same view for the identical request again. */
const madeOnce = (schema: v.GenericSchema, made: string) => ({
  201: { description: `${made}.`, schema },
  200: { description: `${made} before.`, schema },
});

// An invoice poll's conditional GET: the `ETag` of its last answer back as `If-None-Match`, 304 while unchanged.
const IF_NONE_MATCH = 'The `ETag` of an answer before; 304 while the invoice has not changed.';
const invoiceEtag = { ETag: "A strong tag of the invoice's current state." };
const unchanged = { description: 'Not changed since the `ETag` given in `If-None-Match`; no body.' };

/** An export's answer: a page of CSV, and a `Link` to the next page while there is one. */
const csvPage = (what: string) => ({
  200: {
    description: `A page of ${what} as CSV (RFC 4180): a header row, then one row per record, newest first. The columns are in docs/exports.md.`,
    schema: v.string(),
    mediaType: 'text/csv' as const,
    headers: {
      Link: 'The next page, as `<url>; rel="next"` (RFC 8288), while there is one; absent on the last page.',
      'Content-Disposition': 'An attachment, with a file name.',
    },
  },
});
const EXPORT_PAGING =
  "A page holds at most 1,000 rows and 1 MB; follow the `Link` header for the next, until an answer has none. A walk never skips or repeats a record that existed when it began. A cell that a spreadsheet would run as a formula (starting with `=`, `+`, `-` or `@`) starts with `'`.";

/** The page of a route whose one answer is a 200 with `answer`. */
const returning = (
  summary: string,
  answer: ReturnType<typeof view>,
  page: Omit<Operation, 'summary' | 'answers'> = {},
): Operation => ({ summary, ...page, answers: { 200: answer } });

export const operations: Record<RouteFunctionName, Operation> = {
  checkout: {
    summary: "Create the order's invoice",
    description:
      'Idempotent by `foreign_id`: the identical request again answers 200 with the same invoice, and the service sees no second create; the same `foreign_id` with another body is a 409. After a 504 or a 409 `in_progress`, retrying the same request is safe.',
    body: checkoutBody,
    answers: madeOnce(checkoutView, 'Created'),
    errors: [409, 422, 503],
  },
  'get-invoice': {
    summary: 'Poll an invoice',
    description:
      'One read of the table, never a call to the service. Send the `ETag` of the last answer back as `If-None-Match`: an unchanged invoice answers 304 with no body.',
    headers: { 'If-None-Match': IF_NONE_MATCH },
    answers: { 200: { ...invoice, headers: invoiceEtag }, 304: unchanged },
  },
  'public-invoice': {
    summary: "The customer's view of an invoice",
    description:
      "For the customer's browser (the checkout widget), from any origin: what to pay, where, until when, and how it stands; no e-mail, metadata or history. One read of the table. The checkout's `client_secret` goes in `X-Client-Secret`, never in the URL; a wrong or missing one answers 404, as a missing invoice does. `ETag` and `If-None-Match` as for the poll.",
    headers: {
      'X-Client-Secret': "The checkout's `client_secret` for this invoice.",
      'If-None-Match': IF_NONE_MATCH,
    },
    answers: {
      200: { description: "The customer's view.", schema: publicInvoiceView, headers: invoiceEtag },
      304: unchanged,
    },
  },
  'list-invoices': returning('Invoices, newest first', view('A page of invoices.', invoiceList), {
    description:
      'A page at a time, from the table alone; give `next_cursor` back as `cursor`, with the same filters, for the next page. A walk never skips or repeats an invoice that existed when it began. A page filtered by `status` stops after reading 1,000 invoices, so it may hold fewer than `limit`, even none, with a `next_cursor`.',
    query: invoiceListQuery,
  }),
  'cancel-invoice': {
    summary: 'Cancel an invoice',
    description:
      'Refused with a 409 `payment_confirming` while a payment is being confirmed, `invoice_paid` once paid, or `invalid_invoice_state` when the state does not allow it.',
    answers: { 200: invoice },
    errors: [409],
  },
  'refund-invoice': {
    summary: 'Refund an order',
    description:
      "An instant withdrawal with exchange from the currency the order was credited in (its `net_currency`) to `currency` (by default the one the customer paid in), of `debited_amount` (by default all that is left). Reserved on the order first: the order's refunds that are not failed never take more than its net, however many arrive at once; more is a 409 `refund_exceeds_refundable` whose `refundable` names what is left. An order that is not paid (or paid late) and credited is a 409 `invoice_not_refundable`; an order takes at most 20 refunds that are not failed, declined or cancelled (409 `too_many_refunds`). Idempotent by the refund's `foreign_id` as checkout is. A refused refund leaves nothing behind; a failed, declined, cancelled or rejected one no longer counts against the order, and one awaiting approval still does.",
    body: orderRefundBody,
    answers: madeOnce(refundView, 'Sent'),
    errors: [409, 422, 503],
  },
  rates: returning('Exchange rate estimates', view('The rates.', pairList), {
    description: "The service's estimates, for reference only, cached briefly.",
    query: pairQuery,
  }),
  'checkout-options': returning(
    'The currencies a customer may pay an amount in',
    view('The eligible currencies.', checkoutOptions),
    {
      description:
        "Ask before offering crypto: each currency whose minimum the amount reaches, as the payment service checks it at checkout (its `min_amount`, or `min_amount_deposit_with_exchange` when the customer pays in another currency than the order's), with an estimated amount to pay. From the service's pairs, cached per payment account for `ELIGIBILITY_CACHE_SECONDS`. A currency the service does not take is a 400 naming `currency`.",
      query: checkoutOptionsQuery,
    },
  ),
  pairs: returning('Exchange pairs and their minimums', view('The pairs.', pairList), {
    query: pairQuery,
  }),
  'get-balances': returning('Balances', view('A balance snapshot.', snapshot), {
    description:
      "The latest stored snapshot of the store's payment account, or with `live=true` the service asked now, stored as a snapshot. A store that shares the deployment's account has no balances of its own: 409 `shared_account`.",
    query: balancesQuery,
    errors: [404, 409],
  }),
  'balance-history': returning('Balance snapshots since a time', view('A page of snapshots.', snapshotList), {
    description:
      "The store's payment account's snapshots, a page at a time, oldest first; give `next_cursor` back as `cursor` for the next page. A store that shares the deployment's account: 409 `shared_account`.",
    query: historyQuery,
    errors: [409],
  }),
  'create-refund': {
    summary: 'Send a payout tied to no order',
    description:
      "An instant withdrawal with exchange the store sizes itself, for money no order here accounts for (a customer of an underpaid or expired order, an order taken before this plugin): nothing bounds it but the balance. Refund an order with `POST /invoices/{foreign_id}/refunds` instead. Idempotent by `foreign_id` as checkout is. A store that shares the deployment's account cannot send one: 409 `shared_account` (the account's money is every sharing store's).",
    body: refundBody,
    answers: madeOnce(refundView, 'Sent'),
    errors: [409, 422, 503],
  },
  'list-refunds': returning('Refunds, newest first', view('A page of refunds.', refundList), {
    description:
      'A page at a time, as stored, with no call to the service; give `next_cursor` back as `cursor`, with the same filters, for the next page.',
    query: refundListQuery,
  }),
  'export-invoices': {
    summary: 'Export orders as CSV',
    description: `One row per order created in the period (\`created_after\`, \`created_before\`; all when absent): what was asked and paid, the rate, fees, net, refunds and ids. ${EXPORT_PAGING}`,
    query: exportQuery,
    answers: csvPage('orders'),
  },
  'export-refunds': {
    summary: 'Export refunds as CSV',
    description: `One row per refund or payout created in the period (\`created_after\`, \`created_before\`; all when absent): what left the balance, what was sent, the rate and the transaction id. ${EXPORT_PAGING}`,
    query: exportQuery,
    answers: csvPage('refunds'),
  },
  'get-refund': {
    summary: 'A refund',
    description: "Refreshed from the service's transaction record while not final.",
    answers: { 200: refund },
  },
  'get-refund-claim': {
    summary: 'A claim link, as its customer sees it',
    description:
      "For the claim page, from any origin: the store's name, the amount, the currency the customer receives, and the refund's progress; nothing else of the order. The claim link's token goes in `X-Claim-Token`, never in the URL; a wrong or missing one answers 404, as a missing refund does.",
    headers: {
      'X-Claim-Token': "The token in the claim link's fragment, after the refund's foreign_id and `/`.",
    },
    answers: { 200: view("The claim's view.", claimView) },
    errors: [404],
  },
  'claim-refund': {
    summary: "Give a claim link's address",
    description:
      "The customer's address: the refund's withdrawal is sent once, however often this comes (a double submit, two tabs, a retry after a lost answer all answer the same refund). An address the payment service refuses leaves the claim open, its words in `failure_message`. Another address once one was taken is a 409 `claim_taken`; an expired or cancelled link is a 409 `claim_closed`.",
    headers: { 'X-Claim-Token': "The token in the claim link's fragment." },
    body: claimBody,
    answers: { 200: view("The claim's view.", claimView) },
    errors: [404, 409, 503],
  },
  'cancel-refund-claim': {
    summary: 'Cancel a claim link',
    description:
      'An open claim link stops taking addresses, and its amount counts against the order no more (status `claim_cancelled`). The same call again answers the same refund; a link that has expired answers its refund, `claim_expired`; one already claimed is a 409 `claim_closed`.',
    answers: { 200: refund },
    errors: [404, 409],
  },
  'lookup-transaction': returning("The service's transaction record", view('The record.', transaction), {
    query: transactionQuery,
    errors: [404],
  }),
  callbacks: returning("The service's payment callbacks", received, {
    description:
      "Signed by the service over the raw body with its keys. Answers 200 only once the callback's news is recorded (`applied`, or `duplicate` when the record already held it), and `ignored` for older news or news of nothing the plugin keeps; a 503 when a retry by the service could succeed; a 400 `invalid_request` naming the field, with nothing written, for a time that is not whole Unix seconds from 2000-01-01 to 9999-12-31 UTC.",
    rawBody: callbackBody,
    errors: [503],
  }),
  'store-callbacks': returning("The payment callbacks of a store's own account", received, {
    description:
      "For a store with its own processing account: signed by the service with that store's keys, and applied to that store's records alone. Answers as `POST /callbacks`; an id of no store with its own account answers as a wrong signature does, 403 `invalid_signature`, so that the answer never tells which stores have their own account.",
    rawBody: callbackBody,
    errors: [503],
  }),
  health: {
    summary: 'Whether the plugin can reach the service',
    description:
      'Whether the processing keys are loaded, and whether the service answers one signed call within 5 s. Never a key, a token or a URL.',
    query: noQuery,
    answers: {
      200: { description: 'Both checks hold.', schema: health },
      503: { description: 'A check failed: `checks` says which.', schema: health },
    },
  },
  'list-webhook-deliveries': returning(
    'Webhook deliveries, newest first',
    view('A page of deliveries.', deliveryList),
    {
      description:
        'Each event the shop did not take at its first attempt (retried, failed or re-sent): its attempts and the last answer (status and time, never a body). An event delivered at its first attempt is not listed. Give `next_cursor` back as `cursor` for the next page.',
      query: deliveryListQuery,
    },
  ),
  'resend-webhook': returning('Re-send one webhook event', view('The delivery, pending.', deliveryView), {
    description:
      'Sends the event again, the same id and body, with a new 3-day retry window; after the events before it on its invoice or refund. An event delivered at its first attempt has no delivery: 404.',
    // 409 `in_progress` while a dispatcher keeps changing the delivery.
    errors: [409],
  }),
  'resend-failed-webhooks': returning(
    'Re-send every failed webhook event',
    view('How many were set to be re-sent.', resendReport),
    {
      description:
        'Up to 100 a call, longest failed first; call again while `more` is true. Takes no parameters; a body, if sent, must be `{}`.',
      query: noQuery,
      errors: [409],
    },
  ),
  'create-store': {
    summary: 'Create a store',
    description:
      "Its storefront token, admin token and webhook secret are answered this once: keep them. Without `processing` the store shares the deployment's processing account. The processing keys are write-only. An id taken is a 409 `store_exists`. A create that failed (a 5xx, or no answer) may be retried with the same id and body: it finishes the store and answers 201 with new tokens (the first were never answered); while the first may still be running (under a minute), 409 `in_progress`.",
    body: storeBody,
    answers: { 201: { description: 'Created.', schema: createdStore } },
    errors: [409],
  },
  'list-stores': returning('The stores', view('A page of stores.', storeList), {
    description:
      'The default store first, then the others oldest first; give `next_cursor` back as `cursor` for the next page.',
    query: storeListQuery,
  }),
  'get-store': returning('A store', store, {
    description: 'Never a key, a token or a secret. An unknown store is a 404 `store_not_found`.',
    query: noQuery,
  }),
  'update-store': returning('Change a store', store, {
    description:
      "Its name, webhook URL (null clears it) or processing keys (write-only: never answered back). A field left out keeps its value. The default store's settings belong to the deployment: 409 `default_store`. A shared store may get its own account (`processing`) at any time: its new orders are made there, and each earlier order stays on the shared account, with its callbacks, lookups and refunds. An own-account store's new keys must be the same merchant account's, which keeps its invoices. While another change of this store's keys, or a rotation of its webhook secret, is under way (under a minute, should its function stop mid-way), a change with `processing` answers 409 `in_progress` and changes nothing: retry it. A change without keys goes through meanwhile.",
    body: storeChangesBody,
    errors: [409],
  }),
  'rotate-store-tokens': returning("Rotate a store's tokens", view('The new tokens.', rotatedTokens), {
    description:
      "New storefront and admin tokens, answered this once. The previous ones keep working for `grace_seconds` (default a day), then answer 401; the previous ones of an earlier rotation stop now. The default store's tokens are in the tokens secret (409 `default_store`).",
    body: rotateTokensBody,
    errors: [409],
  }),
  'rotate-store-webhook-secret': returning(
    "Rotate a store's webhook secret",
    view('The new secret.', rotatedWebhookSecret),
    {
      description:
        "A new webhook secret, answered this once. The previous one keeps signing beside it for `grace_seconds` (default a day): `webhook-signature` then holds one signature per secret, space-separated, as Standard Webhooks allows, so the endpoint may switch at any time in the overlap. A secret replaced earlier stops now. While a change of this store's keys, or another rotation, is under way, it answers 409 `in_progress` and changes nothing: retry it. The default store's secret is the deployment's (409 `default_store`; docs/operations.md).",
      body: rotateWebhookSecretBody,
      errors: [409],
    },
  ),
  'disable-store': returning('Disable a store', store, {
    description:
      "Its tokens, and the platform token acting for it, answer 403 `store_disabled` on its routes; its callbacks are still applied and its webhooks still sent. Idempotent; warm functions see it within the store cache's time (docs/operations.md).",
    query: noQuery,
    errors: [409],
  }),
  'enable-store': returning('Enable a store', store, {
    description: 'Its tokens work again. Idempotent.',
    query: noQuery,
    errors: [409],
  }),
  'current-token': returning('What this token is', view('The token.', currentToken), {
    description:
      'Its scope and the store it acts for: a store token, its own store; the platform token, the store in `Store-Id`, else `default`.',
    query: noQuery,
  }),
  openapi: returning('This document', view('The OpenAPI 3.1 document.', openApiObject)),
};
