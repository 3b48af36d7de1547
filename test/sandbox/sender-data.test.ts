// The travel rule's payer on an invoice, as the service's "User data collection" and "Create an invoice" describe
// it: optional (the seed spec predates it), and when given, checked field by field, each refusal naming its field.
import { api, invoiceRequest, useSandbox } from './support';

const getSandbox = useSandbox();

const create = (sender: Record<string, unknown>) =>
  api(
    getSandbox(),
    'POST',
    '/v2/invoices/create',
    invoiceRequest({ foreign_id: `inv-tr-${Math.random().toString(36).slice(2)}`, ...sender }),
  );

const PERSON = { first_name: 'Friedrich', last_name: 'Müller', date_of_birth: '1995-08-17' };

test('a natural person and a company with its alpha-3 country are taken, as is no payer at all', async () => {
  for (const sender of [
    { sender_type: 'natural', sender_data: PERSON },
    { sender_type: 'natural', sender_data: { ...PERSON, email: 'f@example.com' } },
    { sender_type: 'legal', sender_data: { legal_name: 'Example GmbH', country_of_registration: 'DEU' } },
    {},
  ]) {
    expect((await create(sender)).status).toBe(201);
  }
});

test('bad sender data is refused with a 400 naming each field, never echoing a value', async () => {
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [{ sender_type: 'robot' }, ['sender_type']],
    [{ sender_type: 'self' }, ['sender_type']],
    [{ sender_data: PERSON }, ['sender_type']],
    [{ sender_type: 'natural' }, ['sender_data']],
    [{ sender_type: 'natural', sender_data: 'Friedrich' }, ['sender_data']],
    [
      { sender_type: 'natural', sender_data: {} },
      ['sender_data.first_name', 'sender_data.last_name', 'sender_data.date_of_birth'],
    ],
    [
      { sender_type: 'natural', sender_data: { ...PERSON, date_of_birth: '1995-02-30', email: 'x' } },
      ['sender_data.date_of_birth', 'sender_data.email'],
    ],
    [
      { sender_type: 'natural', sender_data: { ...PERSON, date_of_birth: '2999-01-01' } },
      ['sender_data.date_of_birth'],
    ],
    [
      { sender_type: 'legal', sender_data: { legal_name: 'Example GmbH', country_of_registration: 'DE' } },
      ['sender_data.country_of_registration'],
    ],
    [
      { sender_type: 'legal', sender_data: { company_name: 'Example GmbH' } },
      ['sender_data.legal_name', 'sender_data.country_of_registration'],
    ],
  ];
  for (const [sender, fields] of cases) {
    const answer = await create(sender);
    expect([answer.status, Object.keys(answer.json.errors).sort()]).toEqual([400, [...fields].sort()]);
    expect(answer.text).not.toContain('Friedrich');
  }
});
