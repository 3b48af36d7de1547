// The merge of the created index's shards, and its sort keys.
import { mergeNewest, positionKey, positionOf } from '../../store/created-index';

const key = (createdAt: number, foreignId: string) => positionKey({ createdAt, foreignId });

test('sort keys order by time, then foreign_id, and read back', () => {
  expect(key(999, 'z') < key(1_000, 'a')).toBe(true);
  expect(key(1_000, 'a') < key(1_000, 'b')).toBe(true);
  expect(positionOf(key(1_795_000_000_123, 'order#1:x'))).toEqual({
    createdAt: 1_795_000_000_123,
    foreignId: 'order#1:x',
  });
});

test('shards merge newest first, ties by foreign_id descending, cut at the limit', () => {
  const shards = [[key(5, 'b'), key(2, 'a')], [key(5, 'c'), key(4, 'a'), key(1, 'z')], [], [key(5, 'a')]];
  expect(mergeNewest(shards, 10)).toEqual({
    keys: [key(5, 'c'), key(5, 'b'), key(5, 'a'), key(4, 'a'), key(2, 'a'), key(1, 'z')],
    more: false,
  });
  expect(mergeNewest(shards, 3)).toEqual({ keys: [key(5, 'c'), key(5, 'b'), key(5, 'a')], more: true });
  expect(mergeNewest(shards, 6).more).toBe(false);
});

test('the key a page continues after is left out, and does not count towards `more`', () => {
  const shards = [[key(5, 'b'), key(3, 'a')], [key(4, 'a')]];
  expect(mergeNewest(shards, 2, key(5, 'b'))).toEqual({ keys: [key(4, 'a'), key(3, 'a')], more: false });
  expect(mergeNewest(shards, 1, key(5, 'b'))).toEqual({ keys: [key(4, 'a')], more: true });
});
