// The AWS SDK clients' setup. Inside an invocation every call to DynamoDB or Secrets Manager ends by the
// invocation's time for them (runtime/deadline.ts): each attempt is cut short there, none starts without
// MIN_AWS_ATTEMPT_MS before it, and no retry waits past it. A hung or slow endpoint then gets the route's own JSON
// answer, never the platform's timeout, however many calls the route makes.
import type { DynamoDBExtensionConfiguration } from '@aws-sdk/client-dynamodb';
import { log } from '../observability/log';
import { storeDeadlineAt } from './deadline';
import { numberEnv } from './env';

/** No attempt starts with less of the invocation's time for it left than this: a healthy call needs far less. */
export const MIN_AWS_ATTEMPT_MS = 250;

/** What the SDK's extensions may replace: the HTTP handler every attempt goes through, and the retry strategy. */
type ClientParts = Pick<
  DynamoDBExtensionConfiguration,
  'httpHandler' | 'setHttpHandler' | 'retryStrategy' | 'setRetryStrategy'
>;
type HttpHandler = ReturnType<ClientParts['httpHandler']>;
type RetryStrategy = Awaited<ReturnType<ReturnType<ClientParts['retryStrategy']>>>;

/** A call that did not start: too little of the invocation's time was left for it to be answered. */
export class NoTimeLeftError extends Error {
  override name = 'NoTimeLeftError';

  constructor() {
    super("not sent: too little of the invocation's time is left");
  }
}

/**
 * The HTTP handler's warnings (sockets at capacity, enqueued requests) go to our log. Left to the SDK, the handler
 * would get its no-op logger: the SDK tells that one apart by its class name, which a minified bundle renames.
 */
const handlerLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message: unknown) => log.warn('AWS SDK HTTP handler warning', { detail: String(message) }),
  error: (message: unknown) => log.error('AWS SDK HTTP handler error', { detail: String(message) }),
};

/**
 * What every SDK client is built with, read when the client is built. Without `throwOnRequestTimeout` an overrun
 * is only logged. `cacheMiddleware`: each command's middleware chain is resolved at its first send, not again at
 * every send, which spares every warm call that CPU; middleware added after a send is never run.
 */
export function awsClientConfig() {
  // A single-item call answers in tens of milliseconds; two seconds in all (connecting included) is a hang.
  // The local stack raises it (local/stack.ts): there dynalite shares a developer's or CI's CPU with everything
  // else, and a busy machine is not a hung DynamoDB.
  const requestTimeout = numberEnv('AWS_REQUEST_TIMEOUT_MS', 2_000);
  return {
    requestHandler: {
      // Connecting to a regional AWS endpoint takes milliseconds; a second without a connection means it is not there.
      connectionTimeout: numberEnv('AWS_CONNECT_TIMEOUT_MS', 1_000),
      requestTimeout,
      throwOnRequestTimeout: true,
      logger: handlerLogger,
    },
    cacheMiddleware: true,
    extensions: [withinInvocationTime(requestTimeout)],
  };
}

/**
 * Bounds the client's calls by the invocation's time. An extension rather than middleware, so that it reaches
 * each attempt and each wait between attempts, and is in place before the client's first send.
 */
function withinInvocationTime(requestTimeoutMs: number) {
  return {
    configure(client: ClientParts): void {
      client.setHttpHandler(attemptsWithinTime(client.httpHandler(), requestTimeoutMs));
      const strategy = client.retryStrategy();
      client.setRetryStrategy(async () => retriesWithinTime(await strategy()));
    },
  };
}

/** Time left for the current invocation's AWS calls; undefined outside any invocation. */
function timeLeftMs(): number | undefined {
  const deadline = storeDeadlineAt();
  return deadline === undefined ? undefined : deadline - Date.now();
}

/** Each attempt starts only with MIN_AWS_ATTEMPT_MS left, and is cut short when the invocation's time runs out. */
function attemptsWithinTime(handler: HttpHandler, requestTimeoutMs: number): HttpHandler {
  return {
    metadata: handler.metadata,
    handle: async (request, options = {}) => {
      const left = timeLeftMs();
      if (left === undefined) return handler.handle(request, options);
      if (left < MIN_AWS_ATTEMPT_MS) throw new NoTimeLeftError();
      const requestTimeout = Math.min(options.requestTimeout ?? requestTimeoutMs, left);
      return handler.handle(request, { ...options, requestTimeout });
    },
    updateHttpClientConfig: (key, value) => handler.updateHttpClientConfig(key, value),
    httpHandlerConfigs: () => handler.httpHandlerConfigs(),
    destroy: () => handler.destroy?.(),
  };
}

/**
 * The SDK's own retries, but none whose wait would leave less than MIN_AWS_ATTEMPT_MS of the invocation's time: the
 * call then fails with the last attempt's error at once.
 */
function retriesWithinTime(strategy: RetryStrategy): RetryStrategy {
  if (!('refreshRetryTokenForRetry' in strategy)) return strategy;
  return {
    acquireInitialRetryToken: (scope) => strategy.acquireInitialRetryToken(scope),
    recordSuccess: (token) => strategy.recordSuccess(token),
    refreshRetryTokenForRetry: async (token, errorInfo) => {
      const left = timeLeftMs();
      if (left === undefined) return strategy.refreshRetryTokenForRetry(token, errorInfo);
      const room = left - MIN_AWS_ATTEMPT_MS;
      if (room <= 0) throw errorInfo.error;
      // The strategy waits out its backoff before it answers; a wait longer than the room left is not waited out.
      const refreshed = strategy.refreshRetryTokenForRetry(token, errorInfo);
      refreshed.catch(() => undefined);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(errorInfo.error), room);
      });
      try {
        const next = await Promise.race([refreshed, late]);
        if (next.getRetryDelay() > (timeLeftMs() ?? Infinity) - MIN_AWS_ATTEMPT_MS) throw errorInfo.error;
        return next;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Removes the SDK's logger middleware from a client on the hot path. We give the SDK no logger, yet with its
 * no-op default that middleware still walks every command's input and output to redact them for the log.
 */
export function withoutSdkLogging<C extends { middlewareStack: { remove(name: string): boolean } }>(
  client: C,
): C {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
