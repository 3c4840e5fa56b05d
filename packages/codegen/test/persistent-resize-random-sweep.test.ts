// Slow tier: 200 more random inner persistent, 100 outer and 50 inner-outer persistent fusions
// with slice / pad / cat (persistent-resize-random-cases.ts), from the base seed + 1000000 so
// they are not the fast tier's cases.
import { describe, it } from 'vitest';
import { checkPersistentResizeCases } from './persistent-resize-random-cases.js';
import { baseSeed } from './shape-ops-simulation.js';

const seed = baseSeed() + 1_000_000;

describe('random persistent fusions with slice / pad / cat: a larger sweep', () => {
  it(`200 inner persistent cases from seed ${seed}`, () => checkPersistentResizeCases('inner', seed, 200), 300_000);
  it(`100 outer persistent cases from seed ${seed}`, () => checkPersistentResizeCases('outer', seed, 100), 300_000);
  it(`50 inner-outer persistent cases from seed ${seed}`, () => checkPersistentResizeCases('inner-outer', seed, 50), 300_000);
});
