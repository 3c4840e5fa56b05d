import { describe, expect, it } from 'vitest';
import { isFastTier, testTier, tierCases, tierCount } from '../src/test-tier.js';

const fast = { TSFUSER_TEST_TIER: 'fast' };
const slow = { TSFUSER_TEST_TIER: 'slow' };

describe('test tiers', () => {
  it('reads the tier from TSFUSER_TEST_TIER, whole (slow) when unset, and refuses anything else', () => {
    expect(testTier({})).toBe('slow');
    expect(testTier(slow)).toBe('slow');
    expect(testTier(fast)).toBe('fast');
    expect(isFastTier(fast)).toBe(true);
    expect(() => testTier({ TSFUSER_TEST_TIER: 'quick' })).toThrow(/TSFUSER_TEST_TIER must be 'fast' or 'slow', got "quick"/);
  });

  it('counts: the full count in the slow tier, the smaller one in the fast tier', () => {
    expect(tierCount(300, 20, slow)).toBe(300);
    expect(tierCount(300, 20, fast)).toBe(20);
    expect(tierCount(5, 20, fast)).toBe(5);
  });

  it('cases: all in the slow tier; in the fast tier an even spread that keeps the first and the last', () => {
    const cases = Array.from({ length: 10 }, (_, i) => i);
    expect(tierCases(cases, 3, slow)).toEqual(cases);
    expect(tierCases(cases, 3, fast)).toEqual([0, 5, 9]);
    expect(tierCases(cases, 1, fast)).toEqual([0]);
    expect(tierCases(cases, 20, fast)).toEqual(cases);
    expect(new Set(tierCases(cases, 4, fast)).size).toBe(4);
  });
});
