// The console's webhooks tab against a shop endpoint that fails on purpose: with the retry schedule scaled down,
// deliveries run out of retries in seconds; the operator sees them failed with their last answer, re-sends one,
// then all failed ones, and they arrive.
import type { Page } from 'playwright-core';
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { ConsoleSuite, expectAccessibleState } from '../support/console-page';
import { captureOutput } from '../support/output';
import { waitFor } from '../support/wait';

/** 3 days of retries in about 2.6 s. */
const RETRY_SCALE = 1e-5;
let receiver: WebhookReceiver;
/** The shop's endpoint answers 500 while this holds. */
let failing = true;

// The dispatcher logs every failed attempt; they are expected here.
const output = captureOutput();
const suite = new ConsoleSuite(async () => {
  const secret = newWebhookSecret();
  receiver = await startWebhookReceiver(secret, { answer: () => (failing ? 500 : 200) });
  return {
    webhooks: { url: receiver.url, secret, intervalMs: 100 },
    env: { WEBHOOK_RETRY_SCALE: String(RETRY_SCALE) },
  };
});
afterAll(async () => {
  await receiver?.close();
  output.restore();
});

/** The order's delivery once it is in `state`, or after a generous wait, as it was then. */
async function deliveryOf(foreignId: string, state: string): Promise<any> {
  const { body } = await waitFor(
    () => suite.harness.api('GET', '/webhooks/deliveries?limit=100', { token: 'admin' }),
    ({ body }) => body.data.some((d: any) => d.foreign_id === foreignId && d.state === state),
    60_000,
  );
  return body.data.find((d: any) => d.foreign_id === foreignId);
}

const row = (page: Page, foreignId: string) =>
  page.getByRole('row').filter({ has: page.getByRole('link', { name: foreignId, exact: true }) });

const refreshed = async (page: Page, count: number) => {
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Page 1: ${count} deliver` })
    .waitFor();
};

/** A hang detector, not a speed assertion: three deliveries run out their retries on a machine that may be busy. */
const WHOLE_JOURNEY_MS = 300_000;

test(
  'a failed delivery shows its attempts and last answer; the operator re-sends it, then all failed ones',
  async () => {
    failing = true;
    await suite.checkout('hook-console-1');
    const failed = await deliveryOf('hook-console-1', 'failed');
    expect(failed.state).toBe('failed');

    const { page, errors } = await suite.open();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('status').filter({ hasText: 'Page 1: 1 delivery.' }).waitFor();
    const first = row(page, 'hook-console-1');
    const cells = await first.getByRole('cell').allTextContents();
    expect(cells.slice(0, 5)).toEqual([
      'invoice.awaiting_payment',
      'hook-console-1',
      '1',
      'Failed',
      String(failed.attempts),
    ]);
    expect(failed.attempts).toBeGreaterThan(1);
    expect(cells[5]).toMatch(/^HTTP 500/);
    expect(cells[6]).toBe('—');
    await expectAccessibleState(page, 'webhooks-failed');

    failing = false;
    await first
      .getByRole('button', { name: 'Re-send… invoice.awaiting_payment #1 of hook-console-1' })
      .click();
    const dialog = page.getByRole('dialog', { name: 'Re-send invoice.awaiting_payment?' });
    await expect(dialog.textContent()).resolves.toContain(failed.id);
    await expectAccessibleState(page, 'webhooks-resend-dialog');
    await dialog.getByRole('button', { name: 'Re-send event' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'invoice.awaiting_payment #1 of hook-console-1 is set to be sent again.' })
      .waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect((await deliveryOf('hook-console-1', 'delivered')).state).toBe('delivered');
    await refreshed(page, 1);
    await row(page, 'hook-console-1').getByRole('cell', { name: 'Delivered' }).waitFor();
    await expect(row(page, 'hook-console-1').getByRole('cell').nth(5).textContent()).resolves.toMatch(
      /^HTTP 200/,
    );
    await expectAccessibleState(page, 'webhooks-delivered');

    failing = true;
    await suite.checkout('hook-console-2');
    await suite.checkout('hook-console-3');
    await deliveryOf('hook-console-2', 'failed');
    await deliveryOf('hook-console-3', 'failed');
    await refreshed(page, 3);
    failing = false;
    await page.getByRole('button', { name: 'Re-send all failed…' }).click();
    const all = page.getByRole('dialog', { name: 'Re-send every failed delivery?' });
    await all.getByRole('button', { name: 'Re-send all failed' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: '2 failed deliveries are set to be sent again.' })
      .waitFor();
    for (const id of ['hook-console-2', 'hook-console-3']) {
      expect((await deliveryOf(id, 'delivered')).state).toBe('delivered');
    }
    const arrived = receiver.received.map((event) => JSON.parse(event.body).data.foreign_id);
    expect(arrived.sort()).toEqual(['hook-console-1', 'hook-console-2', 'hook-console-3']);
    await refreshed(page, 3);
    await expect(page.getByRole('cell', { name: 'Delivered' }).count()).resolves.toBe(3);
    await expectAccessibleState(page, 'webhooks-all-resent');
    expect(errors).toEqual([]);
  },
  WHOLE_JOURNEY_MS,
);
