// The test tiers' sizes. Every test file runs in the default (fast) tier; a file that is heavy at
// full size — a simulator campaign, nvcc over every kernel, thousands of fuzz cases — also runs in
// the slow tier, and asks `testTier()` how much to do: in the fast tier a small, deterministic part
// of its cases (every kind of test still runs), in the slow tier all of them. The tier comes from
// TSFUSER_TEST_TIER, which vitest.shared.mjs sets per vitest project; code run without it (a
// script, a GPU suite) runs whole.
//
// Invariant: the fast tier's cases are a subset of the slow tier's, chosen without randomness, so a
// fast-tier failure always reproduces in the slow tier.

export type TestTier = 'fast' | 'slow';

/** The tier this test process runs in (TSFUSER_TEST_TIER: 'fast' or 'slow'; default 'slow'). */
export function testTier(env: Record<string, string | undefined> = process.env): TestTier {
  const text = env.TSFUSER_TEST_TIER;
  if (text === undefined || text === '' || text === 'slow') return 'slow';
  if (text === 'fast') return 'fast';
  throw new Error(`TSFUSER_TEST_TIER must be 'fast' or 'slow', got "${text}"`);
}

/** True in the fast tier. */
export function isFastTier(env: Record<string, string | undefined> = process.env): boolean {
  return testTier(env) === 'fast';
}

/** `full` in the slow tier, `fast` (at most `full`) in the fast tier: a count of random cases, a budget. */
export function tierCount(full: number, fast: number, env: Record<string, string | undefined> = process.env): number {
  return isFastTier(env) ? Math.min(fast, full) : full;
}

/**
 * All of `cases` in the slow tier; in the fast tier `count` of them spread evenly from the first to
 * the last (so both ends of a list ordered by size or kind are kept).
 */
export function tierCases<T>(cases: readonly T[], count: number, env: Record<string, string | undefined> = process.env): T[] {
  if (!isFastTier(env) || cases.length <= count) return [...cases];
  if (count <= 0) return [];
  if (count === 1) return [cases[0] as T];
  const picked: T[] = [];
  for (let i = 0; i < count; i += 1) picked.push(cases[Math.round((i * (cases.length - 1)) / (count - 1))] as T);
  return picked;
}
