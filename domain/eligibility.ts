// Which currencies a customer may pay an amount in: the service's pairs give each currency's minimums and
// an estimated rate; the minimum applied is the one the service applies to an invoice with that `sender_currency`.
import { Decimal } from './decimal';
import { InvalidFieldsError, serviceFailure, ServiceError, type Minimum } from './errors';
import type { CheckoutRequest, ServiceData } from './model';
import type { MarketAccount } from './market';

/** One currency the customer may pay in: the least `amount` the service takes for it, and about what they pay. */
export interface PayOption {
  payCurrency: string;
  /** In the order's currency, 8 fractional digits. */
  minAmount: string;
  /** In `payCurrency`, 8 fractional digits, rounded up: an estimate, the invoice's quote is what counts. */
  payAmount: string;
}

/** What the service's pair entry (spec 2.4) tells of paying `currency` amounts in `currency_to`. */
interface PairFacts {
  toType: string;
  minAmount: Decimal;
  minWithExchange: Decimal;
  /** The price of one unit of the order's currency in the pay currency. */
  rate: Decimal;
}

/** A pair the service refused names an unknown currency: on `currency_from`, the order's; else the pay currency's. */
export type PairLookup = { facts: PairFacts } | { unknown: 'currency' | 'pay_currency' };

interface Cached {
  expiresAt: number;
  lookup: Promise<PairLookup>;
}

const FRACTION_DIGITS = 8;

/** The cryptocurrencies a checkout offers to pay in, in this order: those the sandbox offers. */
export const PAY_CURRENCIES = ['BTC', 'ETH', 'LTC', 'USDT', 'XRP', 'TRX'] as const;

/** The rule the service applies at invoice creation: the exchange minimum when the customer pays in another currency. */
export function minimumOf(facts: PairFacts, currency: string, payCurrency: string | undefined): Decimal {
  return payCurrency !== undefined && payCurrency !== currency ? facts.minWithExchange : facts.minAmount;
}

export class EligibilityService {
  private readonly cache = new Map<string, Cached>();

