import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleApi, type ApiServices } from './api';
import { AUTH_ERRORS } from './auth';
import { CallbackSender, callbackRetrySchedule } from './callbacks';
import { findCurrency } from './currencies';
import { CONTROL_PREFIX, handleControl, type ControlServices } from './control';
import { FaultTable, type Fault } from './faults';
import { BodyTooLarge, notFound, readBody, reply, writeJson, type Reply } from './http';
import { CANCELLED_ERROR, InvoiceDesk } from './invoices';
import { hasAtMost8Places, toAmount, type Amount } from './money';
import { payPage } from './pay-page';
import { SandboxState } from './state';
import { Traffic } from './traffic';
import { WithdrawalDesk } from './withdrawals';

export interface SandboxOptions {
  /** Default 0 (an ephemeral port). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 'sandbox-api-key'. */
  apiKey?: string;
  /** Default 'sandbox-secret-key'. */
  secretKey?: string;
  /** Where payment callbacks are POSTed; also settable through the control API. */
  callbackUrl?: string;
  /** How many times faster than the payment service's the callback retry schedule runs; default 60 (minutes as seconds). */
  callbackSpeedUp?: number;
  /** Waits after each failed callback attempt, instead of the service's schedule. */
  callbackRetryMs?: number[];
  /** The clock in ms; the control API advances the sandbox's own clock from it. */
  now?: () => number;
  /**
   * Whether `GET /v2/transactions/info?id=` finds an invoice by its id (default true). The spec promises only
   * deposits and withdrawals; false answers 404 for an invoice's id, as a service written from the spec may.
   */
  invoiceLookups?: boolean;
  /**
   * The error a cancel fails an invoice with (default CANCELLED_ERROR, the sandbox's own words); the reference
   * service says "Cancelled by merchant." (issue 40).
   */
  cancelError?: string;
  /**
   * Per currency code, the amount (decimal) above which a withdrawal is created `pending` and waits for approval
   * through the control API; none by default. The control API changes them; a reset puts these back.
   */
  approvalLimits?: Record<string, string>;
  /** One line per /v2 request and per callback attempt; silent by default. */
  log?: (line: string) => void;
}

export interface Sandbox {
  url: string;
  port: number;
  apiKey: string;
  secretKey: string;
  close(): Promise<void>;
}

/** The service's day of callback retries, run in minutes, so that local retries are seen as they happen. */
export const DEFAULT_CALLBACK_SPEED_UP = 60;
/** Where `npm run sandbox` and `npm start` serve the sandbox when SANDBOX_PORT is unset. */
export const DEFAULT_PORT = 4010;
export const DEFAULT_API_KEY = 'sandbox-api-key';
export const DEFAULT_SECRET_KEY = 'sandbox-secret-key';

