// One signed value must not break an order for good (issue 40, item 3). A signed callback whose time is outside the
// range a record keeps is refused as bad input and nothing of it is written, so that every route of the order, and
// every list and export around it, answers as before. A record that still holds a time no view can write (written
// here straight to the table, as an item stored before the bound might be) answers its own clear error, is left out
// of lists, marked in exports and in its webhooks, and counted; no other record notices.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { nextSweepAt } from '../../domain/reconcile';
import { isOpen } from '../../domain/status';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import type { InvoiceRecord } from '../../domain/model';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { SERVICE_TIME_RULE } from '../../processing/errors';
import { VersionedDynamoStore } from '../../store/versioned-store';
import { newWebhookSecret } from '../../webhooks/signing';
import { invoiceCallbackBody, postCallback, signedHeaders } from '../support/callbacks';
import { checkoutBody, startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';
import { waitFor } from '../support/wait';

const secret = newWebhookSecret();
let harness: Harness;
let receiver: WebhookReceiver;
let output: CapturedOutput;
const startedAt = Date.now();

beforeAll(async () => {
  output = captureOutput(); // refused callbacks and unrenderable records log; keep the run quiet
  receiver = await startWebhookReceiver(secret);
  harness = await startHarness({ webhooks: { url: receiver.url, secret, intervalMs: 100 } });
  // Only the callbacks these tests send reach the plugin.
  await harness.control('POST', '/callbacks', { url: null });
});
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
  output.restore();
});

/**
 * The sweep's defaults, for the store this file writes with: runtime/timing.ts is not imported here, as it would be
 * loaded before the stack sets the handlers' settings, and keep its defaults for them.
 */
const SWEEP_TIMING = { staleAfterMs: 300_000, expiryGraceMs: 60_000 };

const storefront = { token: 'storefront' } as const;
const admin = { token: 'admin' } as const;

/** The order's item as stored: a refused callback leaves it the same, version and all. */
const itemOf = async (foreignId: string) =>
  (await scanTable(harness.stack)).find((item) => item.pk.S === `INVOICE#${foreignId}`);

/** The events the shop received for an order, marked ones included. */
const eventsOf = (foreignId: string) =>
  receiver.received
    .map((event) => ({ ...event, payload: JSON.parse(event.body) }))
    .filter(({ payload }) => (payload.data?.foreign_id ?? payload.error?.foreign_id) === foreignId);

async function checkout(foreignId: string): Promise<{ secret: string; body: Record<string, unknown> }> {
  const created = await harness.api('POST', '/checkout', { ...storefront, body: checkoutBody(foreignId) });
  expect(created.status).toBe(201);
  return { secret: created.body.client_secret, body: checkoutBody(foreignId) };
}

/** The period's first page of the orders export, from before this file's first order to a minute ahead. */
const exportNow = () => {
  const period = new URLSearchParams({
    created_after: new Date(startedAt - 60_000).toISOString(),
    created_before: new Date(Date.now() + 60_000).toISOString(),
  });
  return harness.api('GET', `/exports/invoices.csv?${period}`, admin);
};

const listNow = () => harness.api('GET', '/invoices?limit=100', admin);

const rowOf = (csv: string, foreignId: string) =>
  csv.split('\r\n').find((line) => line.startsWith(`${foreignId},`));

const unrenderableCounts = () =>
  output
    .text()
    .split('\n')
    .filter((line) => line.includes('"UnrenderableRecords"'))
    .reduce((sum, line) => sum + (JSON.parse(line).UnrenderableRecords as number), 0);

function noServerError(name: string, answer: Answer) {
  // The route's name in the message says which one answered 5xx.
  expect({ name, status: answer.status < 500 ? 'under 500' : answer.status }).toEqual({
    name,
    status: 'under 500',
  });
}

/** Unix seconds at the edges: none, before 1970, past the year 9999, and past JavaScript's dates once in ms. */
const EDGES: Array<[string, number]> = [
  ['0', 0],
  ['negative', -1],
  ['far negative', -9_000_000_000_000],
  ['past the year 9999', 253_402_300_800],
  ["past JavaScript's dates", 8_640_000_000_001],
  ['9000000000000, as in the issue', 9_000_000_000_000],
  ['8.64e15', 8.64e15],
];

