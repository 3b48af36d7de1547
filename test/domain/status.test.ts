import { isInvoiceStatus, movesForward } from '../../domain/status';

test("only the service's invoice statuses are statuses: inherited names from a signed callback are not", () => {
  for (const status of ['created', 'pending', 'processing', 'confirmed', 'failed']) {
    expect(isInvoiceStatus(status)).toBe(true);
  }
  for (const value of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'paid', '', 7, null]) {
    expect(isInvoiceStatus(value)).toBe(false);
  }
});

test('status only moves forward, and final states are final', () => {
  expect(movesForward(null, 'created')).toBe(true);
  expect(movesForward('pending', 'processing')).toBe(true);
  expect(movesForward('processing', 'pending')).toBe(false);
  expect(movesForward('pending', 'failed')).toBe(true);
  expect(movesForward('confirmed', 'failed')).toBe(false);
});
