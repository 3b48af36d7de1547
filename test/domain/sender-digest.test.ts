// The payer's travel-rule data on a checkout: checked against the store's setting, and kept on the order only as a
// keyed digest that tells the same request from another.
import { randomBytes } from 'node:crypto';
import { InvalidFieldsError, NotConfiguredError, ServiceError } from '../../domain/errors';
import { InvoiceService } from '../../domain/invoices';
import { oneAccount } from '../../domain/upstream';
import { ProcessingAdapter } from '../../processing/adapter';
import { checkoutRequest, startDomainRig, type DomainRig } from '../support/domain-rig';
import { isKeyedDigestOf, isSameWithDigest, keyedDigest, withDigestOf } from '../../domain/hash';
import type { Sender } from '../../domain/model';
import { checkSender } from '../../domain/travel-rule';

const PERSON: Sender = {
  type: 'natural',
  firstName: 'Ottoline',
  lastName: 'Brackenwhistle',
  dateOfBirth: '1979-11-23',
};
const COMPANY: Sender = { type: 'legal', companyName: 'Vexmoor Handelsgesellschaft mbH', country: 'CH' };
const key = randomBytes(32);
const request = { foreignId: 'o-1', amount: '10', currency: 'EUR' };

describe('checkSender', () => {
  test.each([
    ['off', undefined, true],
    ['off', PERSON, false],
    ['optional', undefined, true],
    ['optional', COMPANY, true],
    ['required', undefined, false],
    ['required', PERSON, true],
  ] as const)('%s with %p: taken %p', (rule, sender, taken) => {
    const check = () => checkSender(rule, sender);
    if (taken) expect(check).not.toThrow();
    else expect(check).toThrow(InvalidFieldsError);
  });
});

test('a keyed digest holds none of the data, is salted, and is checked only under its key', () => {
  const digest = keyedDigest(PERSON, key);
  for (const value of Object.values(PERSON)) {
    if (value !== 'natural') expect(digest).not.toContain(value);
  }
  expect(keyedDigest(PERSON, key)).not.toBe(digest);
  expect(isKeyedDigestOf(digest, { ...PERSON }, key)).toBe(true);
  expect(isKeyedDigestOf(digest, { ...PERSON, lastName: 'Bracken' }, key)).toBe(false);
  expect(isKeyedDigestOf(digest, PERSON, randomBytes(32))).toBe(false);
  expect(isKeyedDigestOf('nosalt', PERSON, key)).toBe(false);
});

test('a request with a digested payer is the same request only with the same payer, or with none on both', () => {
  const stored = { request: withDigestOf(request, 'senderDigest', PERSON, key) };
  expect(stored.request).toHaveProperty('senderDigest');
  expect(isSameWithDigest(stored, request, 'senderDigest', PERSON, key)).toBe(true);
  expect(isSameWithDigest(stored, request, 'senderDigest', COMPANY, key)).toBe(false);
  expect(isSameWithDigest(stored, request, 'senderDigest', undefined, key)).toBe(false);
  expect(isSameWithDigest(stored, { ...request, amount: '11' }, 'senderDigest', PERSON, key)).toBe(false);
  const none = { request: withDigestOf(request, 'senderDigest', undefined, key) };
  expect(none.request).toEqual(request);
  expect(isSameWithDigest(none, request, 'senderDigest', undefined, key)).toBe(true);
  expect(isSameWithDigest(none, request, 'senderDigest', PERSON, key)).toBe(false);
});

describe('through the sandbox', () => {
  let rig: DomainRig;
  beforeEach(async () => {
    rig = await startDomainRig();
  });
  afterEach(() => rig.close());

  const invoicesWithKey = () =>
    new InvoiceService(
      rig.invoiceStore,
      oneAccount(new ProcessingAdapter(rig.client)),
      { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 },
      { senderDigestKey: () => Promise.resolve(key) },
    );

  test("a payer the service refuses reaches the caller as its refusal, naming the service's field", async () => {
    // The API's own checks refuse such a date first; past them, the service's refusal is the caller's answer.
    const error = await invoicesWithKey()
      .checkout(checkoutRequest('sd-refused'), { ...PERSON, dateOfBirth: '2999-01-01' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).failure).toBe('refused');
    expect(Object.keys((error as ServiceError).fields)).toEqual(['sender_data.date_of_birth']);
    expect(JSON.stringify((error as ServiceError).fields)).not.toContain(PERSON.lastName);
    // Refused for good: the foreign_id is free, and the same order with a good payer is made.
    const made = await invoicesWithKey().checkout(checkoutRequest('sd-refused'), PERSON);
    expect(made.created).toBe(true);
  });

  test('a payer with no key to digest it under is refused before anything is written', async () => {
    const error = await rig.invoices.checkout(checkoutRequest('sd-nokey'), PERSON).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotConfiguredError);
    expect(await rig.invoiceStore.get('sd-nokey')).toBeUndefined();
  });
});
