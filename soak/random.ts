/** FNV-1a over the parts: a seed for a decision that depends only on what it is about, never on timing. */
export function hashSeed(...parts: Array<string | number>): number {
  let hash = 0x811c9dc5;
  for (const char of parts.join('\u0000')) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A small seeded generator (mulberry32): the same seed gives the same decisions. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A generator of its own for one subject (an order, a callback): its decisions do not shift with the others'. */
  static for(seed: number, ...subject: Array<string | number>): Rng {
    return new Rng(hashSeed(seed, ...subject));
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chance(rate: number): boolean {
    return this.next() < rate;
  }

  /** An integer from `low` to `high`, both included. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** One of the keys, each as likely as its weight. */
  weighted<K extends string>(weights: Record<K, number>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    let point = this.next() * entries.reduce((total, [, weight]) => total + weight, 0);
    for (const [key, weight] of entries) {
      point -= weight;
      if (point < 0) return key;
    }
    return entries[entries.length - 1][0];
  }
}
