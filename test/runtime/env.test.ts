import { numberEnv, requireEnv } from '../../runtime/env';

const NAME = 'ENV_TEST_SETTING';
afterEach(() => delete process.env[NAME]);

describe('requireEnv', () => {
  test('the value when it is set', () => {
    process.env[NAME] = 'payments-table';
    expect(requireEnv(NAME)).toBe('payments-table');
  });

  test.each([
    ['unset', undefined],
    ['empty', ''],
  ])('%s: a message naming the variable', (_what, value) => {
    if (value !== undefined) process.env[NAME] = value;
    expect(() => requireEnv(NAME)).toThrow(`Missing required environment variable ${NAME}`);
  });
});

describe('numberEnv', () => {
  test.each([
    [undefined, 30],
    ['', 30],
    ['0', 0],
    ['2.5', 2.5],
    ['45000', 45_000],
  ])('%p gives %p', (value, expected) => {
    if (value !== undefined) process.env[NAME] = value;
    expect(numberEnv(NAME, 30)).toBe(expected);
  });

  test.each(['-1', 'ten', '1e400', 'NaN', '5 s'])(
    '%p stops the function with a message naming it',
    (value) => {
      process.env[NAME] = value;
      expect(() => numberEnv(NAME, 30)).toThrow(`Environment variable ${NAME} must be a non-negative number`);
    },
  );
});
