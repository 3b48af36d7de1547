import { randomBytes } from 'node:crypto';
import { JOB_FUNCTION_TIMEOUT_SECONDS, routes, scheduledJobs, type FunctionName } from '../lib/routes';
import {
  PLATFORM_TOKEN_FIELD,
  PROCESSING_KEY_FIELDS,
  SECRET_ENV,
  STORE_SECRETS_PREFIX_ENV,
  TOKEN_FIELDS,
  WEBHOOK_SECRET_FIELDS,
  type SecretName,
} from '../secrets/fields';
import { newWebhookSecret } from '../webhooks/signing';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { serveDocument } from '../functions/openapi';
import { openApiDocument } from '../http/schemas/openapi';
import { createPluginTable, LOCAL_CREDENTIALS, startLocalDynamo, type LocalDynamo } from './dynamodb';
import { demoStore, type OrderEvents } from './demo-store';
import { startGateway, type AccessLog, type HttpHandler, type LocalPages } from './gateway';
import { buildWebApp, webApps, type WebAsset } from '../web/build';
import { canonicalPath } from '../web/paths';
import { webHeaders } from '../web/headers';
import { invokeWithTimeout } from './lambda-context';
import { startLocalSecretsManager, type LocalSecretsManager } from './secrets-manager';

export interface LocalStackOptions {
  /** Gateway port; 0 picks a free one. */
  port?: number;
  /** Embedded sandbox port; 0 picks a free one. */
  sandboxPort?: number;
  /** Another service that follows the spec; without it the embedded sandbox runs. */
  processing?: { baseUrl: string; apiKey: string; secretKey: string };
  storefrontToken?: string;
  adminToken?: string;
  /** The token that manages stores and acts for any store (`Store-Id`); generated when absent. */
  platformToken?: string;
  /** Intervals of the scheduled jobs; `false` runs none (tests invoke them directly). */
  schedule?: { snapshotMs: number; reconcileMs: number } | false;
  /** Extra configuration for the handlers, such as shorter timeouts in tests. */
  env?: Record<string, string>;
  /** The API functions' timeout in ms; the deployed one (lib/routes.ts) unless a test shortens it. */
  apiTimeoutMs?: number;
  /** Receives one line per request, callbacks included; without it the gateway writes nothing. */
  accessLog?: AccessLog;
  /** Where webhooks go (https, or http://127.0.0.1); without it none are sent. */
  webhooks?: LocalWebhooks;
  /** Wraps each function's handler as it is loaded: a soak's fault injection (soak/kill.ts) sits here. */
  wrapHandler?: (name: FunctionName, handler: HttpHandler) => HttpHandler;
  /** When webhooks go to the demo store's endpoint (startDemoWebhookEndpoint): what it received, for its page. */
  demoEvents?: OrderEvents;
}

export interface LocalWebhooks {
  url: string;
  /** `whsec_...`; generated when absent. */
  secret?: string;
  /** How often the dispatcher also runs for retries that came due; it runs after every request anyway. */
  intervalMs?: number;
}

export interface LocalStack {
  url: string;
  storefrontToken: string;
  adminToken: string;
  platformToken: string;
  /** The secret that signs the webhooks. */
  webhookSecret: string;
  sandbox?: Sandbox;
  dynamo: LocalDynamo;
  secrets: LocalSecretsManager;
  tableName: string;
  /** The secrets as the stack splits them, each served by `secrets` under this id. */
  secretIds: Record<SecretName, string>;
  /** Runs a scheduled job once, as the scheduler would, with the timeout the stack gives it. */
  runJob(name: (typeof scheduledJobs)[number]): Promise<unknown>;
  /** Asks for a webhook dispatcher run (one at a time; a request while one runs makes one more after it). */
  dispatchWebhooks(): void;
  close(): Promise<void>;
}

const TABLE_NAME = 'payments-plugin-local';
const SECRET_NAMES = Object.keys(SECRET_ENV) as SecretName[];
/** Each secret's id: its name, hyphenated, under the local prefix (`processingKeys`: `.../processing-keys`). */
const SECRET_IDS = Object.fromEntries(
  SECRET_NAMES.map((name) => [
    name,
    `payments-plugin/local/${name.replace(/[A-Z]/g, (capital) => `-${capital.toLowerCase()}`)}`,
  ]),
) as Record<SecretName, string>;
/** Each store's own secret is `<prefix><store id>`, as in AWS. */
const STORE_SECRETS_PREFIX = 'payments-plugin/local/stores/';

