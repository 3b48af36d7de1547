// The travel rule's receiver on refunds (issue 42): validated field by field, refused or required as the store's
// travel_rule says, sent to the payment service with the withdrawal, and found nowhere else once it is sent.
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { clearFaults, injectFault } from '../support/faults';
import { paidOrder, refundBody, startHarness, type Harness } from '../support/local-stack';
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

const admin = { token: 'admin' } as const;
const platform = { token: 'platform' } as const;
const ADDRESS = 'bc1qrefundaddress0000000000000000000000';
const WITHDRAWALS = '/v2/crypto/withdrawal_instant_exchange';

/** Values found nowhere else in a run: any of them seen outside the payment service's request is a leak. */
const PERSON = {
  type: 'natural',
  first_name: 'Zephyrine',
  last_name: 'Quillfeather',
  date_of_birth: '1987-03-14',
  email: 'zephyrine.quill@receiver.example',
};
const COMPANY = {
  type: 'legal',
  company_name: 'Umbrafleet Logistik GmbH',
  country: 'AT',
  email: 'payouts@umbrafleet.example',
};
const PERSONAL_VALUES = [
  PERSON.first_name,
  PERSON.last_name,
  PERSON.date_of_birth,
  PERSON.email,
  COMPANY.company_name,
  COMPANY.email,
];

const orderRefund = (order: string, body: Record<string, unknown>, token = admin.token as string) =>
  harness.api('POST', `/invoices/${order}/refunds`, { token, body: { address: ADDRESS, ...body } });

async function withdrawalBodies(): Promise<string[]> {
  return (await harness.upstreamRequests(WITHDRAWALS)).map(({ body }) => body);
}

