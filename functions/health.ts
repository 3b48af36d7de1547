import { HttpError, toErrorResponse } from '../http/errors';
import { healthInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { healthRoute } from '../lib/routes';
import { VERSION } from '../runtime/version';
import { describeError, log } from '../observability/log';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { deadlineAt, runWithDeadline } from '../runtime/deadline';
import { processing } from '../runtime/processing';
import { processingKeys } from '../runtime/processing-keys';

/** A probe answers in seconds: the service gets this long, not the function's whole time. */
const SERVICE_BUDGET_MS = 5_000;

interface Check {
  ok: boolean;
  ms: number;
  /** Our error code (as a route would answer it), never what the service or the secret said. */
  error?: string;
}

async function check(name: string, work: () => Promise<unknown>): Promise<Check> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    await work();
    return { ok: true, ms: ms() };
  } catch (error) {
    log.warn('health check failed', { check: name, ...describeError(error) });
    return { ok: false, ms: ms(), error: toErrorResponse(error).code };
  }
}

/** `work`, or a 504 error once `budget` (epoch ms) passes first; the work itself ends by its own timeouts. */
async function within<T>(budget: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    const error = new HttpError('secrets_timeout', 'The secret was not read in time');
    timer = setTimeout(() => reject(error), budget - Date.now());
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /health: whether the processing keys are loaded, and whether the service answers a signed call (its accounts
 * list, which is dropped unread). 200 when both hold, 503 when not; never a key, a balance or a URL.
 */
export const handler = apiRoute(
  { route: healthRoute, tokens: bearerTokens, limits: storeLimits, input: healthInput },
  async () => {
    const budget = Math.min(deadlineAt() ?? Infinity, Date.now() + SERVICE_BUDGET_MS);
    const [secrets, service] = await Promise.all([
      check('secrets', () => within(budget, processingKeys.get())),
      check('service', () => runWithDeadline(budget, () => processing.listBalances())),
    ]);
    const healthy = secrets.ok && service.ok;
    return {
      status: healthy ? 200 : 503,
      body: { status: healthy ? 'ok' : 'degraded', version: VERSION, checks: { secrets, service } },
    };
  },
);
