import { createHash } from 'node:crypto';
import { fixed8, Money, type Amount } from './money';

export type CurrencyType = 'crypto' | 'fiat';

export interface Currency {
  code: string;
  type: CurrencyType;
  description: string;
  /** Fixed reference price; every rate is derived from this table. */
  usdPrice: string;
  /** Minimum invoice amount and minimum withdrawal from this currency. */
  minAmount: string;
  /** Minimum invoice amount when the customer pays in another currency. */
  minAmountDepositWithExchange: string;
  seedBalance: string;
  /** Deposits need a destination tag (one shared address, one tag per invoice). */
  usesTag: boolean;
}

export const CURRENCIES: readonly Currency[] = [
  currency('crypto', 'BTC', 'Bitcoin', '60000', '0.0001', '0.0005', '1.5'),
  currency('crypto', 'ETH', 'Ethereum', '3000', '0.001', '0.01', '20'),
  currency('crypto', 'LTC', 'Litecoin', '80', '0.01', '0.1', '100'),
  currency('crypto', 'USDT', 'Tether USD (TRC-20)', '1', '1', '5', '50000'),
  currency('crypto', 'XRP', 'XRP', '0.5', '1', '10', '20000', true),
  currency('crypto', 'TRX', 'TRON', '0.1', '10', '50', '100000'),
  currency('fiat', 'EUR', 'Euro', '1.08', '1', '5', '10000'),
  currency('fiat', 'USD', 'US Dollar', '1', '1', '5', '25000'),
];

function currency(
  type: CurrencyType,
  code: string,
  description: string,
  usdPrice: string,
  minAmount: string,
  minAmountDepositWithExchange: string,
  seedBalance: string,
  usesTag = false,
): Currency {
  return { code, type, description, usdPrice, minAmount, minAmountDepositWithExchange, seedBalance, usesTag };
}

export function findCurrency(code: unknown): Currency | undefined {
  return typeof code === 'string' ? CURRENCIES.find((currency) => currency.code === code) : undefined;
}

/** Price of one unit of `from` in `to`, to 10 significant digits; this exact string is published and used. */
export function rate(from: Currency, to: Currency): string {
  return new Money(from.usdPrice).div(to.usdPrice).toSignificantDigits(10).toFixed();
}

export function convert(amount: Amount, from: Currency, to: Currency): Amount {
  return amount.times(rate(from, to));
}

export function pairEntry(from: Currency, to: Currency, withDescription: boolean) {
  const describe = (currency: Currency) => (withDescription ? { description: currency.description } : {});
  return {
    currency_from: {
      currency: from.code,
      type: from.type,
      min_amount: fixed8(new Money(from.minAmount)),
      min_amount_deposit_with_exchange: fixed8(new Money(from.minAmountDepositWithExchange)),
      ...describe(from),
    },
    currency_to: { currency: to.code, type: to.type, ...describe(to) },
    rate_from: '1',
    rate_to: rate(from, to),
  };
}

const XRP_DEPOSIT_ADDRESS = 'rSandboxDepositAddressXRP1111111';
const ADDRESS_SHAPES: Record<string, { prefix: string; length: number }> = {
  BTC: { prefix: 'bc1q', length: 38 },
  ETH: { prefix: '0x', length: 40 },
  LTC: { prefix: 'ltc1q', length: 38 },
  USDT: { prefix: 'T', length: 33 },
  TRX: { prefix: 'T', length: 33 },
};

/** A fake but stable deposit address: the same currency and seed always give the same address. */
export function depositAddress(currency: Currency, seed: number): { address: string; tag: string | null } {
  if (currency.usesTag) return { address: XRP_DEPOSIT_ADDRESS, tag: String(seed) };
  const shape = ADDRESS_SHAPES[currency.code] ?? { prefix: 'sbx', length: 40 };
  const digest = createHash('sha256').update(`${currency.code}:${seed}`).digest('hex');
  return { address: shape.prefix + digest.slice(0, shape.length), tag: null };
}

/** A stable fake blockchain transaction id. */
export function fakeTxid(seed: string): string {
  return createHash('sha256').update(`txid:${seed}`).digest('hex');
}
