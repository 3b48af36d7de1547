// What each route accepts: one line a field. These validate requests (http/inputs.ts) and describe them in the
// OpenAPI document (http/schemas/openapi.ts).
import * as v from 'valibot';
import { decodeCursor } from '../cursor';
import { fields, FOREIGN_ID } from '../validate';
import { INVOICE_STATUS_NAMES } from '../../domain/outcome';
import {
  DEFAULT_TRAVEL_RULE,
  DEFAULT_TRAVEL_RULE_SENDER,
  STORE_ID,
  TRAVEL_RULE_SETTINGS,
} from '../../domain/stores';
import {
  DEFAULT_STORE_REQUESTS_PER_SECOND,
  MAX_STORE_REQUESTS_PER_SECOND,
} from '../../domain/request-limits';
import { EVENT_ID } from '../../domain/webhooks';
import {
  amount,
  currency,
  email,
  flag,
  foreignId,
  metadata,
  oneOf,
  receiver,
  claimReceiver,
  sender,
  text,
  url,
  utcTime,
  wholeNumber,
} from './fields';

const endUserReference = v.optional(
  text({
    description: "The customer's reference in the store, shown to the service; not personal data.",
    max: 100,
  }),
);

export const checkoutBody = fields({
  foreign_id: foreignId("The order's id in the store; a repeated checkout with it answers the same invoice."),
  amount: amount('The amount of the order, in `currency`.'),
  currency: currency('The currency of `amount`.'),
  title: text({ description: 'Shown to the customer on the payment page.', notBlank: true, min: 1, max: 50 }),
  email: email("The customer's e-mail address."),
  url_success: url('Where the payment page sends the customer after paying.'),
  url_failed: url('Where the payment page sends the customer when the payment fails.'),
  timer: v.optional(flag('Whether the quote is fixed for a limited time.'), true),
  sender_currency: v.optional(
    currency('The currency the customer pays in, when known at checkout.', { notBlank: false }),
  ),
  description: v.optional(text({ description: 'Shown to the customer.', max: 1000, lineBreaks: true })),
  end_user_reference: endUserReference,
  type: v.optional(
    oneOf('How the service treats a partial payment.', ['fill_or_kill', 'good_until_expired']),
  ),
  metadata: v.optional(metadata("The store's own references, kept with the order and shown in its view.")),
  sender: v.optional(
    sender(
      "Who pays, for the travel rule (MiCA): sent to the payment service with the invoice's create as `sender_type` and `sender_data`, with `end_user_reference` when given (which must name the same customer), and kept nowhere: never in the order's record, a view, list, export, webhook or log. Whether a checkout may or must carry it is the store's `travel_rule_sender`.",
    ),
  ),
});

const refundAddress = (description = 'Where the refund is sent: printable ASCII with no spaces.') =>
  text({
    description,
    notBlank: true,
    max: 256,
    // Every address format the service pays to is ASCII; anything else is invisible, reorders what the admin
    // reads (bidi controls), or only looks like the address meant.
    pattern: /^[\x21-\x7e]+$/,
    patternMessage: 'must be printable ASCII with no spaces',
  });

const receiverField = receiver(
  "Who receives the refund, for the travel rule (MiCA): sent to the payment service with the withdrawal as `receiver_type` and `receiver_data`, and kept nowhere once sent: never in a view, list, export or webhook. Whether a refund may or must carry it is the store's `travel_rule`.",
);

const refundForeignId = foreignId(
  "The refund's id in the store; a repeated request with it answers the same refund.",
);

/** A refund of an order; its amount and currency default from the order when the refund is reserved. */
export const orderRefundBody = fields({
  foreign_id: refundForeignId,
  debited_amount: v.optional(
    amount(
      "What leaves the store's balance, in the currency the order was credited in (the order's `net_currency`); at most the order's `refundable`, which it is when absent.",
    ),
  ),
  currency: v.optional(
    currency('The cryptocurrency the customer receives; the currency they paid in when absent.', {
      notBlank: false,
    }),
  ),
  address: v.optional(
    refundAddress(
      'Where the refund is sent: printable ASCII with no spaces. Left out, the refund waits for its customer to give it through a claim link.',
    ),
  ),
  end_user_reference: endUserReference,
  receiver: v.optional(receiverField),
});

