// The travel rule's receiver on a withdrawal, as the service's "User data collection" describes it: optional (the
// seed spec predates it), and when given, checked field by field, each refusal naming its field.
import { api, useSandbox } from './support';

const getSandbox = useSandbox();

const withdraw = (receiver: Record<string, unknown>) =>
  api(getSandbox(), 'POST', '/v2/crypto/withdrawal_instant_exchange', {
    sender_currency: 'USDT',
    received_currency: 'BTC',
    sender_amount: '100',
    address: 'bc1qcustomerrefundaddress000000000000000',
    foreign_id: `wd-tr-${Math.random().toString(36).slice(2)}`,
    ...receiver,
  });

const PERSON = { first_name: 'Friedrich', last_name: 'Müller', date_of_birth: '1995-08-17' };

test('a natural person, a company with its alpha-3 country, and self are taken', async () => {
  for (const receiver of [
    { receiver_type: 'natural', receiver_data: PERSON },
    { receiver_type: 'natural', receiver_data: { ...PERSON, email: 'f@example.com' } },
    { receiver_type: 'legal', receiver_data: { legal_name: 'Example GmbH', country_of_registration: 'DEU' } },
    { receiver_type: 'self' },
    {},
  ]) {
    expect((await withdraw(receiver)).status).toBe(201);
  }
});

test('bad receiver data is refused with a 400 naming each field, never echoing a value', async () => {
  const cases: Array<[Record<string, unknown>, string[]]> = [
    [{ receiver_type: 'robot' }, ['receiver_type']],
    [{ receiver_data: PERSON }, ['receiver_type']],
    [{ receiver_type: 'natural' }, ['receiver_data']],
    [{ receiver_type: 'natural', receiver_data: 'Friedrich' }, ['receiver_data']],
    [
      { receiver_type: 'natural', receiver_data: {} },
      ['receiver_data.first_name', 'receiver_data.last_name', 'receiver_data.date_of_birth'],
    ],
    [
      { receiver_type: 'natural', receiver_data: { ...PERSON, date_of_birth: '1995-02-30', email: 'x' } },
      ['receiver_data.date_of_birth', 'receiver_data.email'],
    ],
    [
      { receiver_type: 'natural', receiver_data: { ...PERSON, date_of_birth: '2999-01-01' } },
      ['receiver_data.date_of_birth'],
    ],
    [
      {
        receiver_type: 'legal',
        receiver_data: { legal_name: 'Example GmbH', country_of_registration: 'DE' },
      },
      ['receiver_data.country_of_registration'],
    ],
    [
      { receiver_type: 'legal', receiver_data: { company_name: 'Example GmbH' } },
      ['receiver_data.legal_name', 'receiver_data.country_of_registration'],
    ],
  ];
  for (const [receiver, fields] of cases) {
    const answer = await withdraw(receiver);
    expect([answer.status, Object.keys(answer.json.errors).sort()]).toEqual([400, [...fields].sort()]);
    expect(answer.text).not.toContain('Friedrich');
  }
});
