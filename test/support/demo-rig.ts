// The local stack with the demo store as the shop's webhook endpoint, as `npm start` runs it, and a browser: what
// the demo store's page tests stand on.
import type { Browser } from 'playwright-core';
import { startDemoWebhookEndpoint, type DemoWebhookEndpoint } from '../../local/demo-store';
import { newWebhookSecret } from '../../webhooks/signing';
import { launchBrowser } from './browser';
import { startHarness, type Harness } from './local-stack';
import { captureOutput } from './output';

export interface DemoRig {
  endpoint: DemoWebhookEndpoint;
  harness: Harness;
  browser: Browser;
  /** Closes what started, last first, and gives the output back. */
  close(): Promise<void>;
}

/** Starts the rig, with the functions' output captured; a part that fails to start closes the parts before it. */
export async function startDemoRig(): Promise<DemoRig> {
  const output = captureOutput();
  const started: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    for (const part of started.reverse()) await part.close();
    output.restore();
  };
  try {
    const secret = newWebhookSecret();
    const endpoint = await startDemoWebhookEndpoint(secret);
    started.push(endpoint);
    const harness = await startHarness({
      webhooks: { url: endpoint.url, secret, intervalMs: 200 },
      demoEvents: endpoint.events,
    });
    started.push(harness);
    const browser = await launchBrowser();
    started.push(browser);
    return { endpoint, harness, browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}
