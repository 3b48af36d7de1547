// The payer's travel-rule data on checkout (issue 43): validated field by field, refused or required as the store's
// travel_rule_sender says, sent to the payment service with the invoice's create, and found nowhere else.
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { clearFaults, injectFault } from '../support/faults';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable, storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
let receiver: WebhookReceiver;
const webhookSecret = newWebhookSecret();

beforeAll(async () => {
  output = captureOutput();
  receiver = await startWebhookReceiver(webhookSecret);
  harness = await startHarness({ webhooks: { url: receiver.url, secret: webhookSecret, intervalMs: 50 } });
}, 60_000);
afterAll(async () => {
  await harness.close();
  await receiver.close();
  output.restore();
});

const platform = { token: 'platform' } as const;
const CREATE = '/v2/invoices/create';

/** Values found nowhere else in a run: any of them seen outside the payment service's request is a leak. */
const PERSON = {
  type: 'natural',
  first_name: 'Ottoline',
  last_name: 'Brackenwhistle',
  date_of_birth: '1979-11-23',
  email: 'ottoline.bracken@payer.example',
};
const COMPANY = {
  type: 'legal',
  company_name: 'Vexmoor Handelsgesellschaft mbH',
  country: 'CH',
  email: 'treasury@vexmoor.example',
};
const PERSONAL_VALUES = [
  PERSON.first_name,
  PERSON.last_name,
  PERSON.date_of_birth,
  PERSON.email,
  COMPANY.company_name,
  COMPANY.email,
];

const checkout = (body: Record<string, unknown>, token = 'storefront') =>
  harness.api('POST', '/checkout', { token, body });

async function createBodies(): Promise<string[]> {
  return (await harness.upstreamRequests(CREATE)).map(({ body }) => body);
}