test('every receiver field at fault is a 400 naming it, and nothing is written or sent', async () => {
  await paidOrder(harness, 'tr-bad');
  const cases: Array<[Record<string, unknown> | string, string]> = [
    ['natural', 'receiver'],
    [{}, 'receiver.type'],
    [{ type: 'robot' }, 'receiver.type'],
    [{ ...PERSON, first_name: undefined }, 'receiver.first_name'],
    [{ ...PERSON, first_name: '  ' }, 'receiver.first_name'],
    [{ ...PERSON, first_name: 'x'.repeat(101) }, 'receiver.first_name'],
    [{ ...PERSON, last_name: 'Quill\u0007' }, 'receiver.last_name'],
    [{ ...PERSON, last_name: 'Quill\u202efeather' }, 'receiver.last_name'],
    [{ ...PERSON, last_name: undefined }, 'receiver.last_name'],
    [{ ...PERSON, date_of_birth: undefined }, 'receiver.date_of_birth'],
    [{ ...PERSON, date_of_birth: '14.03.1987' }, 'receiver.date_of_birth'],
    [{ ...PERSON, date_of_birth: '1987-02-30' }, 'receiver.date_of_birth'],
    [{ ...PERSON, date_of_birth: '2999-01-01' }, 'receiver.date_of_birth'],
    [{ ...PERSON, date_of_birth: '1899-12-31' }, 'receiver.date_of_birth'],
    [{ ...PERSON, email: 'not-an-address' }, 'receiver.email'],
    [{ ...PERSON, company_name: 'Acme' }, 'receiver.company_name'],
    [{ ...COMPANY, company_name: undefined }, 'receiver.company_name'],
    [{ ...COMPANY, company_name: 'y'.repeat(201) }, 'receiver.company_name'],
    [{ ...COMPANY, country: undefined }, 'receiver.country'],
    [{ ...COMPANY, country: 'AUT' }, 'receiver.country'],
    [{ ...COMPANY, country: 'at' }, 'receiver.country'],
    [{ ...COMPANY, country: 'XX' }, 'receiver.country'],
    [{ ...COMPANY, email: 'a b@c.d' }, 'receiver.email'],
    [{ type: 'self', first_name: 'Zed' }, 'receiver.first_name'],
  ];
  for (const [index, [given, field]] of cases.entries()) {
    for (const send of [
      () => orderRefund('tr-bad', { foreign_id: `tr-bad-o${index}`, receiver: given }),
      () =>
        harness.api('POST', '/refunds', {
          ...admin,
          body: refundBody(`tr-bad-p${index}`, { receiver: given }),
        }),
    ]) {
      const answer = await send();
      expect([
        index,
        answer.status,
        answer.body.error?.code,
        Object.keys(answer.body.error?.fields ?? {}),
      ]).toEqual([index, 400, 'invalid_request', [field]]);
      // A value at fault is never echoed back.
      if (typeof given === 'object') {
        for (const [key, value] of Object.entries(given)) {
          if (key !== 'type' && typeof value === 'string' && value.length > 5)
            expect(JSON.stringify(answer.body)).not.toContain(value);
        }
      }
    }
  }
  const items = JSON.stringify(await scanTable(harness.stack));
  expect(items).not.toMatch(/REFUND#tr-bad-/);
  expect((await withdrawalBodies()).filter((body) => body.includes('tr-bad-'))).toEqual([]);
});

test("a store's travel_rule: set and shown; required refuses a refund without a receiver, off one with it", async () => {
  const made = await harness.api('POST', '/stores', {
    ...platform,
    body: { id: 'tr-required', name: 'Travel rule required', travel_rule: 'required' },
  });
  expect([made.status, made.body.store.travel_rule]).toEqual([201, 'required']);
  const storeAdmin = made.body.admin_token as string;
  expect((await harness.api('GET', '/stores/tr-required', platform)).body.travel_rule).toBe('required');
  expect((await harness.api('GET', '/stores/default', platform)).body.travel_rule).toBe('optional');
  const fresh = await harness.api('POST', '/stores', {
    ...platform,
    body: { id: 'tr-fresh', name: 'Fresh' },
  });
  expect(fresh.body.store.travel_rule).toBe('optional');
  const bad = await harness.api('POST', '/stores', {
    ...platform,
    body: { id: 'tr-bad-store', name: 'Bad', travel_rule: 'sometimes' },
  });
  expect([bad.status, Object.keys(bad.body.error.fields)]).toEqual([400, ['travel_rule']]);

  // Required: no receiver is a 400 naming it, before the order is even looked for; with one, the order is.
  const without = await orderRefund('tr-no-order', { foreign_id: 'tr-req-1' }, storeAdmin);
  expect([without.status, without.body.error.fields]).toEqual([400, { receiver: expect.any(String) }]);
  const withIt = await orderRefund('tr-no-order', { foreign_id: 'tr-req-1', receiver: PERSON }, storeAdmin);
  expect(withIt.status).toBe(404);

  const off = await harness.api('PATCH', '/stores/tr-required', {
    ...platform,
    body: { travel_rule: 'off' },
  });
  expect([off.status, off.body.travel_rule]).toEqual([200, 'off']);
  const refused = await orderRefund('tr-no-order', { foreign_id: 'tr-off-1', receiver: PERSON }, storeAdmin);
  expect([refused.status, refused.body.error.fields]).toEqual([400, { receiver: expect.any(String) }]);
  expect(JSON.stringify(refused.body)).not.toContain(PERSON.first_name);
  expect((await orderRefund('tr-no-order', { foreign_id: 'tr-off-1' }, storeAdmin)).status).toBe(404);
  expect(JSON.stringify(await scanTable(harness.stack))).not.toMatch(/REFUND#[^"]*tr-(req|off)-1/);
});

test('the receiver reaches the payment service, and once sent is in no answer, export, webhook, log line or item', async () => {
  await paidOrder(harness, 'tr-order');
  const sent = await orderRefund('tr-order', {
    foreign_id: 'tr-refund',
    debited_amount: '5',
    receiver: PERSON,
  });
  expect(sent.status).toBe(201);
  const payout = await harness.api('POST', '/refunds', {
    ...admin,
    body: refundBody('tr-payout', { receiver: COMPANY }),
  });
  expect(payout.status).toBe(201);
  const self = await harness.api('POST', '/refunds', {
    ...admin,
    body: refundBody('tr-self', { receiver: { type: 'self' } }),
  });
  expect(self.status).toBe(201);

  // The capture works: the payment service did get every value, in its own words.
  const bodies = (await withdrawalBodies()).map((body) => JSON.parse(body));
  const byId = (id: string) => bodies.find((body) => body.foreign_id === id);
  expect(byId('tr-refund')).toMatchObject({
    receiver_type: 'natural',
    receiver_data: {
      first_name: PERSON.first_name,
      last_name: PERSON.last_name,
      date_of_birth: PERSON.date_of_birth,
      email: PERSON.email,
    },
  });
  expect(byId('tr-payout')).toMatchObject({
    receiver_type: 'legal',
    receiver_data: { legal_name: COMPANY.company_name, country_of_registration: 'AUT', email: COMPANY.email },
  });
  expect(byId('tr-self').receiver_type).toBe('self');
  expect(byId('tr-self')).not.toHaveProperty('receiver_data');
  const all = JSON.stringify(bodies);
  for (const value of PERSONAL_VALUES) expect(all).toContain(value);

  for (const id of ['tr-refund', 'tr-payout', 'tr-self']) {
    expect(
      (await harness.control('POST', `/withdrawals/${id}/complete`, { status: 'confirmed' })).status,
    ).toBe(200);
  }
  await waitFor(
    async () => receiver.received.filter(({ type }) => type === 'refund.confirmed').length,
    (count) => count >= 3,
    30_000,
  );

  // The same request again, the receiver with it, answers the same refund after the data has gone.
  const again = await orderRefund('tr-order', {
    foreign_id: 'tr-refund',
    debited_amount: '5',
    receiver: PERSON,
  });
  expect([again.status, again.body.transaction_id]).toEqual([200, sent.body.transaction_id]);
  const payoutAgain = await harness.api('POST', '/refunds', {
    ...admin,
    body: refundBody('tr-payout', { receiver: COMPANY }),
  });
  expect([payoutAgain.status, payoutAgain.body.transaction_id]).toEqual([200, payout.body.transaction_id]);

  const seen: string[] = [];
  const read = async (path: string) => {
    const answer = await harness.api('GET', path, admin);
    expect(answer.status).toBe(200);
    seen.push(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  };
  for (const path of [
    '/refunds?limit=100',
    '/refunds/tr-refund',
    '/refunds/tr-payout',
    '/invoices/tr-order',
    '/invoices?limit=100',
    '/exports/refunds.csv',
    '/exports/invoices.csv',
    '/webhooks/deliveries?limit=100',
  ]) {
    await read(path);
  }
  expect(seen.join('\n')).toContain('tr-refund');
  seen.push(...receiver.received.map(({ body }) => body));
  expect(receiver.received.some(({ body }) => body.includes('tr-payout'))).toBe(true);
  seen.push(JSON.stringify([sent.body, payout.body, again.body, payoutAgain.body]));
  const items = await scanTable(harness.stack);
  expect(JSON.stringify(items)).toContain('REFUND#tr-refund');
  seen.push(JSON.stringify(items));
  // The capture works: the refunds' requests are among the log lines.
  expect(output.text()).toMatch(/\/refunds/);
  seen.push(output.text());

  const everything = seen.join('\n');
  for (const value of PERSONAL_VALUES) expect(everything).not.toContain(value);
  expect(everything).not.toContain('receiver_data');
  for (const id of ['tr-refund', 'tr-payout', 'tr-self']) {
    expect(await storedRecord(harness.stack, 'REFUND', id)).not.toHaveProperty('receiver');
  }
});

test('after a lost answer the receiver stays on the record until the retry settles the send, then goes', async () => {
  await paidOrder(harness, 'tr-lost');
  // The send lands but its answer is lost, and so does the client's own look-up: the outcome stays unknown.
  await injectFault(harness, WITHDRAWALS, 'reset_after_commit');
  await injectFault(harness, '/v2/transactions/info', '5xx', 20);
  const lost = await orderRefund('tr-lost', {
    foreign_id: 'tr-lost-r',
    debited_amount: '5',
    receiver: PERSON,
  });
  await clearFaults(harness);
  expect([502, 504]).toContain(lost.status);
  const unsettled = await storedRecord(harness.stack, 'REFUND', 'tr-lost-r');
  expect(unsettled).toMatchObject({ phase: 'unknown', receiver: { firstName: PERSON.first_name } });

  const retried = await orderRefund('tr-lost', {
    foreign_id: 'tr-lost-r',
    debited_amount: '5',
    receiver: PERSON,
  });
  expect(retried.status).toBe(201);
  const settled = await storedRecord(harness.stack, 'REFUND', 'tr-lost-r');
  expect(settled).toMatchObject({ phase: 'sent' });
  expect(settled).not.toHaveProperty('receiver');
  // Sent once: the retry found the withdrawal the lost answer had made.
  const sends = (await withdrawalBodies()).filter((body) => body.includes('"tr-lost-r"'));
  expect(sends).toHaveLength(1);
  expect(sends[0]).toContain(PERSON.last_name);
  // The failures on the way logged none of it, and the answers showed none of it.
  const said = [output.text(), JSON.stringify([lost.body, retried.body])].join('\n');
  for (const value of PERSONAL_VALUES) expect(said).not.toContain(value);
});
