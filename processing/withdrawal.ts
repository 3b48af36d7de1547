// A withdrawal found by transaction lookup, in the shape the create call answers (spec 2.5 from 2.6).
import { Decimal } from '../domain/decimal';
import { ProcessingUpstreamError } from './errors';
import type { TransactionRecord, Withdrawal, WithdrawalRequest } from './wire';

/** Throws ProcessingUpstreamError when the record lacks the sent or received currency of a withdrawal. */
export function withdrawalFromTransaction(record: TransactionRecord): Withdrawal {
  const sent = record.currency_sent;
  const received = record.currency_received;
  if (!sent || !received) {
    throw new ProcessingUpstreamError({
      operation: 'getTransaction',
      code: 'invalid_response',
      message: `getTransaction: transaction ${record.id} is not a withdrawal with exchange`,
    });
  }
  return {
    id: record.id,
    foreign_id: record.foreign_id,
    type: 'withdrawal_instant_exchange',
    status: record.status,
    sender_currency: sent.currency,
    sender_amount: sent.amount,
    received_currency: received.currency,
    received_amount: received.amount,
  };
}

/**
 * True when the record is the withdrawal this request asked for (same amount, currencies and address), not
 * another one under the same foreign_id. Only such a record may be taken for ours.
 */
export function isWithdrawalFor(record: TransactionRecord, request: WithdrawalRequest): boolean {
  const sent = record.currency_sent;
  return (
    record.foreign_id === request.foreign_id &&
    sent?.currency === request.sender_currency &&
    record.currency_received?.currency === request.received_currency &&
    record.crypto_address?.address === request.address &&
    new Decimal(sent.amount).eq(request.sender_amount)
  );
}