const BODY_LIMIT_BYTES = 1024 * 1024;
const EXPIRY_SWEEP_MS = 1000;
const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** The configured limits as amounts; a currency or amount the sandbox cannot read stops it at start. */
function approvalLimits(limits: Record<string, string>): Map<string, Amount> {
  return new Map(
    Object.entries(limits).map(([code, limit]) => {
      const currency = findCurrency(code);
      const amount = toAmount(limit);
      if (!currency || !amount || amount.isNegative() || !hasAtMost8Places(amount)) {
        throw new Error(`Approval limit ${code}=${limit}: give a supported currency and a decimal >= 0`);
      }
      return [currency.code, amount];
    }),
  );
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const keys = {
    apiKey: options.apiKey ?? DEFAULT_API_KEY,
    secretKey: options.secretKey ?? DEFAULT_SECRET_KEY,
  };
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => undefined);
  const state = new SandboxState(
    options.now ?? Date.now,
    options.invoiceLookups ?? true,
    options.cancelError ?? CANCELLED_ERROR,
    approvalLimits(options.approvalLimits ?? {}),
  );
  const callbacks = new CallbackSender(
    {
      url: options.callbackUrl ?? null,
      retryMs:
        options.callbackRetryMs ??
        callbackRetrySchedule(options.callbackSpeedUp ?? DEFAULT_CALLBACK_SPEED_UP),
      duplicate: false,
    },
    keys,
    () => state.nowMs(),
    log,
  );
  const notify = (key: string, payload: unknown) => callbacks.send(key, payload);
  const invoices = new InvoiceDesk(state, notify);
  const withdrawals = new WithdrawalDesk(state, notify);
  const faults = new FaultTable();
  const traffic = new Traffic();
  let baseUrl = '';
  const services: ApiServices & ControlServices = {
    state,
    invoices,
    withdrawals,
    keys,
    faults,
    traffic,
    callbacks,
    baseUrl: () => baseUrl,
  };
  const delayedReplies = new Set<NodeJS.Timeout>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://sandbox');
    const method = request.method ?? 'GET';
    const path = url.pathname;
    let rawBody: Buffer;
    try {
      rawBody = await readBody(request, BODY_LIMIT_BYTES);
    } catch (error) {
      if (!(error instanceof BodyTooLarge)) throw error;
      return writeJson(
        response,
        reply(413, { error: 'The request body is too large.', code: 'payload_too_large' }),
      );
    }
    invoices.expireDue();
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) {
      const local = LOOPBACK.test(request.socket.remoteAddress ?? '');
      const answer = local ? handleControl(method, path, url.searchParams, rawBody, services) : notFound();
      return writeJson(response, answer);
    }
    if (path === '/v2' || path.startsWith('/v2/')) return serveApi(request, response, url, rawBody);
    const invoiceId = method === 'GET' ? /^\/pay\/(\d+)$/.exec(path)?.[1] : undefined;
    const invoice = invoiceId === undefined ? undefined : state.transactions.get(Number(invoiceId));
    if (invoice?.kind === 'invoice') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      return void response.end(payPage(invoice));
    }
    writeJson(response, notFound());
  }

  function serveApi(request: IncomingMessage, response: ServerResponse, url: URL, rawBody: Buffer): void {
    const method = request.method ?? 'GET';
    const path = url.pathname;
    const entry = traffic.record(request.socket, {
      method,
      path,
      status: null,
      at: state.nowMs(),
      body: rawBody.toString('utf8'),
    });
    const fault = faults.take(method, path, url.search);
    if (fault) entry.fault = fault.kind;
    if (fault?.kind === 'hang') return log(`${method} ${path} left hanging (fault)`);
    const answer =
      faultReply(fault) ??
      handleApi({ method, path, query: url.searchParams, headers: request.headers, rawBody }, services);
    entry.status = answer.status;
    log(`${method} ${path} ${answer.status}${fault ? ` (fault ${fault.kind})` : ''}`);
    if (fault?.kind === 'reset_after_commit') return void request.socket.destroy();
    if (fault?.kind !== 'delay') return writeJson(response, answer);
    const timer = setTimeout(() => {
      delayedReplies.delete(timer);
      writeJson(response, answer);
    }, fault.delayMs);
    delayedReplies.add(timer);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`sandbox error: ${error instanceof Error ? error.stack : String(error)}`);
      writeJson(response, reply(500, { error: 'Internal sandbox error', code: 'internal_error' }));
    });
  });
  server.on('connection', () => traffic.connectionOpened());
  // Idle keep-alive connections stay open a minute, as a service behind a load balancer keeps them, not node's 5 s:
  // a client that reuses one just as the server drops it gets "socket hang up" with nothing to tell it was unsent.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://${urlHost(host)}:${port}`;
  const sweep = setInterval(() => invoices.expireDue(), EXPIRY_SWEEP_MS);
  sweep.unref();

  return {
    url: baseUrl,
    port,
    apiKey: keys.apiKey,
    secretKey: keys.secretKey,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(sweep);
        for (const timer of delayedReplies) clearTimeout(timer);
        delayedReplies.clear();
        callbacks.stop();
        server.close(() => resolve());
        server.closeAllConnections(); // keep-alive sockets and requests left hanging by faults
      }),
  };
}

/** Faults that answer instead of the operation. */
function faultReply(fault: Fault | undefined): Reply | undefined {
  if (fault?.kind === '5xx') {
    return reply(fault.status, { error: 'Service unavailable', code: 'service_unavailable' });
  }
  if (fault?.kind === '403') {
    const error = AUTH_ERRORS[fault.code as keyof typeof AUTH_ERRORS] ?? 'Forbidden';
    return reply(403, { error, code: fault.code });
  }
  return undefined;
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
