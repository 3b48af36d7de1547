// The payer's travel-rule data on a checkout: checked against the store's setting, and kept on the order only as a
// keyed digest that tells the same request from another.
import { randomBytes } from 'node:crypto';
import { InvalidFieldsError } from '../../domain/errors';
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
