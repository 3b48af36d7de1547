// The service's signed callback, as the OpenAPI document describes it (POST /callbacks).
import * as v from 'valibot';

const described = <S extends v.GenericSchema>(schema: S, description: string) =>
  v.pipe(schema, v.description(description));

/**
 * The service's invoice or withdrawal callback, as its public docs show it (docs/payment-outcomes-notes.md):
 * documented only, since the route checks a callback by its signature over the raw bytes and reads what it knows.
 */
export const callbackBody = v.pipe(
  v.looseObject({
    id: v.optional(described(v.number(), "The transaction's id at the service.")),
    foreign_id: described(v.string(), 'Our id of the invoice (with `~<attempt>` after the first) or refund.'),
    type: described(v.string(), '`invoice`, or a withdrawal type such as `withdrawal_instant_exchange`.'),
    status: described(v.string(), "The transaction's status at the service."),
    error: v.optional(described(v.string(), 'Why it failed; empty when it did not.')),
    currency_sent: v.optional(
      described(v.looseObject({}), 'What the customer sent: `currency`, `amount`, `remaining_amount`.'),
    ),
    currency_received: v.optional(
      described(v.looseObject({}), 'What the service credited, net of its fees: `currency`, `amount`.'),
    ),
    fees: v.optional(described(v.array(v.looseObject({})), 'Each fee: `type`, `currency`, `amount`.')),
    transactions: v.optional(described(v.array(v.looseObject({})), 'The blockchain transfers seen.')),
    expires_at: v.optional(
      v.nullable(described(v.number(), 'Unix seconds; extended once a payment is seen.')),
    ),
  }),
  v.description(
    'Signed by the service over these exact bytes (`X-Processing-Signature`, with `X-Processing-Key`). Texts and lists are kept bounded; a field the plugin does not read is ignored.',
  ),
);
