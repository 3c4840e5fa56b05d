// Random persistent (normalization) fusions with slice / pad / cat (test-support
// persistent-resize-random.ts), simulated against the reference evaluator (norm-wise for the
// reductions; seed printed; the base seed from TSFUSER_SEED): inner persistent ones (resizes on
// the input side of the row, of the normalized row coming back into it, windows of it as
// outputs), each ONE inner_persistent kernel — the resize fused into it, no pointwise segment
// writing an intermediate — every other one also under forced parameters (several persistent
// batches, two rows per block); half as many outer persistent (batch_norm-like) ones, each ONE
// outer_persistent kernel, every other one again under forced batches; a quarter as many
// inner-outer persistent (layer_norm backward-like) ones, each ONE inner_outer_persistent
// kernel (persistent-resize-random-cases.ts). PERSISTENT_RESIZE_RANDOM_COUNT sets how many inner
// ones (default 40); persistent-resize-random-sweep.test.ts (slow tier) runs 200 more.
import { describe, it } from 'vitest';
import { checkPersistentResizeCases } from './persistent-resize-random-cases.js';
import { baseSeed } from './shape-ops-simulation.js';

const seed = baseSeed();
const count = Number(process.env.PERSISTENT_RESIZE_RANDOM_COUNT ?? 40);

describe('random persistent fusions with slice / pad / cat', () => {
  it(`${count} inner persistent cases from seed ${seed}`, () => checkPersistentResizeCases('inner', seed, count), 120_000);
  it(`${Math.ceil(count / 2)} outer persistent cases from seed ${seed}`, () => checkPersistentResizeCases('outer', seed, Math.ceil(count / 2)), 120_000);
  it(`${Math.ceil(count / 4)} inner-outer persistent cases from seed ${seed}`, () => checkPersistentResizeCases('inner-outer', seed, Math.ceil(count / 4)), 120_000);
});
