// The travel rule's receiver in the refund's life: checked against the store's setting before anything is written,
// sent with the withdrawal, kept on the record only while the send is unsettled, and in no webhook event.
import { InvalidFieldsError } from '../../domain/errors';
import type { Receiver, RefundRequest } from '../../domain/model';
import { RefundService } from '../../domain/refunds';
import type { TravelRule } from '../../domain/stores';
import { checkReceiver } from '../../domain/travel-rule';
import { oneAccount } from '../../domain/upstream';
import { ProcessingAdapter } from '../../processing/adapter';
import { startDomainRig, SWEEP_TIMING, type DomainRig } from '../support/domain-rig';

let rig: DomainRig;
beforeEach(async () => {
  rig = await startDomainRig();
});
afterEach(() => rig.close());

const PERSON: Receiver = {
  type: 'natural',
  firstName: 'Zephyrine',
  lastName: 'Quillfeather',
  dateOfBirth: '1987-03-14',
};

const payout = (foreignId: string, receiver?: Receiver): RefundRequest & { receiver?: Receiver } => ({
  foreignId,
  senderCurrency: 'EUR',
  receivedCurrency: 'BTC',
  senderAmount: '7',
  address: 'bc1qrefundaddress0000000000000000000000',
  ...(receiver && { receiver }),
});

const withdrawalBodies = async (): Promise<Array<Record<string, unknown>>> =>
  (await rig.control('GET', '/requests?path=/v2/crypto/withdrawal_instant_exchange')).requests.map(
    ({ body }: { body: string }) => JSON.parse(body),
  );

/** The rig's refunds under a store whose travel_rule is `rule`. */
function refundsUnder(rule: TravelRule): RefundService {
  const timing = { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
  return new RefundService(
    rig.refundStore,
    oneAccount(new ProcessingAdapter(rig.client)),
    timing,
    rig.invoices,
    { travelRule: () => Promise.resolve(rule) },
  );
}

describe('checkReceiver', () => {
  test.each([
    ['off', undefined, true],
    ['off', PERSON, false],
    ['optional', undefined, true],
    ['optional', PERSON, true],
    ['required', PERSON, true],
    ['required', undefined, false],
  ] as const)('%s with %p: taken %p', (rule, receiver, taken) => {
    const check = () => checkReceiver(rule, receiver);
    if (taken) expect(check).not.toThrow();
    else expect(check).toThrow(expect.objectContaining({ fields: { receiver: expect.any(String) } }));
  });
});

test("a refund the store's setting refuses writes nothing and sends nothing", async () => {
  for (const [rule, receiver] of [
    ['required', undefined],
    ['off', PERSON],
  ] as const) {
    const error = await refundsUnder(rule)
      .create(payout(`tr-${rule}`, receiver))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidFieldsError);
    expect(await rig.refundStore.get(`tr-${rule}`)).toBeUndefined();
  }
  expect(await withdrawalBodies()).toEqual([]);
});

test('sent with the withdrawal, then gone from the record, and a repeat answers the same refund', async () => {
  const { record, created } = await rig.refunds.create(payout('tr-1', PERSON));
  expect([created, record.phase]).toEqual([true, 'sent']);
  expect(record).not.toHaveProperty('receiver');
  expect(await rig.refundStore.get('tr-1')).not.toHaveProperty('receiver');
  const [sent] = await withdrawalBodies();
  expect(sent).toMatchObject({
    receiver_type: 'natural',
    receiver_data: { first_name: 'Zephyrine', last_name: 'Quillfeather', date_of_birth: '1987-03-14' },
  });
  expect(sent.receiver_data).not.toHaveProperty('email');

  const again = await rig.refunds.create(payout('tr-1', PERSON));
  expect([again.created, again.record.withdrawal]).toEqual([false, record.withdrawal]);
  expect(await withdrawalBodies()).toHaveLength(1);
  // Its events hold nothing of the receiver.
  expect(JSON.stringify((await rig.refundStore.get('tr-1'))!.outbox ?? {})).not.toContain('Zephyrine');
});

test("a send the service never got keeps the receiver until the sweep's resend, which sends it and drops it", async () => {
  await rig.control('POST', '/faults', {
    path: '/v2/crypto/withdrawal_instant_exchange',
    kind: '5xx',
    times: 1,
  });
  await rig.control('POST', '/faults', { path: '/v2/transactions/info', kind: '5xx' });
  await expect(rig.refunds.create(payout('tr-lost', PERSON))).rejects.toThrow();
  await rig.control('DELETE', '/faults');
  expect(await rig.refundStore.get('tr-lost')).toMatchObject({ phase: 'unknown', receiver: PERSON });
  expect(JSON.stringify((await rig.refundStore.get('tr-lost'))!.outbox ?? {})).not.toContain('Zephyrine');

  rig.clock.ms += SWEEP_TIMING.staleAfterMs;
  await rig.sweep();
  rig.clock.ms += SWEEP_TIMING.staleAfterMs;
  await rig.sweep();

  const settled = await rig.refundStore.get('tr-lost');
  expect(settled).toMatchObject({ phase: 'sent' });
  expect(settled).not.toHaveProperty('receiver');
  const sends = (await withdrawalBodies()).filter(({ foreign_id }) => foreign_id === 'tr-lost');
  expect(sends.at(-1)).toMatchObject({
    receiver_type: 'natural',
    receiver_data: { first_name: 'Zephyrine' },
  });
});

test('a retry that names no receiver sends the one the lost attempt held', async () => {
  await rig.control('POST', '/faults', {
    path: '/v2/crypto/withdrawal_instant_exchange',
    kind: '5xx',
    times: 1,
  });
  await rig.control('POST', '/faults', { path: '/v2/transactions/info', kind: '5xx' });
  await expect(rig.refunds.create(payout('tr-carry', PERSON))).rejects.toThrow();
  await rig.control('DELETE', '/faults');

  const { record } = await rig.refunds.create(payout('tr-carry'));
  expect(record.phase).toBe('sent');
  expect(record).not.toHaveProperty('receiver');
  const sends = (await withdrawalBodies()).filter(({ foreign_id }) => foreign_id === 'tr-carry');
  expect(sends.at(-1)).toMatchObject({ receiver_data: { last_name: 'Quillfeather' } });
});

test('a refusal drops it too', async () => {
  const error = await rig.refunds
    .create({ ...payout('tr-refused', PERSON), senderAmount: '99999999' })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(Error);
  const refused = await rig.refundStore.get('tr-refused');
  expect(refused).toMatchObject({ phase: 'rejected' });
  expect(refused).not.toHaveProperty('receiver');
});
