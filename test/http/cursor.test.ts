// The cursor codec: opaque to the client, and refused unless it is one a list gave out.
import { decodeCursor, encodeCursor, listBody } from '../../http/cursor';
import { FOREIGN_ID } from '../../http/validate';

const isForeignId = (value: string) => FOREIGN_ID.test(value);
const encodeRaw = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

test('a position reads back as it was written, through base64url only', () => {
  for (const position of [
    { at: 0, foreignId: 'a' },
    { at: 1_795_000_000_123, foreignId: 'order:1.2_3-4' },
    { at: 1_795_000_000_123, foreignId: 'x'.repeat(64) },
  ]) {
    const cursor = encodeCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, isForeignId)).toEqual(position);
  }
  expect(decodeCursor(encodeCursor({ at: 42 }))).toEqual({ at: 42 });
});

test.each([
  ['empty', ''],
  ['not base64url', 'a+b/c='],
  ['not JSON', Buffer.from('[1,').toString('base64url')],
  ['not a tuple', encodeRaw({ at: 1, foreignId: 'a' })],
  ['a time that is not a whole number', encodeRaw([1.5, 'a'])],
  ['a negative time', encodeRaw([-1, 'a'])],
  ['a time past any date', encodeRaw([9e15, 'a'])],
  ['a time as text', encodeRaw(['1', 'a'])],
  ['a foreign_id no record can have', encodeRaw([1, '../x'])],
  ['a foreign_id that is not text', encodeRaw([1, 7])],
  ['no foreign_id in a list of records', encodeRaw([1])],
  ['too long', 'A'.repeat(301)],
])('%s is refused', (_, cursor) => {
  expect(decodeCursor(cursor, isForeignId)).toBeUndefined();
});

test("a record list's cursor is refused by a list without foreign_ids, and the other way round", () => {
  expect(decodeCursor(encodeCursor({ at: 1, foreignId: 'a' }))).toBeUndefined();
  expect(decodeCursor(encodeCursor({ at: 1 }), isForeignId)).toBeUndefined();
});

test('a list answers its page as data and the next cursor, null after the last page', () => {
  const double = (n: number) => n * 2;
  expect(listBody([1, 2], double, null)).toEqual({ data: [2, 4], next_cursor: null });
  expect(listBody([1], double, { at: 5 })).toEqual({ data: [2], next_cursor: encodeCursor({ at: 5 }) });
});
