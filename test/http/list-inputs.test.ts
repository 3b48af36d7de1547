// List query parameters: defaults, bounds, strict UTC times and cursors, each refusal naming its field.
import { encodeCursor } from '../../http/cursor';
import { InvalidRequestError } from '../../http/errors';
import { historyInput, invoiceListInput, refundListInput } from '../../http/list-inputs';
import type { ApiRequest } from '../../http/route';

const withQuery = (query: Record<string, string>) => ({ query }) as unknown as ApiRequest;

/** The fields a list's parser refuses in this query string. */
function refusedFields(read: (request: ApiRequest) => unknown, query: Record<string, string>): string[] {
  try {
    read(withQuery(query));
  } catch (error) {
    if (error instanceof InvalidRequestError) return Object.keys(error.fields ?? {});
    throw error;
  }
  return [];
}

const T = '2026-11-23T07:52:25.679Z';
const T_MS = Date.parse(T);

test('defaults: the newest 20, any status, any time', () => {
  expect(invoiceListInput(withQuery({}))).toEqual({ query: { limit: 20 }, status: undefined });
  expect(refundListInput(withQuery({}))).toEqual({ limit: 20 });
  expect(historyInput(withQuery({}))).toEqual({ since: 0, limit: 20 });
});

test('created_after and created_before are both strict; a cursor continues after its record', () => {
  const cursor = encodeCursor({ at: T_MS, foreignId: 'order-7' });
  expect(
    refundListInput(
      withQuery({ created_after: '2026-11-23T07:52:25Z', created_before: T, limit: '100', cursor }),
    ),
  ).toEqual({
    limit: 100,
    createdFrom: Date.parse('2026-11-23T07:52:25Z') + 1,
    createdBefore: T_MS,
    after: { createdAt: T_MS, foreignId: 'order-7' },
  });
  expect(invoiceListInput(withQuery({ status: 'paid' })).status).toBe('paid');
});

test('the history cursor continues after its snapshot, and since still bounds it', () => {
  const cursor = encodeCursor({ at: T_MS });
  expect(historyInput(withQuery({ cursor }))).toEqual({ since: T_MS + 1, limit: 20 });
  expect(historyInput(withQuery({ cursor, since: '2027-01-01T00:00:00.000Z' })).since).toBe(
    Date.parse('2027-01-01T00:00:00.000Z'),
  );
});

test.each([
  [{ limit: '0' }, ['limit']],
  [{ limit: '101' }, ['limit']],
  [{ limit: 'ten' }, ['limit']],
  [{ created_after: '2026-11-23' }, ['created_after']],
  [{ created_after: '2026-11-23T07:52:25+01:00' }, ['created_after']],
  [{ created_before: '2026-02-30T00:00:00Z' }, ['created_before']],
  [{ created_before: '1795000000000' }, ['created_before']],
  [{ created_after: T, created_before: T }, ['created_before']],
  [{ cursor: 'not-a-cursor' }, ['cursor']],
  [{ cursor: encodeCursor({ at: 1 }) }, ['cursor']],
  [{ status: 'payed' }, ['status']],
  [{ starting_after: 'order-1' }, ['starting_after']],
  [{ limit: '0', cursor: '%%' }, ['limit', 'cursor']],
])('GET /invoices refuses %j, naming %j', (query, fields) => {
  expect(refusedFields(invoiceListInput, query).sort()).toEqual([...fields].sort());
});

test('GET /refunds has no status filter; history refuses a record cursor and a non-UTC since', () => {
  expect(refusedFields(refundListInput, { status: 'confirmed' })).toEqual(['status']);
  expect(refusedFields(historyInput, { cursor: encodeCursor({ at: 1, foreignId: 'a' }) })).toEqual([
    'cursor',
  ]);
  expect(refusedFields(historyInput, { since: 'yesterday' })).toEqual(['since']);
  expect(refusedFields(historyInput, { limit: '1000' })).toEqual(['limit']);
});
