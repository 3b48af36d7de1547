// Timeouts for the AWS SDK clients. With a hung DynamoDB or Secrets Manager endpoint, the SDK's default three
// attempts (backoff at most 0.1 s, then 0.2 s) end within 3 × 2 s + 0.3 s ≈ 6.3 s: well inside the 25 s function
// timeout less runtime/deadline.ts's 2 s margin, so the route still answers its own JSON.
import { log } from '../observability/log';
import { numberEnv } from './env';

/** Connecting to a regional AWS endpoint takes milliseconds; a second without a connection means it is not there. */
const CONNECTION_TIMEOUT_MS = 1_000;

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
  return {
    requestHandler: {
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      // A single-item call answers in tens of milliseconds; two seconds in all (connecting included) is a hang.
      // The local stack raises it (local/stack.ts): there dynalite shares a developer's or CI's CPU with everything
      // else, and a busy machine is not a hung DynamoDB.
      requestTimeout: numberEnv('AWS_REQUEST_TIMEOUT_MS', 2_000),
      throwOnRequestTimeout: true,
      logger: handlerLogger,
    },
    cacheMiddleware: true,
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
