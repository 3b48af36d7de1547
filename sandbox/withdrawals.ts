import { convert, fakeTxid } from './currencies';
import { notFound, reply, ReplyError } from './http';
import { CONFIRMATIONS, type Notify } from './invoices';
import { roundDown8 } from './money';
import { withdrawalTransaction } from './records';
import type { SandboxState, WithdrawalRecord } from './state';
import type { WithdrawalInput } from './validation';

export const WITHDRAWAL_FAILED_ERROR = 'Withdrawal failed.';
export const WITHDRAWAL_DECLINED_ERROR = 'Withdrawal declined.';
export const WITHDRAWAL_CANCELLED_ERROR = 'Withdrawal cancelled.';

/**
 * Instant withdrawals with exchange (spec 4.3): debited once on creation, completed through the control API. One
 * over its currency's approval limit is created `pending` and waits for the control API to approve it (→
 * `processing`) or decline or cancel it (the debit given back), as another owner would in the service's back office.
 */
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
      status: this.overLimit(input) ? 'pending' : 'processing',
      error: '',
      transfers: [],
    };
    this.state.addWithdrawal(withdrawal);
    // The service calls back on a withdrawal held for approval, as on every later status.
    if (withdrawal.status === 'pending') this.announce(withdrawal);
    return withdrawal;
  }

  private overLimit(input: WithdrawalInput): boolean {
    const limit = this.state.approvalLimits.get(input.senderCurrency.code);
    return limit !== undefined && input.senderAmount.gt(limit);
  }

  /** Approves a `pending` withdrawal: it goes on to `processing`, to be completed as any other. */
  approve(foreignId: string): WithdrawalRecord {
    const withdrawal = this.inState(foreignId, 'pending');
    withdrawal.status = 'processing';
    this.announce(withdrawal);
    return withdrawal;
  }

  /** Declines or cancels a `pending` withdrawal: the debited amount is given back. */
  refuse(foreignId: string, status: 'declined' | 'cancelled', error?: string): WithdrawalRecord {
    const withdrawal = this.inState(foreignId, 'pending');
    this.state.ledger.credit(withdrawal.senderCurrency.code, withdrawal.senderAmount);
    withdrawal.error =
      error ?? (status === 'declined' ? WITHDRAWAL_DECLINED_ERROR : WITHDRAWAL_CANCELLED_ERROR);
    withdrawal.status = status;
    this.announce(withdrawal);
    return withdrawal;
  }

  private inState(foreignId: string, status: WithdrawalRecord['status']): WithdrawalRecord {
    const withdrawal = this.state.withdrawals.get(foreignId);
    if (!withdrawal) throw new ReplyError(notFound('Withdrawal not found'));
    if (withdrawal.status !== status) {
      throw new ReplyError(
        reply(400, {
          error: `Withdrawal is not ${status}.`,
          code: 'invalid_withdrawal_state',
        }),
      );
    }
    return withdrawal;
  }

  private announce(withdrawal: WithdrawalRecord): void {
    this.notify(`withdrawal:${withdrawal.id}`, withdrawalTransaction(withdrawal));
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
