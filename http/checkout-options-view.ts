import type { PayOption } from '../domain/eligibility';

export interface CheckoutOptionsView {
  amount: string;
  currency: string;
  options: Array<{ pay_currency: string; min_amount: string; pay_amount: string }>;
}

/** The answer of `GET /checkout/options`: the amount asked about, and each currency it may be paid in. */
export function checkoutOptionsView(
  amount: string,
  currency: string,
  options: readonly PayOption[],
): CheckoutOptionsView {
  return {
    amount,
    currency,
    options: options.map((option) => ({
      pay_currency: option.payCurrency,
      min_amount: option.minAmount,
      pay_amount: option.payAmount,
    })),
  };
}
