import { newWebhookSecret } from '../webhooks/signing';
import { localNumber } from './defaults';
import { startDemoWebhookEndpoint, type DemoWebhookEndpoint } from './demo-store';
import { startLocalStack, type LocalWebhooks } from './stack';

/**
 * STORE_WEBHOOK_URL: where webhooks go; `local` sends them to the demo store's endpoint here, which verifies and
 * prints each event and lists it on the demo's page.
 * STORE_WEBHOOK_SECRET: the signing secret; generated (and printed) when unset.
 */
async function webhooksFromEnv(): Promise<{ webhooks?: LocalWebhooks; receiver?: DemoWebhookEndpoint }> {
  const url = process.env.STORE_WEBHOOK_URL;
  if (!url) return {};
  const secret = process.env.STORE_WEBHOOK_SECRET || newWebhookSecret();
  if (url !== 'local') return { webhooks: { url, secret } };
  const receiver = await startDemoWebhookEndpoint(secret, ({ id, type, sequence }) =>
    console.log(`webhook received and verified: ${type} #${sequence} ${id}`),
  );
  return { webhooks: { url: receiver.url, secret }, receiver };
}

/** `npm start`: the whole plugin on this machine, configured from the environment. */
async function main(): Promise<void> {
  const baseUrl = process.env.PROCESSING_BASE_URL;
  let processing;
  if (baseUrl) {
    const apiKey = process.env.PROCESSING_API_KEY;
    const secretKey = process.env.PROCESSING_SECRET_KEY;
    if (!apiKey || !secretKey) {
      throw new Error(
        'PROCESSING_BASE_URL is set, so PROCESSING_API_KEY and PROCESSING_SECRET_KEY are required',
      );
    }
    processing = { baseUrl, apiKey, secretKey };
  }
  const { webhooks, receiver } = await webhooksFromEnv();
  const stack = await startLocalStack({
    webhooks,
    demoEvents: receiver?.events,
    port: localNumber('PORT'),
    sandboxPort: localNumber('SANDBOX_PORT'),
    processing,
    storefrontToken: process.env.STOREFRONT_TOKEN,
    adminToken: process.env.ADMIN_TOKEN,
    platformToken: process.env.PLATFORM_TOKEN,
    schedule: {
      snapshotMs: localNumber('SNAPSHOT_INTERVAL_SECONDS') * 1000,
      reconcileMs: localNumber('RECONCILE_INTERVAL_SECONDS') * 1000,
    },
    accessLog: (line) => console.log(line),
  });
  const lines = [
    'Payments plugin running locally.',
    `  API:              ${stack.url}  (reference: ${stack.url}/docs/, document: ${stack.url}/openapi.json)`,
    `  STOREFRONT_TOKEN=${stack.storefrontToken}`,
    `  ADMIN_TOKEN=${stack.adminToken}`,
    `  PLATFORM_TOKEN=${stack.platformToken}  (manages stores: POST ${stack.url}/stores)`,
    `  Demo store:       ${stack.url}/demo/  (a shop with the checkout widget)`,
    `  Console:          ${stack.url}/console/  (sign in with the ADMIN_TOKEN)`,
    webhooks
      ? `  Webhooks:         ${receiver ? `${webhooks.url} (the demo store's endpoint; its events show at ${stack.url}/demo/)` : webhooks.url}`
      : '  Webhooks:         off (STORE_WEBHOOK_URL=local sends them to the demo store, which prints them)',
    ...(webhooks ? [`  STORE_WEBHOOK_SECRET=${stack.webhookSecret}`] : []),
    stack.sandbox
      ? `  Sandbox:          ${stack.sandbox.url} (control API: ${stack.sandbox.url}/_sandbox)`
      : `  Processing API:   ${baseUrl}`,
    `  DynamoDB (local): ${stack.dynamo.url}  table ${stack.tableName}`,
    `  Secrets Manager:  ${stack.secrets.url}  secrets ${Object.values(stack.secretIds).join(', ')}`,
    "Each request prints a line below, a callback with what it said; its request id is on the function's lines.",
    'Press Ctrl-C to stop.',
  ];
  console.log(lines.join('\n'));
  const stop = () => {
    stack
      .close()
      .then(() => receiver?.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: Error) => {
  console.error(`Could not start: ${error.message}`);
  process.exit(1);
});
