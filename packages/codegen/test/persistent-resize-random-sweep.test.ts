// Slow tier: 200 more random inner persistent, 100 outer and 50 inner-outer persistent fusions
// with slice / pad / cat (persistent-resize-random-cases.ts), from the base seed + 1000000 so
// they are not the fast tier's cases.
import { describe, it } from 'vitest';
import { tierCount } from '@tsfuser/test-support';
import { checkPersistentResizeCases } from './persistent-resize-random-cases.js';
import { baseSeed } from './shape-ops-simulation.js';

const seed = baseSeed() + 1_000_000;

describe('random persistent fusions with slice / pad / cat: a larger sweep', () => {
  // The fast test tier (testTier) runs the first few cases of each sweep.
  const inner = tierCount(200, 12);
  const outer = tierCount(100, 6);
  const innerOuter = tierCount(50, 4);
  it(`${inner} inner persistent cases from seed ${seed}`, () => checkPersistentResizeCases('inner', seed, inner), 300_000);
  it(`${outer} outer persistent cases from seed ${seed}`, () => checkPersistentResizeCases('outer', seed, outer), 300_000);
  it(`${innerOuter} inner-outer persistent cases from seed ${seed}`, () => checkPersistentResizeCases('inner-outer', seed, innerOuter), 300_000);
});