/** The customer's answer to a claim link: where the refund goes, and who receives it where the store asks. */
export const claimBody = fields({
  address: refundAddress(),
  receiver: v.optional(
    claimReceiver(
      "Who receives the refund, for the travel rule (MiCA): the customer, a person or a company. Sent to the payment service with the withdrawal and kept nowhere once sent. Whether it may or must come is the store's `travel_rule`.",
    ),
  ),
});

/** A payout tied to no order: the store names every amount itself. */
export const refundBody = fields({
  foreign_id: refundForeignId,
  debited_currency: currency("The balance currency the payout leaves the store's balance in."),
  debited_amount: amount("What leaves the store's balance, in `debited_currency`."),
  currency: currency('The cryptocurrency the customer receives.'),
  address: refundAddress(),
  end_user_reference: endUserReference,
  receiver: v.optional(receiverField),
});

/** A route that takes no fields: a body, if any, is `{}`. */
export const noBody = fields({});

export const pairQuery = fields({
  from: currency('The currency to convert from.'),
  to: currency('The currency to convert to.'),
});

export const checkoutOptionsQuery = fields({
  amount: amount('The amount of the order, in `currency`, as checkout would take it.'),
  currency: currency('The currency of the order, as checkout would take it.'),
});

export const transactionQuery = fields({
  id: v.optional(
    wholeNumber({
      description: "The service's transaction id; give this or `foreign_id`.",
      minimum: 1,
      rangeMessage: 'must be a positive whole number',
    }),
  ),
  foreign_id: v.optional(foreignId('The foreign_id of the refund; give this or `id`.', { notBlank: false })),
});

export const balancesQuery = fields({
  live: v.optional(flag('Ask the service now and store a snapshot, rather than read the latest one.'), false),
});

/** A route that takes no parameters refuses any given, so that a typo never passes silently. */
export const noQuery = fields({});

export const LIST_LIMIT = 20;

const limit = (what: string) =>
  v.optional(
    wholeNumber({
      description: `At most this many ${what} a page.`,
      minimum: 1,
      maximum: 100,
      rangeMessage: 'must be between 1 and 100',
      default: LIST_LIMIT,
    }),
  );

/** A list's own `next_cursor`: a record list's holds a foreign_id, the history's none. */
const cursor = (foreignIdCheck?: (value: string) => boolean) =>
  v.optional(
    v.pipe(
      text({ description: 'The `next_cursor` of the page before; the first page when absent.' }),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const position = decodeCursor(dataset.value, foreignIdCheck);
        if (position) return position;
        addIssue({ message: 'must be a next_cursor this list gave' });
        return NEVER;
      }),
    ),
  );

const recordList = {
  created_after: v.optional(utcTime('Only records created after this time.')),
  created_before: v.optional(utcTime('Only records created before this time; later than `created_after`.')),
  limit: limit('records'),
  cursor: cursor((value) => FOREIGN_ID.test(value)),
};

/**
 * Both bounds are strict, as they read, so `created_before` must be later than `created_after`: checked when both
 * are valid times, even when another field is at fault, so that one 400 names every field.
 */
const createdRange = <T extends { created_after?: number; created_before?: number }>() =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    // An object always (readFields hands one over), though untyped when a field is at fault.
    const input = dataset.value as Record<string, unknown>;
    const { created_after: after, created_before: before } = input;
    if (typeof after !== 'number' || typeof before !== 'number' || before > after) return;
    addIssue({
      message: 'must be later than created_after',
      path: [{ type: 'object', origin: 'value', input, key: 'created_before', value: before }],
    });
  });

export const invoiceListQuery = v.pipe(
  fields({ status: v.optional(oneOf('Only invoices in this status.', INVOICE_STATUS_NAMES)), ...recordList }),
  createdRange(),
);

export const refundListQuery = v.pipe(fields(recordList), createdRange());

/** An export's period; its pages follow the `Link` header, whose cursor is the list's own. */
export const exportQuery = v.pipe(
  fields({
    created_after: recordList.created_after,
    created_before: recordList.created_before,
    cursor: recordList.cursor,
  }),
  createdRange(),
);

export const deliveryListQuery = fields({
  limit: limit('deliveries'),
  cursor: cursor((value) => EVENT_ID.test(value)),
});

export const historyQuery = fields({
  since: v.optional(utcTime('Only snapshots taken at or after this time; from the first when absent.')),
  limit: limit('snapshots'),
  cursor: cursor(),
});

// Stores (issue 33): what the platform token sends to make and change them.
const STORE_ID_MESSAGE =
  'must be 1 to 32 lowercase letters, digits or "-", starting and ending with a letter or a digit';

