import { NotConfiguredError } from '../../domain/errors';
import { parseProcessingKeys } from '../../secrets/processing-keys';

test('reads both keys', () => {
  expect(
    parseProcessingKeys(JSON.stringify({ processing_api_key: 'api', processing_secret_key: 'secret', x: 1 })),
  ).toEqual({ apiKey: 'api', secretKey: 'secret' });
});

test('a secret with no value yet: the operator has not put the keys in (503 not_configured)', () => {
  expect(() => parseProcessingKeys(undefined)).toThrow(NotConfiguredError);
  expect(() => parseProcessingKeys(undefined)).toThrow(/processing keys have not been put into their secret/);
});

test.each([
  ['a missing key', { processing_api_key: 'hunter2' }, /has no "processing_secret_key"/],
  [
    'an empty key',
    { processing_api_key: '', processing_secret_key: 'hunter2' },
    /has no "processing_api_key"/,
  ],
  [
    'a key that is not a string',
    { processing_api_key: 7, processing_secret_key: 'hunter2' },
    /"processing_api_key"/,
  ],
  ['JSON that is not an object', 'hunter2', /has no "processing_api_key"/],
])('%s is a fault that names the field and quotes no value', (_label, value, message) => {
  const parse = () => parseProcessingKeys(JSON.stringify(value));
  expect(parse).toThrow(message);
  expect(parse).not.toThrow(NotConfiguredError);
  expect(parse).not.toThrow(/hunter2/);
});

test('text that is not JSON is refused without quoting it', () => {
  expect(() => parseProcessingKeys('hunter2 {')).toThrow('The processing keys secret is not valid JSON');
});