  constructor(
    /** The crypto currencies offered to customers, in the order the options list them. */
    private readonly payCurrencies: readonly string[],
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * The currencies a customer may pay `amount` of `currency` in, with each one's minimum: those whose minimum the
   * amount reaches, as the service's check at invoice creation would find. A currency the service does not know is
   * refused by name; a pay currency it does not pair with `currency` is left out.
   */
  async options(account: MarketAccount, amount: string, currency: string): Promise<PayOption[]> {
    const due = new Decimal(amount);
    const others = this.payCurrencies.filter((pay) => pay !== currency);
    const lookups = await Promise.all(others.map((pay) => this.pair(account, currency, pay)));
    const known = new Map<string, PairFacts>();
    lookups.forEach((lookup, index) => {
      if ('facts' in lookup) known.set(others[index], lookup.facts);
      else if (lookup.unknown === 'currency') throw unknownCurrency(currency);
    });
    const options: PayOption[] = [];
    for (const pay of this.payCurrencies) {
      const facts = pay === currency ? sameCurrency(known) : known.get(pay);
      if (!facts || facts.toType !== 'crypto') continue;
      const minimum = minimumOf(facts, currency, pay);
      if (due.lt(minimum)) continue;
      options.push({
        payCurrency: pay,
        minAmount: minimum.toFixed(FRACTION_DIGITS),
        payAmount: due
          .times(facts.rate)
          .toDecimalPlaces(FRACTION_DIGITS, Decimal.ROUND_UP)
          .toFixed(FRACTION_DIGITS),
      });
    }
    return options;
  }

  /**
   * A checkout the service refused on its amount, with the minimum it applied named, when the cached pairs show the
   * amount below it; any other error as it is.
   */
  async namingMinimum(
    error: unknown,
    account: () => Promise<MarketAccount>,
    request: CheckoutRequest,
  ): Promise<unknown> {
    if (serviceFailure(error) !== 'refused' || !(error as ServiceError).fields.amount) return error;
    const refused = error as ServiceError;
    try {
      const minimum = await this.minimum(await account(), request.currency, request.senderCurrency);
      if (!minimum || !new Decimal(request.amount).lt(minimum.amount)) return error;
      return new ServiceError('refused', refused.message, {
        code: refused.code,
        fields: refused.fields,
        reason: refused.reason,
        minimum,
        cause: refused.cause,
      });
    } catch {
      // The refusal is the answer; the minimum only explains it.
      return error;
    }
  }

  /** The least amount of `currency` the service takes for an invoice paid in `payCurrency`, if the pairs tell. */
  private async minimum(
    account: MarketAccount,
    currency: string,
    payCurrency: string | undefined,
  ): Promise<Minimum | undefined> {
    const partner =
      payCurrency !== undefined && payCurrency !== currency ? payCurrency : this.partnerOf(currency);
    if (partner === undefined) return undefined;
    const lookup = await this.pair(account, currency, partner);
    if (!('facts' in lookup)) return undefined;
    return { amount: minimumOf(lookup.facts, currency, payCurrency).toFixed(FRACTION_DIGITS), currency };
  }

  /** Any other currency to ask a pair with: the minimums belong to `currency_from` whatever it pairs with. */
  private partnerOf(currency: string): string | undefined {
    return this.payCurrencies.find((pay) => pay !== currency);
  }

  /** One pair, from the cache while it is fresh; a failed call is never kept, a refusal is. */
  private pair(account: MarketAccount, from: string, to: string): Promise<PairLookup> {
    const key = `${account.key}\u0000${from}\u0000${to}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.lookup;
    const lookup = account.api.pairs({ currency_from: from, currency_to: to }).then(
      (entries) => readPair(entries, from, to),
      (error: unknown) => refusedPair(error),
    );
    this.cache.set(key, { expiresAt: this.now() + this.ttlMs, lookup });
    lookup.catch(() => {
      if (this.cache.get(key)?.lookup === lookup) this.cache.delete(key);
    });
    return lookup;
  }
}

/** Paying in the order's own currency: no exchange, one for one; its minimums are on every pair from it. */
function sameCurrency(known: Map<string, PairFacts>): PairFacts | undefined {
  const any = known.values().next().value;
  return any && { ...any, toType: 'crypto', rate: new Decimal(1) };
}

function unknownCurrency(currency: string): InvalidFieldsError {
  return new InvalidFieldsError({ currency: `the payment service does not take ${currency}` });
}

/** A refusal names the field the service found unknown; any other failure is thrown. */
function refusedPair(error: unknown): PairLookup {
  if (serviceFailure(error) !== 'refused') throw error;
  const fields = (error as ServiceError).fields;
  return { unknown: fields.currency_from !== undefined ? 'currency' : 'pay_currency' };
}

/** The entry for `from` → `to`, read as decimals; an entry that does not read so is no pair. */
function readPair(entries: ServiceData[], from: string, to: string): PairLookup {
  for (const entry of entries) {
    const { currency_from, currency_to, rate_from, rate_to } = entry as Record<string, unknown>;
    const source = currency_from as Record<string, unknown> | undefined;
    const target = currency_to as Record<string, unknown> | undefined;
    if (source?.currency !== from || target?.currency !== to) continue;
    const minAmount = decimalOf(source.min_amount);
    const minWithExchange = decimalOf(source.min_amount_deposit_with_exchange);
    const rateFrom = decimalOf(rate_from);
    const rateTo = decimalOf(rate_to);
    if (!minAmount || !minWithExchange || !rateFrom || !rateTo || rateFrom.isZero()) break;
    return {
      facts: { toType: String(target.type), minAmount, minWithExchange, rate: rateTo.div(rateFrom) },
    };
  }
  return { unknown: 'pay_currency' };
}

const PLAIN_DECIMAL = /^\d{1,40}(\.\d{1,40})?$/;

function decimalOf(value: unknown): Decimal | undefined {
  return typeof value === 'string' && PLAIN_DECIMAL.test(value) ? new Decimal(value) : undefined;
}
