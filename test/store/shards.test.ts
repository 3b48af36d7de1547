// The shard a key's index entries go to: stable, in range, and even over the ids a shop gives.
import { shardOf } from '../../store/table';

test('a key has the same shard in every process and version, within range', () => {
  // Pinned: a change moves entries between shards (harmless, as every reader queries them all, but not silent).
  expect(['order-1', 'order-3', 'order-6', 'order-8'].map((key) => shardOf(key, 4))).toEqual([0, 2, 3, 1]);
  for (let i = 0; i < 1_000; i++) expect(shardOf(`o${i}`, 4)).toBeLessThan(4);
});

test('sequential ids spread evenly over the shards', () => {
  const seen = [0, 0, 0, 0];
  for (let i = 0; i < 8_000; i++) seen[shardOf(`order-${i}`, 4)] += 1;
  for (const count of seen) expect(count).toBeGreaterThan(1_800);
});

test('ids that differ only in the high bits of a character do not share a shard for it', () => {
  // These letters have the same two low bits: a hash whose low bits see only those would give all one shard.
  const shards = new Set([...'aeimqu'].map((letter) => shardOf(`order-${letter}`, 4)));
  expect(shards.size).toBeGreaterThan(1);
});
