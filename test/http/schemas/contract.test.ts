// The harness's check of every answer (test/support/contract.ts) refuses what openapi.json does not describe.
import { expectDocumented } from '../../support/contract';

const URL = 'http://127.0.0.1:1/invoices/order-1';
const error = { error: { code: 'not_found', message: 'Invoice not found' } };

test('a documented status with a body of its schema passes', () => {
  expect(() => expectDocumented('GET', URL, 404, error)).not.toThrow();
});

test('a status the operation does not document is refused', () => {
  expect(() => expectDocumented('GET', URL, 418, error)).toThrow(
    /418, a status openapi.json does not document/,
  );
});

test('a body its schema does not describe is refused, naming what differs', () => {
  expect(() => expectDocumented('GET', URL, 404, { error: { code: 'x' } })).toThrow(
    /must have required property 'message'/,
  );
  expect(() => expectDocumented('GET', URL, 404, { ...error, extra: 1 })).toThrow(/additional properties/);
});

test("a path of no route may only be API Gateway's own 404", () => {
  expect(() =>
    expectDocumented('GET', 'http://127.0.0.1:1/nope', 404, { message: 'Not Found' }),
  ).not.toThrow();
  expect(() => expectDocumented('GET', 'http://127.0.0.1:1/nope', 200, {})).toThrow(/no such path/);
});
