// Random fusions mixing shape ops with pointwise and reduction work (shape-ops-random.ts):
// segmented with the default registry as the executor does, every kernel segment simulated and
// every expr_eval segment's views checked against the reference evaluator. Seeded
// (TSFUSER_SEED, printed on failure). A fusion that no segmentation can schedule is a refusal,
// not a wrong answer: refusals are printed and must be none (the one known class — an output
// with an expanded broadcast dim computed from expanded intermediates another segment produced —
// is fixed: such intermediates reach the segment as expanded broadcasts, scheduler
// `buildGroupFusion`); any mismatch fails.
import { describe, expect, it } from 'vitest';
import { randomShapeOpsCase } from '@tsfuser/test-support';
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
        if (/^no scheduler accepts /.test(message)) {
          refusals.push(`${label}: ${message.slice(0, 300)}`);
          continue;
        }
        throw new Error(`${label}: ${message.slice(0, 600)}`);
      }
    }
    if (refusals.length > 0) console.log(`refused (not wrong):\n${refusals.join('\n')}`);
    expect(refusals.length, refusals.join('\n')).toBe(0);
    expect(kinds.has('pointwise')).toBe(true);
  }, 60_000);

  it('an expanded intermediate from another segment kept expanded in the output (seed 208449525, refused before)', () => {
    const c = randomShapeOpsCase(208449525);
    const segments = segmentsWithInputs(c.fusion, c.inputs);
    expect(segments.map((s) => s.type).join('+')).toBe('pointwise+reduction+pointwise+expr_eval');
    for (const s of segments) {
      if (s.type === 'expr_eval') checkViews(s.fusion, s.inputs, 'seed 208449525');
      else simulateAndCheck(s.fusion, s.inputs, 'seed 208449525');
    }
  });
});
