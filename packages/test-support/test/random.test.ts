import { describe, expect, it } from 'vitest';
import { seededRandom, testSeed } from '../src/index.js';

describe('seededRandom', () => {
  it('replays the same sequence from the same seed and a different one from another seed', () => {
    const take = (seed: number): number[] => {
      const rand = seededRandom(seed);
      return Array.from({ length: 8 }, () => rand());
    };
    expect(take(12345)).toEqual(take(12345));
    expect(take(12345)).not.toEqual(take(12346));
  });

  it('is mulberry32: seed 1 starts with its published first value, and seeds wrap at 2^32', () => {
    // mulberry32(1)'s first output is 0.6270739405881613 (= 2693262067 / 2^32) in every implementation.
    expect(seededRandom(1)() * 4294967296).toBe(2693262067);
    expect(seededRandom(2 ** 32 + 1)()).toBe(seededRandom(1)());
  });

  it('stays in [0, 1) with a mean near 1/2', () => {
    const rand = seededRandom(7);
    let sum = 0;
    for (let i = 0; i < 10_000; i += 1) {
      const x = rand();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(Math.abs(sum / 10_000 - 0.5)).toBeLessThan(0.02);
  });
});

describe('testSeed', () => {
  it('takes TSFUSER_SEED when set, a fresh integer seed otherwise', () => {
    expect(testSeed({ TSFUSER_SEED: '42' })).toBe(42);
    const fresh = testSeed({});
    expect(Number.isInteger(fresh) && fresh >= 0 && fresh < 2 ** 31).toBe(true);
  });

  it('rejects a TSFUSER_SEED that is not a 32-bit unsigned integer, naming the value', () => {
    expect(() => testSeed({ TSFUSER_SEED: 'abc' })).toThrow('TSFUSER_SEED must be an integer in [0, 2^32), got "abc"');
    expect(() => testSeed({ TSFUSER_SEED: '-1' })).toThrow('got "-1"');
    expect(() => testSeed({ TSFUSER_SEED: '1.5' })).toThrow('got "1.5"');
  });
});
