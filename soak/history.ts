// What a soak run records, and all the checker reads: the calls the storefront and the admin made and what they
// were answered, what the shop's endpoint received, and, after the quiet period, the plugin's and the service's
// final word on every order.

/** The fields of the plugin's invoice view that the checker reads (README, "The invoice view"). */
export interface InvoiceView {
  foreign_id: string;
  status: string;
  final: boolean;
  exception: string | null;
  processor_invoice_id: number | null;
  paid_amount: string;
  net_amount: string | null;
  net_currency: string | null;
  refundable: { amount: string; currency: string } | null;
  expires_at: string | null;
}

/** The fields of the plugin's refund view that the checker reads. */
export interface RefundView {
  foreign_id: string;
  invoice_foreign_id: string | null;
  status: string;
  debited_amount: string;
  debited_currency: string;
  transaction_id: number | null;
  /** When its claim link stops taking an address; null for a refund made with its address. */
  claim_expires_at: string | null;
}

/** An answer's JSON body: a view, an error, or text that was not JSON. */
export type AnswerBody = Partial<InvoiceView> & { error?: { code?: string } } & Record<string, unknown>;

/** One call to the plugin's API, as its caller saw it. */
export interface ApiCall {
  /** The order it concerns (its foreign_id), when it concerns one. */
  order?: string;
  /** The refund it concerns, for a call about one refund: its read, its claim page, its cancel. */
  refund?: string;
  /** What the caller meant: checkout, poll, cancel, refund, refund-poll, claim-read, claim, cancel-claim, resend. */
  action: string;
  /** Sent at once with another call about the same refund, as a double click is: their answers' order tells nothing. */
  alongside?: boolean;
  method: string;
  path: string;
  status: number;
  body: AnswerBody;
  /** Wall time the call took, in ms, as the caller saw it. */
  ms: number;
  /**
   * How long its function took to answer, from its start, as Lambda times it (soak/function-time.ts); absent
   * when the gateway answered without it: at the function's timeout, or for a killed invocation.
   */
  functionMs?: number;
  /** The function's process was killed on purpose while it ran: the platform's answer, not the function's. */
  killed?: boolean;
}

/** One attempt at the shop's webhook endpoint. */
export interface ShopDelivery {
  eventId: string;
  type: string;
  sequence: number;
  /** The order (an invoice event) or the refund (a refund event) the event is about. */
  subject: string;
  status: string | null;
  exception: string | null;
  /** Whether the signature verified with the webhook secret. */
  verified: boolean;
  /** What the endpoint answered; only a 2xx counts as received. */
  answered: number;
}

/** An invoice as the service holds it at the end. */
export interface UpstreamInvoice {
  id: number;
  foreign_id: string;
  status: string;
  error: string;
  currency: string;
  paid_amount: string;
  /** What the service credited the merchant, net of its fee; null before it credited anything. */
  credited_amount: string | null;
}

/** A withdrawal as the service holds it at the end. */
export interface UpstreamWithdrawal {
  id: number;
  foreign_id: string;
  status: string;
  sender_currency: string;
  sender_amount: string;
}

/** One payment service account's records at the end, and its balances at the start and at the end. */
export interface UpstreamAccount {
  invoices: UpstreamInvoice[];
  withdrawals: UpstreamWithdrawal[];
  /** foreign_id of every withdrawal request the service answered 2xx (a second one is a second send). */
  withdrawalsAccepted: string[];
  /** Balances per currency at the start and at the end. */
  balancesBefore: Record<string, string>;
  balancesAfter: Record<string, string>;
}

/** The payment service account a record was claimed on: the deployment's, or its store's own. */
export type AccountKind = 'shared' | 'own';

export interface History {
  seed: number;
  /** Every order the workload began, by foreign_id. */
  orders: string[];
  calls: ApiCall[];
  deliveries: ShopDelivery[];
  /** What befell each callback the service sent (soak/callback-relay.ts), by its foreign_id. */
  callbacks?: Array<{ subject: string; status: string; fate: string }>;
  /** The plugin's views at the end: null where it answers 404. */
  final: { invoices: Record<string, InvoiceView | null>; refunds: Record<string, RefundView | null> };
  /**
   * The deployment's account, where a store other than the default one puts `<store>!` before each foreign_id; and
   * the own account of each store moved to one during the run, by store id.
   */
  upstream: UpstreamAccount & { own?: Record<string, UpstreamAccount> };
  /** The store each order was made in, where it is not the default store. */
  stores?: Record<string, string>;
  /** The account each invoice and refund record was claimed on, as its item says, by foreign_id. */
  accounts?: { invoices: Record<string, AccountKind>; refunds: Record<string, AccountKind> };
  /** Every item written to the table, its key and size as DynamoDB counts it (UTF-8), and writes refused for size. */
  store: { largestItems: Array<{ key: string; bytes: number }>; refusedForSize: string[] };
  /** The clock at the end (ms), which decides whether an open order's time has run out. */
  endedAt: number;
  /** An API function's timeout (ms): no answer may come later. */
  apiTimeoutMs: number;
}
