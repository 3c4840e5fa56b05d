// The one seeded generator for tests and GPU suites: mulberry32, so a failing random case can be
// rebuilt from its seed, and `testSeed`, which takes the seed from TSFUSER_SEED when set.
//
// Invariant: the same seed gives the same sequence on every machine and Node version (32-bit
// integer arithmetic only), so a seed printed by a failure replays that failure.

/** mulberry32: uniform numbers in [0, 1) from a 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The seed of a random test: TSFUSER_SEED when set (to replay a failure), else a fresh one. Print
 * it in every failure message (`seed ${seed}`) so the failure can be replayed.
 */
export function testSeed(env: Record<string, string | undefined> = process.env): number {
  const text = env.TSFUSER_SEED;
  if (text === undefined || text === '') return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`TSFUSER_SEED must be an integer in [0, 2^32), got "${text}"`);
  }
  return seed;
}