export const storeId = (description: string) =>
  text({ description, notBlank: true, pattern: STORE_ID, patternMessage: STORE_ID_MESSAGE });

const storeName = text({ description: "The store's name, as people read it.", notBlank: true, max: 100 });
const webhookUrl = url(
  "Where the store's webhooks go: https (a loopback http URL only where the deployment allows it).",
);

/** A store's own account at the payment service: write-only, never answered back. */
const processingAccount = v.strictObject(
  {
    api_key: text({ description: 'The API key of the merchant account.', notBlank: true, max: 256 }),
    secret_key: text({
      description: 'The secret key of the merchant account; never answered back.',
      notBlank: true,
      max: 256,
    }),
    base_url: url('The base URL of the payment service for this account.'),
  },
  'must be an object with api_key, secret_key and base_url, and no other field',
);

const travelRule = oneOf(
  `Whether the store's refunds carry the travel rule's \`receiver\`: \`off\` refuses a refund with one, \`required\` one without, \`optional\` sends it when given. \`${DEFAULT_TRAVEL_RULE}\` when never set.`,
  TRAVEL_RULE_SETTINGS,
);

const travelRuleSender = oneOf(
  `Whether the store's checkouts carry the payer's travel-rule data, \`sender\`: \`off\` refuses a checkout with one, \`required\` one without, \`optional\` sends it when given. \`${DEFAULT_TRAVEL_RULE_SENDER}\` when never set.`,
  TRAVEL_RULE_SETTINGS,
);

export const MAX_CLAIM_LINK_DAYS = 365;

const claimLinkDays = wholeNumber({
  description:
    "How many days the store's refund claim links take the customer's address; then the amount is released. The deployment's `CLAIM_LINK_DAYS` (30 by default) when never set.",
  minimum: 1,
  maximum: MAX_CLAIM_LINK_DAYS,
  rangeMessage: `must be between 1 and ${MAX_CLAIM_LINK_DAYS}`,
  jsonOnly: true,
});

const requestsPerSecond = wholeNumber({
  description: `How many requests a second the store's tokens and customers may make, all routes together; past it, 429 \`rate_limited\`. The stage's \`storeRequestsPerSecond\` (${DEFAULT_STORE_REQUESTS_PER_SECOND} by default) when never set.`,
  minimum: 1,
  maximum: MAX_STORE_REQUESTS_PER_SECOND,
  rangeMessage: `must be between 1 and ${MAX_STORE_REQUESTS_PER_SECOND}`,
  jsonOnly: true,
});

/** A store's settings as a create gives them: a change states only how it differs. */
const storeSettings = {
  name: storeName,
  webhook_url: v.optional(webhookUrl),
  processing: v.optional(processingAccount),
  travel_rule: v.optional(travelRule),
  travel_rule_sender: v.optional(travelRuleSender),
  claim_link_days: v.optional(claimLinkDays),
  requests_per_second: v.optional(requestsPerSecond),
};

export const storeBody = fields({
  id: storeId('The store id: it appears in keys, URLs and upstream foreign_ids, and never changes.'),
  ...storeSettings,
});

/** A change may leave out the name, and a null clears the endpoint, the claim links' term or the limit. */
export const storeChangesBody = fields({
  ...storeSettings,
  name: v.optional(storeName),
  webhook_url: v.optional(v.nullable(webhookUrl)),
  claim_link_days: v.optional(v.nullable(claimLinkDays)),
  requests_per_second: v.optional(v.nullable(requestsPerSecond)),
});

export const MAX_GRACE_SECONDS = 604_800;

export const rotateTokensBody = fields({
  grace_seconds: v.optional(
    wholeNumber({
      description: 'How long the tokens being replaced keep working, in seconds.',
      minimum: 0,
      maximum: MAX_GRACE_SECONDS,
      rangeMessage: `must be between 0 and ${MAX_GRACE_SECONDS}`,
      default: 86_400,
      jsonOnly: true,
    }),
  ),
});

export const rotateWebhookSecretBody = fields({
  grace_seconds: v.optional(
    wholeNumber({
      description: 'How long the webhook secret being replaced keeps signing beside the new one, in seconds.',
      minimum: 0,
      maximum: MAX_GRACE_SECONDS,
      rangeMessage: `must be between 0 and ${MAX_GRACE_SECONDS}`,
      default: 86_400,
      jsonOnly: true,
    }),
  ),
});

export const storeListQuery = fields({
  limit: limit('stores'),
  cursor: cursor((value) => STORE_ID.test(value)),
});
