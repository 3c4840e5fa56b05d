// Reshapes AFTER a reduction, in the reduction kernel (scheduler reduction/
// reshape-after-reduction.ts, views-after-reduction.ts): random cases (test-support
// reduction-reshape-random.ts) are drawn until 30 have a reshape after the reduction (a reshape
// that only adds or removes size-1 dims is a broadcast / squeeze, no reshape); each of those is
// asserted to be ONE reduction segment and simulated against the reference evaluator
// (norm-wise for the reductions). Seeded (TSFUSER_SEED, printed on failure).
import { describe, expect, it } from 'vitest';
import type { Fusion } from '@tsfuser/fusion-ir';
import { randomReductionReshapeCase } from '@tsfuser/test-support';
import { baseSeed, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

/** Whether a reshape (ViewOp) reads, directly or not, a reduction's result. */
export function hasReshapeAfterReduction(fusion: Fusion): boolean {
  const reached = new Set<unknown>();
  for (const e of fusion.exprs()) {
    const past = e.inputs.some((v) => reached.has(v));
    if (e.kind === 'ViewOp' && past) return true;
    if (past || e.kind === 'ReductionOp' || e.kind === 'WelfordOp') for (const o of e.outputs) reached.add(o);
  }
  return false;
}

describe('a reshape after a reduction, in the reduction kernel', () => {
  it('random cases: 30 with a reshape after the reduction, one reduction kernel each, simulated like the evaluator', () => {
    const base = baseSeed();
    let taken = 0;
    for (let it = 0; taken < 30; it += 1) {
      if (it > 300) throw new Error(`TSFUSER_SEED=${base}: only ${taken} of 300 random cases had a reshape after the reduction`);
      const c = randomReductionReshapeCase(base + it);
      if (!hasReshapeAfterReduction(c.fusion)) continue;
      taken += 1;
      const label = `seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      const segments = segmentsWithInputs(c.fusion, c.inputs);
      expect(segments.map((s) => s.type), label).toEqual(['reduction']);
      try {
        simulateAndCheck(c.fusion, c.inputs, label);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message.slice(0, 600)}`);
      }
    }
  }, 60_000);
});
