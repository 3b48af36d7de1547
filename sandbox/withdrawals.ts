import { convert, fakeTxid } from './currencies';
import { notFound, reply, ReplyError } from './http';
import { CONFIRMATIONS, type Notify } from './invoices';
import { roundDown8 } from './money';
import { withdrawalTransaction } from './records';
import type { SandboxState, WithdrawalRecord } from './state';
import type { WithdrawalInput } from './validation';

export const WITHDRAWAL_FAILED_ERROR = 'Withdrawal failed.';

/** Instant withdrawals with exchange (spec 4.3): debited once on creation, completed through the control API. */
export class WithdrawalDesk {
  constructor(
    private readonly state: SandboxState,
    private readonly notify: Notify,
  ) {}

  create(input: WithdrawalInput): WithdrawalRecord {
    if (!this.state.ledger.debit(input.senderCurrency.code, input.senderAmount)) {
      throw new ReplyError(reply(400, { errors: { sender_amount: 'Insufficient funds.' } }));
    }
    const withdrawal: WithdrawalRecord = {
      kind: 'withdrawal',
      id: this.state.takeTransactionId(),
      foreignId: input.foreignId,
      endUserReference: input.endUserReference,
      senderCurrency: input.senderCurrency,
      senderAmount: input.senderAmount,
      receivedCurrency: input.receivedCurrency,
      receivedAmount: roundDown8(convert(input.senderAmount, input.senderCurrency, input.receivedCurrency)),
      address: { id: this.state.takeAddressId(), address: input.address },
      status: 'processing',
      error: '',
      transfers: [],
    };
    this.state.addWithdrawal(withdrawal);
    return withdrawal;
  }

  /** Ends a `processing` withdrawal; a failed one gives the debited amount back. */
  complete(foreignId: string, status: 'confirmed' | 'failed', error?: string): WithdrawalRecord {
    const withdrawal = this.state.withdrawals.get(foreignId);
    if (!withdrawal) throw new ReplyError(notFound('Withdrawal not found'));
    if (withdrawal.status !== 'processing') {
      throw new ReplyError(
        reply(400, {
          error: 'Withdrawal cannot be completed in its current state.',
          code: 'invalid_withdrawal_state',
        }),
      );
    }
    if (status === 'confirmed') {
      withdrawal.transfers.push({
        id: this.state.takeTransferId(),
        amount: withdrawal.receivedAmount,
        txid: fakeTxid(`withdrawal:${withdrawal.id}`),
        confirmations: CONFIRMATIONS,
      });
    } else {
      this.state.ledger.credit(withdrawal.senderCurrency.code, withdrawal.senderAmount);
      withdrawal.error = error ?? WITHDRAWAL_FAILED_ERROR;
    }
    withdrawal.status = status;
    this.notify(`withdrawal:${withdrawal.id}`, withdrawalTransaction(withdrawal));
    return withdrawal;
  }
}
