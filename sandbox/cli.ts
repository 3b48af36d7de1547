import { CONTROL_PREFIX } from './control';
import { DEFAULT_PORT, startSandbox } from './server';

// `npm run sandbox`: a local, stateful Merchant Processing API v2. Keys here are sandbox-only, never real ones.
async function main(): Promise<void> {
  const sandbox = await startSandbox({
    port: Number(process.env.SANDBOX_PORT ?? DEFAULT_PORT),
    apiKey: process.env.SANDBOX_API_KEY || undefined,
    secretKey: process.env.SANDBOX_SECRET_KEY || undefined,
    callbackUrl: process.env.SANDBOX_CALLBACK_URL || undefined,
    invoiceLookups: process.env.SANDBOX_INVOICE_LOOKUPS !== 'false',
    approvalLimits: approvalLimits(process.env.SANDBOX_APPROVAL_LIMITS),
    log: (line) => console.log(`[sandbox] ${line}`),
  });
  console.log(`Merchant Processing API v2 sandbox listening on ${sandbox.url}`);
  console.log(`  API base:    ${sandbox.url}/v2`);
  console.log(`  API key:     ${sandbox.apiKey}`);
  console.log(`  Secret key:  ${sandbox.secretKey}`);
  console.log(
    `  Callbacks:   ${process.env.SANDBOX_CALLBACK_URL || `(none; POST ${CONTROL_PREFIX}/callbacks to set)`}`,
  );
  console.log(`  Control API: ${sandbox.url}${CONTROL_PREFIX}`);
  const stop = () => {
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `BTC=0.5,EUR=100`: per currency, the amount above which a withdrawal waits for approval. */
function approvalLimits(setting: string | undefined): Record<string, string> {
  const pairs = (setting ?? '').split(',').filter((pair) => pair.trim() !== '');
  return Object.fromEntries(pairs.map((pair) => pair.split('=').map((part) => part.trim())));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