test("a signed callback's expires_at at each edge is refused with 400 naming it, and nothing of it is written", async () => {
  const foreignId = 'times-edges';
  const made = await checkout(foreignId);
  await checkout('times-neighbour');
  // Once the dispatcher has drained the checkout's event, nothing but these callbacks could change the item.
  const before = await waitFor(
    () => itemOf(foreignId),
    (item) => item?.gsi3pk === undefined && JSON.parse(item!.data!.S!).outbox.pending.length === 0,
    30_000,
  );

  for (const [name, expiresAt] of EDGES) {
    const body = invoiceCallbackBody(foreignId, 'processing', { expires_at: expiresAt });
    const answer = await postCallback(harness, body, signedHeaders(harness, body));
    expect({ name, status: answer.status, body: answer.body }).toEqual({
      name,
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message: 'Invalid fields: expires_at',
          fields: { expires_at: SERVICE_TIME_RULE },
        },
      },
    });
  }
  // Past the numbers JSON can carry exactly, a signed body is unreadable: ignored as before, nothing written.
  const unreadable = invoiceCallbackBody(foreignId, 'processing').replace(
    '"status"',
    '"expires_at":1e16,"status"',
  );
  const ignored = await postCallback(harness, unreadable, signedHeaders(harness, unreadable));
  expect(ignored.status).toBe(200);
  expect(ignored.body.outcome).toBe('ignored');
  expect(await itemOf(foreignId)).toEqual(before);

  // Times the plugin never keeps, at the edges: read past, and the news itself is applied.
  const others = invoiceCallbackBody(foreignId, 'processing', {
    fixed_at: 8.64e15,
    release_at: -1,
    created_at: 253_402_300_800,
    updated_at: 0,
  });
  const applied = await postCallback(harness, others, signedHeaders(harness, others));
  expect(applied.status).toBe(200);
  expect(applied.body.outcome).toBe('applied');

  // No 5xx anywhere on the order afterwards, and every list and export around it works.
  const view = await harness.api('GET', `/invoices/${foreignId}`, storefront);
  noServerError('get', view);
  expect(view.body).toMatchObject({
    foreign_id: foreignId,
    status: 'confirming',
    expires_at: expect.any(String),
  });
  const shown = await harness.api('GET', `/public/invoices/${foreignId}`, {
    headers: { 'x-client-secret': made.secret },
  });
  noServerError('public view', shown);
  expect(shown.status).toBe(200);
  const list = await listNow();
  noServerError('list', list);
  expect(list.body.data.map((entry: { foreign_id: string }) => entry.foreign_id)).toEqual(
    expect.arrayContaining([foreignId, 'times-neighbour']),
  );
  const csv = await exportNow();
  noServerError('export', csv);
  expect(rowOf(csv.body, foreignId)).toContain(',confirming,');
  expect(rowOf(csv.body, 'times-neighbour')).toContain(',awaiting_payment,');
  const replay = await harness.api('POST', '/checkout', { ...storefront, body: made.body });
  noServerError('checkout replay', replay);
  expect(replay.status).toBe(200);
  const cancel = await harness.api('POST', `/invoices/${foreignId}/cancel`, admin);
  noServerError('cancel', cancel);
  const neighbourCancel = await harness.api('POST', '/invoices/times-neighbour/cancel', admin);
  expect(neighbourCancel.status).toBe(200);
  noServerError('list after the cancels', await listNow());
  noServerError('export after the cancels', await exportNow());

  // Its webhooks still go: every event the shop got for it carries its view.
  const events = await waitFor(
    async () => eventsOf(foreignId),
    (found) => found.some((event) => event.type === 'invoice.confirming'),
    30_000,
  );
  expect(events.map((event) => event.type)).toEqual(
    expect.arrayContaining(['invoice.awaiting_payment', 'invoice.confirming']),
  );
  for (const { payload } of events) expect(payload.data.foreign_id).toBe(foreignId);
}, 120_000);

test("a record stored with an expiry past JavaScript's dates answers unrenderable_record alone, and is counted", async () => {
  const foreignId = 'times-stored-bad';
  const made = await checkout(foreignId);
  await checkout('times-stored-good');
  // Once its first event has gone, so that the write below races no drain of it.
  await waitFor(
    async () => eventsOf(foreignId),
    (found) => found.length > 0,
    30_000,
  );
  const client = new DynamoDBClient({
    endpoint: harness.stack.dynamo.url,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const store = new VersionedDynamoStore<InvoiceRecord>(
      { client, name: harness.stack.tableName },
      DEFAULT_STORE_ID,
      'INVOICE',
      isOpen,
      (record) => nextSweepAt(record, SWEEP_TIMING),
    );
    const record = (await store.get(foreignId))!;
    const bad = {
      ...record,
      invoice: { ...record.invoice!, releaseAt: 9_000_000_000_000 },
      version: record.version + 1,
    };
    expect(await store.update(bad, record.version)).toBe(true);
  } finally {
    client.destroy();
  }
  const countedBefore = unrenderableCounts();

  // Its own routes: a clear error, with a named code.
  const unrenderable = {
    error: { code: 'unrenderable_record', message: expect.stringContaining('expires_at') },
  };
  const view = await harness.api('GET', `/invoices/${foreignId}`, storefront);
  expect(view.status).toBe(500);
  expect(view.body).toMatchObject(unrenderable);
  const shown = await harness.api('GET', `/public/invoices/${foreignId}`, {
    headers: { 'x-client-secret': made.secret },
  });
  expect(shown.status).toBe(500);
  expect(shown.body).toMatchObject(unrenderable);

  // The list leaves it out; the export marks it; every other record is as it was.
  const list = await listNow();
  expect(list.status).toBe(200);
  const listed = list.body.data.map((entry: { foreign_id: string }) => entry.foreign_id);
  expect(listed).toContain('times-stored-good');
  expect(listed).not.toContain(foreignId);
  const csv = await exportNow();
  expect(csv.status).toBe(200);
  expect(rowOf(csv.body, foreignId)).toMatch(/^times-stored-bad,,,,unrenderable,+$/);
  expect(rowOf(csv.body, 'times-stored-good')).toContain(',awaiting_payment,');
  expect(unrenderableCounts()).toBeGreaterThanOrEqual(countedBefore + 4);

  // Its news is still recorded, and its webhooks still go, marked, in order; the rest of the shop's are whole.
  const body = invoiceCallbackBody(foreignId, 'processing');
  const applied = await postCallback(harness, body, signedHeaders(harness, body));
  expect(applied.status).toBe(200);
  expect(applied.body.outcome).toBe('applied');
  const events = await waitFor(
    async () => eventsOf(foreignId),
    (found) => found.some((event) => event.type === 'invoice.confirming'),
    30_000,
  );
  const confirming = events.find((event) => event.type === 'invoice.confirming')!;
  expect(confirming.payload).toMatchObject({
    data: null,
    error: { code: 'unrenderable_record', foreign_id: foreignId },
  });
  const goodEvents = eventsOf('times-stored-good');
  for (const { payload } of goodEvents) expect(payload.data.foreign_id).toBe('times-stored-good');
}, 120_000);
