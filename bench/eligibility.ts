// The eligibility route's cache (issue 43): warm calls of GET /checkout/options ask the service for each pair at
// most once per cache period, whatever amounts they ask about.
import { PAY_CURRENCIES } from '../domain/eligibility';
import type { HttpHandler } from '../local/gateway';
import { atMost, figure, type Figure } from './figures';
import { invocation } from './lambda-events';
import type { PluginUnderTest } from './plugin';

/** The order currency asked about: every pay currency is an exchange from it, so each is a pair of its own. */
const CURRENCY = 'EUR';

/**
 * `invocations` sequential calls with amounts that differ, the first filling the cache; the service's /v2 requests
 * meanwhile, per pair and per cache period the calls spanned.
 */
export async function eligibilityCache(plugin: PluginUnderTest, invocations: number): Promise<Figure[]> {
  // Loaded only now, as startPlugin loads the handlers: the module reads the environment it was given.
  const { handler } = await import('../functions/checkout-options');
  const call = (cents: number) =>
    invocation(
      handler as HttpHandler,
      'checkout-options',
      {
        method: 'GET',
        route: '/checkout/options',
        path: '/checkout/options',
        query: `amount=${(25 + cents / 100).toFixed(2)}&currency=${CURRENCY}`,
        token: plugin.backends.storefrontToken,
      },
      200,
    )();
  const periodMs = Number(process.env.ELIGIBILITY_CACHE_SECONDS ?? 300) * 1000;
  const before = (await plugin.upstream()).requests;
  const started = Date.now();
  for (let i = 0; i < invocations; i++) await call(i);
  const periods = Math.max(1, Math.ceil((Date.now() - started) / periodMs));
  const upstream = (await plugin.upstream()).requests - before;
  const pairs = PAY_CURRENCIES.length;
  return [
    figure({
      id: 'eligibility.warm.upstreamCallsPerPairPeriod',
      label: `GET /checkout/options, ${invocations} calls: upstream calls per pair per cache period`,
      value: upstream / (pairs * periods),
      unit: '',
      detail: `${upstream} upstream calls for ${pairs} pairs over ${periods} cache period(s)`,
      target: atMost(1),
    }),
  ];
}
