import { NotConfiguredError } from '../../domain/errors';
import { secretFields } from '../../secrets/json-secret';

test('a field: its string; an absent one: undefined, unless required', () => {
  const field = secretFields('processing keys', '{"api":"k-1","empty":null}');

  expect(field('api')).toBe('k-1');
  expect(field('api', 'required')).toBe('k-1');
  expect(field('other')).toBeUndefined();
  expect(field('empty')).toBeUndefined();
  expect(() => field('other', 'required')).toThrow('The processing keys secret has no "other"');
});

test('a secret with no value yet is an operator step still to do (503), named', () => {
  expect(() => secretFields('processing keys', undefined)).toThrow(NotConfiguredError);
  expect(() => secretFields('processing keys', undefined)).toThrow(
    'The processing keys have not been put into their secret yet',
  );
});

test('a secret that is not JSON is a fault whose message holds no part of it', () => {
  const attempt = () => secretFields('bearer tokens', '{"admin_token": "tok-123"');

  expect(attempt).toThrow('The bearer tokens secret is not valid JSON');
  expect(attempt).not.toThrow(/tok-123/);
});

test.each([
  ['empty', ''],
  ['a number', 5],
  ['an object', { nested: 'x' }],
])('a field that is %s is refused, by name and never by value', (_what, value) => {
  const field = secretFields('processing keys', JSON.stringify({ api: value }));

  expect(() => field('api')).toThrow('The processing keys secret has no "api"');
});

test.each(['null', '"text"', '[]'])('JSON that is not an object (%s) has no fields', (text) => {
  const field = secretFields('processing keys', text);

  expect(field('api')).toBeUndefined();
  expect(() => field('api', 'required')).toThrow('The processing keys secret has no "api"');
});
