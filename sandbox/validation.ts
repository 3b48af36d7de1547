import { findCurrency, type Currency } from './currencies';
import { isPlainObject } from './json';
import { hasAtMost8Places, Money, toAmount, type Amount } from './money';

export type FieldErrors = Record<string, string>;
export type Checked<T> = { value: T } | { errors: FieldErrors };

type Body = Record<string, unknown>;

export type InvoiceType = 'fill_or_kill' | 'good_until_expired';

export interface InvoiceInput {
  type: InvoiceType;
  endUserReference?: string;
  timer: boolean;
  title: string;
  description?: string;
  foreignId: string;
  currency: Currency;
  senderCurrency?: Currency;
  amount: Amount;
  urlSuccess: string;
  urlFailed: string;
  emailUser: string;
}

export interface WithdrawalInput {
  foreignId: string;
  senderCurrency: Currency;
  receivedCurrency: Currency;
  senderAmount: Amount;
  address: string;
  endUserReference?: string;
}

export interface PairInput {
  from: Currency;
  to: Currency;
}

const label = (field: string) => field.replace(/_/g, ' ');
const isAbsent = (value: unknown) => value === undefined || value === null || value === '';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Collects one message per failing field, so that every problem is reported at once (spec 7.1). */
class Collector {
  readonly errors: FieldErrors = {};

  constructor(private readonly body: Body) {}

  fail(field: string, message: string): undefined {
    this.errors[field] ??= message;
    return undefined;
  }

  string(field: string, required: boolean): string | undefined {
    const value = this.body[field];
    if (isAbsent(value)) {
      return required ? this.fail(field, `The ${label(field)} field is required.`) : undefined;
    }
    if (typeof value !== 'string') return this.fail(field, `The ${label(field)} field must be a string.`);
    return value;
  }

  currency(
    field: string,
    required: boolean,
    allowed?: (currency: Currency) => boolean,
  ): Currency | undefined {
    const code = this.string(field, required);
    if (code === undefined) return undefined;
    const currency = findCurrency(code);
    if (!currency || (allowed && !allowed(currency))) {
      return this.fail(field, `The selected ${label(field)} is invalid.`);
    }
    return currency;
  }

  amount(field: string, minimum: string | undefined): Amount | undefined {
    const value = this.body[field];
    if (isAbsent(value)) return this.fail(field, `The ${label(field)} field is required.`);
    const amount = toAmount(value);
    if (!amount) return this.fail(field, `The ${label(field)} field must be a number.`);
    if (amount.lte(0)) return this.fail(field, `The ${label(field)} field must be greater than 0.`);
    if (!hasAtMost8Places(amount)) {
      return this.fail(field, `The ${label(field)} field must have at most 8 decimal places.`);
    }
    if (minimum !== undefined && amount.lt(minimum)) {
      return this.fail(field, `The ${label(field)} field must be at least ${new Money(minimum).toFixed(8)}.`);
    }
    return amount;
  }

  url(field: string): string | undefined {
    const value = this.string(field, true);
    if (value === undefined) return undefined;
    return isHttpUrl(value) ? value : this.fail(field, `The ${label(field)} field must be a valid URL.`);
  }

