// Shapes of the Merchant Processing API v2 (spec sections 2 and 4), as the service words them. Amounts are decimal
// strings. Depends on nothing: the adapter (processing/adapter.ts) maps these to the domain's own types.

export type CurrencyType = 'crypto' | 'fiat';

export interface CreateInvoiceRequest {
  foreign_id: string;
  timer: boolean;
  title: string;
  currency: string;
  /** Decimal string; sent without passing through a float. */
  amount: string;
  url_success: string;
  url_failed: string;
  email_user: string;
  type?: 'fill_or_kill' | 'good_until_expired';
  end_user_reference?: string;
  description?: string;
  sender_currency?: string;
  /** The travel rule's payer (the service's "User data collection" and "Create an invoice"). */
  sender_type?: 'natural' | 'legal';
  sender_data?: TravelRuleData;
}

export interface Invoice {
  id: number;
  url: string;
  foreign_id: string;
  end_user_reference?: string;
  address: string | null;
  tag?: string | null;
  title: string;
  status: 'created' | 'pending' | 'processing' | 'confirmed' | 'failed';
  currency: string;
  amount: string;
  sender_currency: string | null;
  sender_amount: string | null;
  fixed_at: number | null;
  release_at: number | null;
  seconds_left: number | null;
}

export interface WithdrawalRequest {
  foreign_id: string;
  sender_currency: string;
  received_currency: string;
  sender_amount: string;
  address: string;
  end_user_reference?: string;
  /** The travel rule's receiver (the service's "User data collection"); `self` carries no data. */
  receiver_type?: 'natural' | 'legal' | 'self';
  receiver_data?: NaturalReceiverData | LegalReceiverData;
}

/** A person's or a company's travel-rule data, as a receiver's or a payer's. */
export type TravelRuleData = NaturalReceiverData | LegalReceiverData;

export interface NaturalReceiverData {
  first_name: string;
  last_name: string;
  /** YYYY-MM-DD */
  date_of_birth: string;
  email?: string;
}

export interface LegalReceiverData {
  legal_name: string;
  /** ISO 3166-1 alpha-3, as the service's example writes it ("DEU"). */
  country_of_registration: string;
  email?: string;
}

export interface Withdrawal {
  id: number;
  foreign_id: string;
  end_user_reference?: string;
  type: 'withdrawal_instant_exchange';
  status: string;
  sender_currency: string;
  sender_amount: string;
  received_currency: string;
  received_amount: string;
}

export interface AccountBalance {
  currency: string;
  type: CurrencyType;
  balance: string;
}

export interface CurrencyPair {
  currency_from: string;
  currency_to: string;
}

export interface PairEntry {
  currency_from: {
    currency: string;
    type: CurrencyType;
    min_amount: string;
    min_amount_deposit_with_exchange: string;
    description?: string;
  };
  currency_to: { currency: string; type: CurrencyType; description?: string };
  rate_from: string;
  rate_to: string;
}

/** Transaction record (spec 2.6). Numeric `amount` fields arrive as JSON numbers and are kept as decimal strings. */
export interface TransactionRecord {
  id: number;
  foreign_id: string;
  type: 'withdrawal' | 'withrawal_exchange' | 'exchange' | string;
  crypto_address?: { id: number; currency: string; address: string; tag: string | null };
  currency_sent?: { currency: string; amount: string; remaining_amount?: string };
  currency_received?: { currency: string; amount: string };
  transactions: Array<{
    id: number;
    currency: string;
    transaction_type: string;
    type: string;
    address: string;
    tag: string | null;
    amount: string;
    txid: string;
    confirmations: number;
  }>;
  fees: Array<{ type: string; currency: string; amount: string }>;
  error: string;
  status: string;
  /** Not in the spec's record; the service's callbacks carry it (docs/payment-outcomes-notes.md). */
  expires_at?: unknown;
}

export type TransactionKey = { id: number } | { foreign_id: string };
