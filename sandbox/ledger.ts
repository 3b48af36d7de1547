import { CURRENCIES, findCurrency } from './currencies';
import { fixed8, Money, type Amount } from './money';

/** Merchant balances per currency, seeded from the currency table. */
export class Ledger {
  private balances = new Map<string, Amount>();

  constructor() {
    this.reset();
  }

  reset(): void {
    this.balances = new Map(CURRENCIES.map((currency) => [currency.code, new Money(currency.seedBalance)]));
  }

  list() {
    return CURRENCIES.map((currency) => ({
      currency: currency.code,
      type: currency.type,
      balance: fixed8(this.balance(currency.code)),
    }));
  }

  balance(code: string): Amount {
    return this.balances.get(code) ?? new Money(0);
  }

  set(code: string, amount: Amount): void {
    if (!findCurrency(code)) throw new Error(`Unsupported currency ${code}`);
    this.balances.set(code, amount);
  }

  credit(code: string, amount: Amount): void {
    this.balances.set(code, this.balance(code).plus(amount));
  }

  /** Takes the amount if the balance covers it; false (and no change) when it does not. */
  debit(code: string, amount: Amount): boolean {
    const balance = this.balance(code);
    if (balance.lt(amount)) return false;
    this.balances.set(code, balance.minus(amount));
    return true;
  }
}
