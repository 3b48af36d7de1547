import { EligibilityService, PAY_CURRENCIES } from '../domain/eligibility';
import { numberEnv } from './env';

/**
 * The pairs behind `GET /checkout/options` and the checkout's named minimum, kept per payment account for
 * ELIGIBILITY_CACHE_SECONDS in a warm container: minimums change seldom, and the amounts shown are estimates.
 */
export const eligibility = new EligibilityService(
  PAY_CURRENCIES,
  numberEnv('ELIGIBILITY_CACHE_SECONDS', 300) * 1000,
  Date.now,
);
