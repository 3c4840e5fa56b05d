// An input with size-1 (broadcast) dims joined with a reduction's result after the reduction, in
// the reduction kernel (lower/loop-groups.ts feedingOnlyReductionSide): the input's cache feeds
// only tensors after the reduction, so its load sits in the result's loops (before, it had a
// loop of its own and the CUDA read it outside that loop: "identifier T6 is undefined"). Each
// case (reduction-broadcast-join-cases.ts) is one reduction kernel (one more segment where the
// input is also an output of its own), simulated against the reference evaluator (norm-wise),
// and the input's load is in no loop of the CUDA. Seeded (TSFUSER_SEED, printed in each label).
import { describe, expect, it } from 'vitest';
import { broadcastJoinCases } from './reduction-broadcast-join-cases.js';
import { baseSeed, segmentsWithInputs, simulateAndCheck } from './shape-ops-simulation.js';

/** Lines of `cuda` reading kernel parameter `param` inside a `for` loop. */
function loadsInLoops(cuda: string, param: string): string[] {
  const stack: boolean[] = [];
  const found: string[] = [];
  const read = new RegExp(`= ${param}\\[`);
  for (const line of cuda.split('\n')) {
    const t = line.trim();
    if (read.test(t) && stack.includes(true)) found.push(t);
    for (const ch of t) {
      if (ch === '{') stack.push(/^for\s*\(/.test(t));
      else if (ch === '}') stack.pop();
    }
  }
  return found;
}

describe('an input with broadcast dims joined with the reduction result', () => {
  it('every case is one reduction kernel, simulated like the evaluator, the input loaded in no loop of its own', () => {
    const base = baseSeed();
    for (const c of broadcastJoinCases(base)) {
      const label = `${c.label}, TSFUSER_SEED=${base}`;
      const segments = segmentsWithInputs(c.fusion, c.inputs);
      expect(segments.map((s) => s.type), label).toEqual(c.segments);
      const first = segments[0];
      if (first === undefined) throw new Error(`${label}: no segment`);
      const sim = simulateAndCheck(first.fusion, first.inputs, `${label}, reduction segment`);
      if (c.yOutsideLoops) expect(loadsInLoops(sim.compiled.dumps.cuda, 'T1'), label).toEqual([]);
      for (const s of segments.slice(1)) simulateAndCheck(s.fusion, s.inputs, `${label}, ${s.type} segment`);
    }
  }, 60_000);

  it('the loop finder sees a load inside a loop', () => {
    expect(loadsInLoops('  for (int i = 0; i < 4; ++i) {\n    if (i < 3) {\n      T6[0] = T1[i];\n    }\n  }\n  T7[0] = T1[0];', 'T1')).toEqual(['T6[0] = T1[i];']);
  });
});
