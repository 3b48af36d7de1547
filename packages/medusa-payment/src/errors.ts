// Errors the provider throws. Medusa's error handler reads `type` as MedusaError's, so these need no import of Medusa.

/** MedusaError's types the provider uses: bad input, a refused action, and a state that should not happen. */
export type ErrorType = 'invalid_data' | 'not_allowed' | 'unexpected_state';

export class MerchantPaymentsError extends Error {
  override readonly name = 'MerchantPaymentsError';

  constructor(
    readonly type: ErrorType,
    /** The plugin's error code, or the provider's own, for code to switch on. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
