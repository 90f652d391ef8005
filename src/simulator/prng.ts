/**
 * Seeded hashing and a small PRNG. Every simulated value is derived from hash(seed, identity of the
 * entity), never from shared generator state, so any response can be produced on its own, in any order,
 * and the same seed always yields the same bytes.
 */

/** MurmurHash3's 32-bit finalizer: spreads every input bit over the whole word. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units, seeded, then finalized. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ fmix32(seed)) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** Combines two 32-bit values into a new well-mixed one (cheap: used once per trial). */
export function mix(a: number, b: number): number {
  return fmix32((fmix32(a) + Math.imul(b >>> 0, 0x9e3779b1) + 0x7f4a7c15) >>> 0);
}

/** A uniform number in [0, 1) from a 32-bit hash. */
export function unit(hash: number): number {
  return (hash >>> 0) / 4294967296;
}

/** mulberry32: tiny, fast and good enough for synthetic data; state is one 32-bit word. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Number in [min, max) rounded to `decimals`. */
  float(min: number, max: number, decimals = 3): number {
    return round(min + this.next() * (max - min), decimals);
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Rng.pick needs a non-empty list');
    return item;
  }

  /** `count` distinct items in a random order (Fisher-Yates on a copy). */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      const a = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = a;
    }
    return copy.slice(0, n);
  }

  /** A 32-bit value for seeding a child generator. */
  word(): number {
    return Math.floor(this.next() * 4294967296) >>> 0;
  }
}

/** A generator seeded by the simulator seed and an entity path such as `project/0/assessment/3`. */
export function rngFor(seed: number, ...path: (string | number)[]): Rng {
  return new Rng(hashString(path.join('/'), seed));
}

export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