test('every sender field at fault is a 400 naming it, and nothing is written or sent', async () => {
  const cases: Array<[unknown, string]> = [
    ['natural', 'sender'],
    [{}, 'sender.type'],
    [{ type: 'robot' }, 'sender.type'],
    [{ type: 'self' }, 'sender.type'],
    [{ ...PERSON, first_name: undefined }, 'sender.first_name'],
    [{ ...PERSON, first_name: '  ' }, 'sender.first_name'],
    [{ ...PERSON, first_name: 'x'.repeat(101) }, 'sender.first_name'],
    [{ ...PERSON, first_name: 42 }, 'sender.first_name'],
    [{ ...PERSON, last_name: 'Bracken\u0007' }, 'sender.last_name'],
    [{ ...PERSON, last_name: 'Bracken\u202ewhistle' }, 'sender.last_name'],
    [{ ...PERSON, last_name: undefined }, 'sender.last_name'],
    [{ ...PERSON, date_of_birth: undefined }, 'sender.date_of_birth'],
    [{ ...PERSON, date_of_birth: '23.11.1979' }, 'sender.date_of_birth'],
    [{ ...PERSON, date_of_birth: '1979-02-30' }, 'sender.date_of_birth'],
    [{ ...PERSON, date_of_birth: '2999-01-01' }, 'sender.date_of_birth'],
    [{ ...PERSON, date_of_birth: '1899-12-31' }, 'sender.date_of_birth'],
    [{ ...PERSON, email: 'not-an-address' }, 'sender.email'],
    [{ ...PERSON, company_name: 'Acme' }, 'sender.company_name'],
    [{ ...COMPANY, company_name: undefined }, 'sender.company_name'],
    [{ ...COMPANY, company_name: 'y'.repeat(201) }, 'sender.company_name'],
    [{ ...COMPANY, country: undefined }, 'sender.country'],
    [{ ...COMPANY, country: 'CHE' }, 'sender.country'],
    [{ ...COMPANY, country: 'ch' }, 'sender.country'],
    [{ ...COMPANY, country: 'XX' }, 'sender.country'],
    [{ ...COMPANY, email: 'a b@c.d' }, 'sender.email'],
  ];
  for (const [index, [given, field]] of cases.entries()) {
    const answer = await checkout(checkoutBody(`sd-bad-${index}`, { sender: given }));
    expect([
      index,
      answer.status,
      answer.body.error?.code,
      Object.keys(answer.body.error?.fields ?? {}),
    ]).toEqual([index, 400, 'invalid_request', [field]]);
    // A value at fault is never echoed back.
    if (typeof given === 'object' && given !== null) {
      for (const [key, value] of Object.entries(given)) {
        if (key !== 'type' && typeof value === 'string' && value.length > 5)
          expect(JSON.stringify(answer.body)).not.toContain(value);
      }
    }
  }
  expect(JSON.stringify(await scanTable(harness.stack))).not.toMatch(/INVOICE#sd-bad-/);
  expect((await createBodies()).filter((body) => body.includes('sd-bad-'))).toEqual([]);
});

test("a store's travel_rule_sender: set and shown; required refuses a checkout without a sender, off one with it", async () => {
  const made = await harness.api('POST', '/stores', {
    ...platform,
    body: { id: 'sd-required', name: 'Sender required', travel_rule_sender: 'required' },
  });
  expect([made.status, made.body.store.travel_rule_sender, made.body.store.travel_rule]).toEqual([
    201,
    'required',
    'optional',
  ]);
  const storefront = made.body.storefront_token as string;
  expect((await harness.api('GET', '/stores/sd-required', platform)).body.travel_rule_sender).toBe(
    'required',
  );
  expect((await harness.api('GET', '/stores/default', platform)).body.travel_rule_sender).toBe('optional');
  const bad = await harness.api('POST', '/stores', {
    ...platform,
    body: { id: 'sd-bad-store', name: 'Bad', travel_rule_sender: 'sometimes' },
  });
  expect([bad.status, Object.keys(bad.body.error.fields)]).toEqual([400, ['travel_rule_sender']]);

  const without = await checkout(checkoutBody('sd-req-1'), storefront);
  expect([without.status, without.body.error.fields]).toEqual([400, { sender: expect.any(String) }]);
  const withIt = await checkout(checkoutBody('sd-req-1', { sender: COMPANY }), storefront);
  expect(withIt.status).toBe(201);

  const off = await harness.api('PATCH', '/stores/sd-required', {
    ...platform,
    body: { travel_rule_sender: 'off' },
  });
  expect([off.status, off.body.travel_rule_sender]).toEqual([200, 'off']);
  const refused = await checkout(checkoutBody('sd-off-1', { sender: PERSON }), storefront);
  expect([refused.status, refused.body.error.fields]).toEqual([400, { sender: expect.any(String) }]);
  expect(JSON.stringify(refused.body)).not.toContain(PERSON.first_name);
  expect((await checkout(checkoutBody('sd-off-1'), storefront)).status).toBe(201);
  const bodies = await createBodies();
  expect(bodies.filter((body) => body.includes('sd-off-1'))).toHaveLength(1);
  expect(bodies.find((body) => body.includes('sd-off-1'))).not.toContain('sender_data');
});

test('the sender reaches the payment service, and is in no answer, list, export, webhook, log line or item', async () => {
  const made = await checkout(
    checkoutBody('sd-order', { sender: PERSON, end_user_reference: 'customer-7781' }),
  );
  expect(made.status).toBe(201);
  const company = await checkout(checkoutBody('sd-company', { sender: COMPANY }));
  expect(company.status).toBe(201);

  // The capture works: the payment service did get every value, in its own words.
  const bodies = (await createBodies()).map((body) => JSON.parse(body));
  const byId = (id: string) => bodies.find((body) => body.foreign_id === id);
  expect(byId('sd-order')).toMatchObject({
    end_user_reference: 'customer-7781',
    sender_type: 'natural',
    sender_data: {
      first_name: PERSON.first_name,
      last_name: PERSON.last_name,
      date_of_birth: PERSON.date_of_birth,
      email: PERSON.email,
    },
  });
  expect(byId('sd-company')).toMatchObject({
    sender_type: 'legal',
    sender_data: { legal_name: COMPANY.company_name, country_of_registration: 'CHE', email: COMPANY.email },
  });
  const all = JSON.stringify(bodies);
  for (const value of PERSONAL_VALUES) expect(all).toContain(value);

  for (const id of ['sd-order', 'sd-company']) {
    expect((await harness.control('POST', `/invoices/${id}/pay`, { kind: 'full' })).status).toBe(200);
  }
  await waitFor(
    async () => receiver.received.filter(({ body }) => body.includes('sd-company')).length,
    (count) => count >= 1,
    30_000,
  );
  await waitFor(
    () => harness.api('GET', '/invoices/sd-order', { token: 'storefront' }),
    ({ body }) => body.status === 'paid',
    30_000,
  );

  const seen: string[] = [JSON.stringify([made.body, company.body])];
  for (const path of [
    '/invoices/sd-order',
    '/invoices/sd-company',
    '/invoices?limit=100',
    '/exports/invoices.csv',
    '/webhooks/deliveries?limit=100',
  ]) {
    const answer = await harness.api('GET', path, { token: 'admin' });
    expect(answer.status).toBe(200);
    seen.push(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  }
  expect(seen.join('\n')).toContain('sd-company');
  expect(receiver.received.some(({ body }) => body.includes('sd-order'))).toBe(true);
  seen.push(...receiver.received.map(({ body }) => body));
  const items = await scanTable(harness.stack);
  expect(JSON.stringify(items)).toContain('INVOICE#sd-order');
  seen.push(JSON.stringify(items));
  // The capture works: the checkouts are among the log lines.
  expect(output.text()).toMatch(/\/checkout/);
  seen.push(output.text());

  const everything = seen.join('\n');
  for (const value of PERSONAL_VALUES) expect(everything).not.toContain(value);
  expect(everything).not.toContain('sender_data');
  expect(everything).not.toContain('customer-7781@');
});

test('after a lost answer the same checkout with the same sender resumes; another sender is a conflict', async () => {
  const body = checkoutBody('sd-lost', { sender: PERSON });
  await injectFault(harness, CREATE, 'reset_after_commit');
  const lost = await checkout(body);
  await clearFaults(harness);
  expect([502, 504]).toContain(lost.status);
  expect(await storedRecord(harness.stack, 'INVOICE', 'sd-lost')).toMatchObject({ phase: 'unknown' });

  // Another payer under the same foreign_id is another request, before and after the invoice is made.
  const other = await checkout(checkoutBody('sd-lost', { sender: { ...PERSON, first_name: 'Ottilie' } }));
  expect([other.status, other.body.error.code]).toEqual([409, 'foreign_id_conflict']);
  const none = await checkout(checkoutBody('sd-lost'));
  expect(none.status).toBe(409);

  const retried = await checkout(body);
  expect(retried.status).toBe(201);
  expect(retried.body.payment_url).toEqual(expect.any(String));
  // The retry sent the payer again, as the first attempt had.
  const sends = (await createBodies()).filter((sent) => sent.includes('"sd-lost'));
  expect(sends.length).toBeGreaterThanOrEqual(2);
  for (const sent of sends) expect(sent).toContain(PERSON.last_name);

  const again = await checkout(body);
  expect([again.status, again.body.payment_url]).toEqual([200, retried.body.payment_url]);
  const company = await checkout(checkoutBody('sd-lost', { sender: COMPANY }));
  expect(company.status).toBe(409);

  // The order holds a digest of the payer, which tells the requests apart, and none of the payer's values.
  const record = await storedRecord(harness.stack, 'INVOICE', 'sd-lost');
  expect(record?.request.senderDigest).toMatch(/^[0-9a-f]{32}:[0-9a-f]{64}$/);
  const stored = JSON.stringify(record);
  for (const value of PERSONAL_VALUES) expect(stored).not.toContain(value);
  const said = [output.text(), JSON.stringify([lost.body, other.body, retried.body])].join('\n');
  for (const value of PERSONAL_VALUES) expect(said).not.toContain(value);
});