/** As AWS would wake it through the table's stream, soon after a change; and on this interval for retries. */
const WEBHOOK_INTERVAL_MS = 1_000;

/**
 * Lambda reads a table's stream about four times a second: a change wakes the dispatcher at once when it is idle,
 * and at most this often while changes keep coming, so that a busy stack does not run it back to back.
 */
const STREAM_POLL_MS = 250;

/**
 * The whole plugin on one machine: sandbox, dynalite, a Secrets Manager endpoint, and a gateway serving the
 * same handler modules the CDK stack deploys. Handler modules read their configuration when first loaded, so a
 * process runs one local stack.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // Its functions run many invocations at once in this process, so each keeps its own context, whatever the shell
  // names (observability/context.ts).
  delete process.env.AWS_LAMBDA_FUNCTION_NAME;
  const storefrontToken = options.storefrontToken ?? randomToken();
  const adminToken = options.adminToken ?? randomToken();
  const platformToken = options.platformToken ?? randomToken();
  const webhookSecret = options.webhooks?.secret ?? newWebhookSecret();
  const gatewayPort = options.port ?? 0;
  const sandbox = options.processing ? undefined : await startSandbox({ port: options.sandboxPort ?? 0 });
  const processing = options.processing ?? {
    baseUrl: sandbox!.url,
    apiKey: sandbox!.apiKey,
    secretKey: sandbox!.secretKey,
  };
  const dynamo = await startLocalDynamo();
  await createPluginTable(dynamo.url, TABLE_NAME);
  const secrets = await startLocalSecretsManager({
    [SECRET_IDS.processingKeys]: JSON.stringify({
      [PROCESSING_KEY_FIELDS.apiKey]: processing.apiKey,
      [PROCESSING_KEY_FIELDS.secretKey]: processing.secretKey,
    }),
    [SECRET_IDS.tokens]: JSON.stringify({
      [TOKEN_FIELDS.storefront]: storefrontToken,
      [TOKEN_FIELDS.admin]: adminToken,
    }),
    [SECRET_IDS.webhookSecret]: JSON.stringify({ [WEBHOOK_SECRET_FIELDS.current]: webhookSecret }),
    [SECRET_IDS.platformToken]: JSON.stringify({ [PLATFORM_TOKEN_FIELD]: platformToken }),
  });

  Object.assign(process.env, {
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.url,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    TABLE_NAME,
    ...Object.fromEntries(SECRET_NAMES.map((name) => [SECRET_ENV[name], SECRET_IDS[name]])),
    [STORE_SECRETS_PREFIX_ENV]: STORE_SECRETS_PREFIX,
    PROCESSING_BASE_URL: processing.baseUrl,
    // dynalite runs in this process, on a machine that may be busy: a slow answer here is load, not a hang.
    AWS_REQUEST_TIMEOUT_MS: '10000',
    AWS_CONNECT_TIMEOUT_MS: '10000',
    WEBHOOK_URL: options.webhooks?.url ?? '',
    DEFAULT_STORE_WEBHOOK_URL: options.webhooks?.url ?? '',
    WEBHOOK_EVENTS: options.webhooks ? 'on' : 'off',
    WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true',
    // No stream here: the stack's dispatcher runs read the index, one at a time, so none runs beside another and the
    // index lists a record's outbox at its first event.
    WEBHOOK_OUTBOX_GRACE_MS: '0',
    ...options.env,
  });

  const handlers = new Map<FunctionName, HttpHandler>();
  for (const name of [...routes.map((route) => route.name), ...scheduledJobs]) {
    const handler = await loadHandler(name);
    handlers.set(name, options.wrapHandler ? options.wrapHandler(name, handler) : handler);
  }
  // The document as the schemas make it now, so that it never lags behind them here; the deployed function serves
  // openapi.json, which a test keeps equal to this.
  const document = openApiDocument();
  handlers.set('openapi', serveDocument(document));
  let gatewayUrl = '';
  const dispatchWebhooks = coalesced(
    () => (options.webhooks ? runJob('webhook-dispatcher') : Promise.resolve()),
    STREAM_POLL_MS,
  );
  // Every request may have changed a record: the dispatcher runs after it, as the stream would wake it.
  const thenDispatch =
    (handler: HttpHandler): HttpHandler =>
    (event, context) =>
      handler(event, context).finally(dispatchWebhooks);
  const gateway = await startGateway(
    routes.map((route) => ({ route, handler: thenDispatch(handlers.get(route.name)!) })),
    gatewayPort,
    {
      accessLog: options.accessLog,
      timeoutMs: options.apiTimeoutMs,
      pages: localPages(),
      backend: demoStore({
        apiUrl: () => gatewayUrl,
        storefrontToken,
        sandboxUrl: sandbox?.url,
        events: options.demoEvents,
      }),
    },
  );
  gatewayUrl = gateway.url;
  if (sandbox) {
    await fetch(`${sandbox.url}/_sandbox/callbacks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${gateway.url}/callbacks` }),
    });
  }

  const runJob = (name: (typeof scheduledJobs)[number]) =>
    invokeWithTimeout(
      handlers.get(name)!,
      { job: name, scheduledTime: new Date().toISOString() } as never,
      name,
      JOB_FUNCTION_TIMEOUT_SECONDS * 1000,
    ).answer;
  const timers = options.schedule
    ? [
        setInterval(() => runJob('snapshot-balances').catch(() => undefined), options.schedule.snapshotMs),
        setInterval(() => runJob('reconcile').catch(() => undefined), options.schedule.reconcileMs),
      ]
    : [];
  if (options.webhooks) {
    timers.push(setInterval(dispatchWebhooks, options.webhooks.intervalMs ?? WEBHOOK_INTERVAL_MS));
  }

  return {
    url: gateway.url,
    storefrontToken,
    adminToken,
    platformToken,
    webhookSecret,
    sandbox,
    dynamo,
    secrets,
    tableName: TABLE_NAME,
    secretIds: SECRET_IDS,
    runJob,
    dispatchWebhooks,
    close: async () => {
      timers.forEach(clearInterval);
      await dispatchWebhooks.stop();
      await sandbox?.close();
      await gateway.close();
      await secrets.close();
      await dynamo.close();
    },
  };
}

/**
 * The browser apps of web/apps with the headers CloudFront gives them, and its redirects: `/<app>` to `/<app>/`,
 * and `/` to the API reference. Each app is built at its first request, so that a stack started only for the API
 * never pays for it, nor a test of the console for the reference.
 */
