// What each route accepts: one line a field. These validate requests (http/inputs.ts) and describe them in the
// OpenAPI document (api/openapi.ts).
import * as v from 'valibot';
import { fields } from '../validate';
import { amount, currency, email, flag, foreignId, oneOf, text, url, wholeNumber } from './fields';

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
});

export const refundBody = fields({
  foreign_id: foreignId("The refund's id in the store; a repeated request with it answers the same refund."),
  sender_currency: currency('The balance currency the refund is paid from.'),
  received_currency: currency('The cryptocurrency the customer receives.'),
  sender_amount: amount('The amount taken from the balance, in `sender_currency`.'),
  address: text({
    description: 'Where the refund is sent: printable ASCII with no spaces.',
    notBlank: true,
    max: 256,
    // Every address format the service pays to is ASCII; anything else is invisible, reorders what the admin
    // reads (bidi controls), or only looks like the address meant.
    pattern: /^[\x21-\x7e]+$/,
    patternMessage: 'must be printable ASCII with no spaces',
  }),
  end_user_reference: endUserReference,
});

export const pairQuery = fields({
  from: currency('The currency to convert from.'),
  to: currency('The currency to convert to.'),
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

export const HISTORY_LIMIT = 100;

export const historyQuery = fields({
  since: v.optional(
    v.pipe(
      text({ description: 'The earliest time, ISO 8601; the first snapshot when absent.' }),
      v.check((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO 8601 time'),
      v.metadata({ format: 'date-time' }),
      v.transform(Date.parse),
    ),
  ),
  limit: v.optional(
    wholeNumber({
      description: 'At most this many snapshots.',
      minimum: 1,
      maximum: 1000,
      rangeMessage: 'must be between 1 and 1000',
      default: HISTORY_LIMIT,
    }),
  ),
});
