// Random fusions mixing shape ops with pointwise and reduction work (shape-ops-random.ts):
// segmented with the default registry as the executor does, every kernel segment simulated and
// every expr_eval segment's views checked against the reference evaluator. Seeded
// (TSFUSER_SEED, printed on failure). A fusion that no segmentation can schedule, or whose kernel
// lowering refuses, is a refusal, not a wrong answer: refusals are printed and at most 2 of 40
// may occur (no class is known now: the expanded-intermediate, iota-through-reshape and
// 0-dim-full-in-a-persistent-kernel classes of earlier sessions are fixed, each with a case
// below); any mismatch fails.
import { describe, expect, it } from 'vitest';
import { randomShapeOpsCase } from '@tsfuser/test-support';
import { LoweringError } from '../src/index.js';
import { baseSeed, checkViews, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

describe('random shape-op fusions', () => {
  it('simulate like the reference evaluator, segment by segment', () => {
    const base = baseSeed();
    const kinds = new Set<string>();
    const refusals: string[] = [];
    for (let it = 0; it < 40; it += 1) {
      const c = randomShapeOpsCase(base + it);
      const label = `seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}; ${c.description})`;
      try {
        for (const s of segmentsWithInputs(c.fusion, c.inputs)) {
          kinds.add(s.type);
          if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, label);
          else if (s.type !== 'no_op') simulateAndCheck(s.fusion, s.inputs, label);
        }
      } catch (e) {
        const message = (e as Error).message;
        // Refusals, not wrong answers: segmentation finds no scheduler, or lowering refuses the
        // kernel (on the GPU path a LoweringError under backend 'auto' runs the reference).
        if (/^no scheduler accepts /.test(message) || e instanceof LoweringError) {
          refusals.push(`${label}: ${message.slice(0, 300)}`);
          continue;
        }
        throw new Error(`${label}: ${message.slice(0, 600)}`);
      }
    }
    if (refusals.length > 0) console.log(`refused (not wrong):\n${refusals.join('\n')}`);
    // No refusal class is known any more (scheduler README, Known gaps: an iota reaching a
    // reduction through a reshape, seed 20682, is a segment boundary; a 0-dim full beside a row
    // sum in one persistent kernel, seed 5868, lowers); the allowance stays for classes not found yet,
    // which the log names.
    expect(refusals.length, refusals.join('\n')).toBeLessThanOrEqual(2);
    expect(kinds.has('pointwise')).toBe(true);
  }, 60_000);

  it('an iota reaching a row sum through a reshape gets a pointwise kernel before the reduction (seeds 20682, 20361396; lowering refused the one-kernel form)', () => {
    // Seed 20682 has pointwise work after the row sum; in seed 20361396 the row sum's expand is
    // the reduction kernel's own output, expanded (stride 0, as nvFuser allocates an expanded
    // output), so no kernel follows the reduction.
    for (const [seed, expected] of [[20682, 'pointwise+reduction+pointwise'], [20361396, 'pointwise+reduction']] as const) {
      const c = randomShapeOpsCase(seed);
      const segments = segmentsWithInputs(c.fusion, c.inputs);
      expect(segments.map((s) => s.type).join('+'), `seed ${seed}`).toBe(expected);
      if (seed === 20361396) {
        const outputs = segments[1]?.fusion.outputs ?? [];
        expect(outputs.some((o) => o.kind === 'tensorView' && o.domain.logical.some((d) => d.expandedExtent !== null)), `seed ${seed}: an expanded output`).toBe(true);
      }
      for (const s of segments) simulateAndCheck(s.fusion, s.inputs, `seed ${seed}`);
    }
  });

  it('a row sum expanded over an empty dim writes its base inside the allocation (seed 1239807310: Half [30, 0]; out of bounds before)', () => {
    const c = randomShapeOpsCase(1239807310);
    const segments = segmentsWithInputs(c.fusion, c.inputs);
    expect(segments.map((s) => s.type).join('+')).toBe('reduction');
    // The output [30, 0] is the row sums [30, 1] expanded over i1 = 0: no elements, but the
    // kernel writes the 30 row values, which its allocation (stride 0, device allocationSpan) holds.
    for (const s of segments) simulateAndCheck(s.fusion, s.inputs, 'seed 1239807310');
  });

  it('a 0-dim full broadcast into the tensors after a row sum lowers in one inner persistent kernel (seed 5868; a loop-nest cycle before)', () => {
    const c = randomShapeOpsCase(5868);
    const segments = segmentsWithInputs(c.fusion, c.inputs);
    expect(segments.map((s) => s.type)).toEqual(['inner_persistent']);
    for (const s of segments) simulateAndCheck(s.fusion, s.inputs, 'seed 5868');
  });

  it('an expanded intermediate from another segment kept expanded in the output (seed 208449525, refused before)', () => {
    const c = randomShapeOpsCase(208449525);
    const segments = segmentsWithInputs(c.fusion, c.inputs);
    // The pointwise producer of the reduction is computed in its kernel (pre-reduction output, as nvFuser).
    expect(segments.map((s) => s.type).join('+')).toBe('reduction+pointwise+expr_eval');
    for (const s of segments) {
      if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, 'seed 208449525');
      else simulateAndCheck(s.fusion, s.inputs, 'seed 208449525');
    }
  });
});