function localPages(): LocalPages {
  const built = new Map<string, Promise<Map<string, WebAsset>>>();
  const apps = webApps();
  return async (path) => {
    const redirect = canonicalPath(path, apps);
    if (redirect)
      return { status: 301, contentType: 'text/plain', body: '', headers: { location: redirect } };
    const app = apps.find((name) => path.startsWith(`/${name}/`));
    if (!app) return undefined;
    if (!built.has(app)) built.set(app, buildWebApp(app));
    const asset = (await built.get(app)!).get(path);
    return asset && { ...asset, headers: webHeaders(path) };
  };
}

async function loadHandler(name: FunctionName): Promise<HttpHandler> {
  const module = (await import(`../functions/${name}`)) as { handler: HttpHandler };
  return module.handler;
}

/**
 * Runs `run` one at a time, each at least `gapMs` after the one before began; a call while one runs or waits asks
 * for one more run after it. `stop` ends it after the last.
 */
function coalesced(run: () => Promise<unknown>, gapMs: number): (() => void) & { stop: () => Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let lastStart = -Infinity;
  const start = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    const wait = lastStart + gapMs - performance.now();
    running = (wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve())
      .then(() => {
        lastStart = performance.now();
        return stopped ? undefined : run();
      })
      .catch(() => undefined)
      .then(() => {
        running = undefined;
        if (again) {
          again = false;
          start();
        }
      });
  };
  const stop = async () => {
    stopped = true;
    while (running) await running;
  };
  return Object.assign(start, { stop });
}

function randomToken(): string {
  return randomBytes(24).toString('base64url');
}