  result<T>(value: T): Checked<T> {
    return Object.keys(this.errors).length > 0 ? { errors: this.errors } : { value };
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Spec 2.1 and 8. `isTaken` says whether a foreign_id is already used. */
export function checkInvoice(body: Body, isTaken: (foreignId: string) => boolean): Checked<InvoiceInput> {
  const check = new Collector(body);
  const type = check.string('type', false) ?? 'fill_or_kill';
  if (type !== 'fill_or_kill' && type !== 'good_until_expired') {
    check.fail('type', 'The selected type is invalid.');
  }
  const endUserReference = check.string('end_user_reference', false);
  if (endUserReference !== undefined && EMAIL.test(endUserReference)) {
    check.fail('end_user_reference', 'The end user reference must not contain personal data.');
  }
  const timer = body.timer;
  if (isAbsent(timer)) check.fail('timer', 'The timer field is required.');
  else if (typeof timer !== 'boolean') check.fail('timer', 'The timer field must be true or false.');
  const title = check.string('title', true);
  if (title !== undefined && [...title].length > 50) {
    check.fail('title', 'The title field must be between 1 and 50 characters.');
  }
  const description = check.string('description', false);
  if (description !== undefined && [...description].length > 1000) {
    check.fail('description', 'The description field must not be greater than 1000 characters.');
  }
  const foreignId = check.string('foreign_id', true);
  if (foreignId !== undefined && isTaken(foreignId)) {
    check.fail('foreign_id', 'The foreign id has already been taken.');
  }
  const currency = check.currency('currency', true);
  // Customers pay into a blockchain address, so a pre-selected payment currency must be crypto.
  const senderCurrency = check.currency('sender_currency', false, (candidate) => candidate.type === 'crypto');
  const withExchange = senderCurrency !== undefined && senderCurrency !== currency;
  const minimum = currency && (withExchange ? currency.minAmountDepositWithExchange : currency.minAmount);
  const amount = check.amount('amount', minimum);
  const urlSuccess = check.url('url_success');
  const urlFailed = check.url('url_failed');
  const emailUser = check.string('email_user', true);
  if (emailUser !== undefined && !EMAIL.test(emailUser)) {
    check.fail('email_user', 'The email user field must be a valid email address.');
  }
  checkParty(check, body, 'sender');
  return check.result({
    type: type as InvoiceType,
    endUserReference,
    timer: timer as boolean,
    title: title!,
    description,
    foreignId: foreignId!,
    currency: currency!,
    senderCurrency,
    amount: amount!,
    urlSuccess: urlSuccess!,
    urlFailed: urlFailed!,
    emailUser: emailUser!,
  });
}

/** Spec 4.3: every field but end_user_reference is required; the target must be a cryptocurrency. */
export function checkWithdrawal(
  body: Body,
  isTaken: (foreignId: string) => boolean,
): Checked<WithdrawalInput> {
  const check = new Collector(body);
  const senderCurrency = check.currency('sender_currency', true);
  const receivedCurrency = check.currency(
    'received_currency',
    true,
    (candidate) => candidate.type === 'crypto',
  );
  if (senderCurrency && senderCurrency === receivedCurrency) {
    check.fail('received_currency', 'The received currency and sender currency must be different.');
  }
  const senderAmount = check.amount('sender_amount', senderCurrency?.minAmount);
  const address = check.string('address', true);
  // A test address the sandbox refuses, as the service refuses one that is not valid for the currency.
  if (address?.startsWith(REFUSED_ADDRESS_START)) check.fail('address', 'The address is invalid.');
  const foreignId = check.string('foreign_id', true);
  if (foreignId !== undefined && isTaken(foreignId)) {
    check.fail('foreign_id', 'The foreign id has already been taken.');
  }
  const endUserReference = check.string('end_user_reference', false);
  checkParty(check, body, 'receiver');
  return check.result({
    foreignId: foreignId!,
    senderCurrency: senderCurrency!,
    receivedCurrency: receivedCurrency!,
    senderAmount: senderAmount!,
    address: address!,
    endUserReference,
  });
}

/** A withdrawal to an address that starts so is refused: the way to try an address the service refuses. */
export const REFUSED_ADDRESS_START = 'invalid';
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A date as Y-m-d that reads back as written (no 2026-02-30), before today (UTC). */
function isPastDate(value: string): boolean {
  const ms = Date.parse(`${value}T00:00:00Z`);
  return (
    DATE.test(value) &&
    !Number.isNaN(ms) &&
    new Date(ms).toISOString().startsWith(value) &&
    value < new Date().toISOString().slice(0, 10)
  );
}

/**
 * The travel rule's payer of an invoice or receiver of a withdrawal (the service's "User data collection"): optional
 * here, since the seed spec predates it; when given, a natural person needs first name, last name and date of birth,
 * a company its name and country of registration (alpha-3, as the service's example writes it), each with an
 * optional e-mail; a receiver may be `self`, which takes no data.
 */
function checkParty(check: Collector, body: Body, role: 'sender' | 'receiver'): void {
  const typeField = `${role}_type`;
  const dataField = `${role}_data`;
  const type = check.string(typeField, false);
  const data = body[dataField];
  if (type === undefined) {
    if (!isAbsent(data))
      check.fail(typeField, `The ${role} type field is required when ${role} data is present.`);
    return;
  }
  if (type !== 'natural' && type !== 'legal' && !(role === 'receiver' && type === 'self')) {
    check.fail(typeField, `The selected ${role} type is invalid.`);
    return;
  }
  if (type === 'self') return;
  if (isAbsent(data)) {
    check.fail(
      dataField,
      role === 'receiver'
        ? 'The receiver data field is required unless receiver type is self.'
        : 'The sender data field is required when sender type is present.',
    );
    return;
  }
  if (!isPlainObject(data)) {
    check.fail(dataField, `The ${role} data field must be an object.`);
    return;
  }
  const inner = new Collector(data);
  if (type === 'natural') {
    inner.string('first_name', true);
    inner.string('last_name', true);
    const born = inner.string('date_of_birth', true);
    if (born !== undefined && !isPastDate(born)) {
      inner.fail(
        'date_of_birth',
        'The date of birth field must be a date before today, in the format Y-m-d.',
      );
    }
  } else {
    inner.string('legal_name', true);
    const country = inner.string('country_of_registration', true);
    if (country !== undefined && !/^[A-Z]{3}$/.test(country)) {
      inner.fail(
        'country_of_registration',
        'The country of registration must be an ISO 3166-1 alpha-3 code.',
      );
    }
  }
  const email = inner.string('email', false);
  if (email !== undefined && !EMAIL.test(email))
    inner.fail('email', 'The email field must be a valid email address.');
  for (const [field, message] of Object.entries(inner.errors)) check.fail(`${dataField}.${field}`, message);
}

/** Spec 4.5 and 4.6: both currencies are required, supported and different. */
export function checkPair(body: Body): Checked<PairInput> {
  const check = new Collector(body);
  const from = check.currency('currency_from', true);
  const to = check.currency('currency_to', true);
  if (from && from === to) check.fail('currency_to', 'The currency to and currency from must be different.');
  return check.result({ from: from!, to: to! });
}
