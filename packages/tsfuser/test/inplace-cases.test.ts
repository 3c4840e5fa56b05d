// The GPU suite's in-place cases (gpu/inplace-cases.ts) without a GPU: each plans, on the GPU
// path's builder for its inputs' layouts, a segment of the scheduler kind it is meant to check,
// and on the reference backend follows nvFuser's semantics (the aliased input holds the new
// values, an aliased output or input that is returned is the caller's tensor, hidden aliases
// are not returned, other inputs are untouched).
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { testSeed } from '@tsfuser/test-support';
import { Tensor } from '../src/index.js';
import { compileForArguments, plannedInput } from '../src/dumps/compile-for-target.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';
import { INPLACE_CASES, hostClone, planSchedulers } from '../gpu/inplace-cases.js';

const seed = testSeed();
const SMALL = [37, 29] as const;

function storage(t: Tensor): number[] {
  const h = t.toHost();
  return new HostTensor(h.dtype, [h.data.length], [1], h.data).toNumbers();
}

describe(`in-place cases of the GPU suite (seed ${seed})`, () => {
  it('cover every kernel scheduler kind and expr_eval', () => {
    const kinds = new Set(INPLACE_CASES.map((c) => c.scheduler));
    expect([...kinds].sort()).toEqual(['expr_eval', 'greedy', 'inner_outer_persistent', 'inner_persistent', 'outer_persistent', 'pointwise', 'reduction', 'transpose']);
  });

  for (const c of INPLACE_CASES) {
    it(`${c.name}: plans a ${c.scheduler} segment`, () => {
      const [rows, cols] = c.dims;
      const fd = c.build(rows, cols);
      const plan = compileForArguments(fd.fusionIr(), c.inputs(seed, rows, cols).map(plannedInput), DEFAULT_TARGET).compiled;
      expect(planSchedulers(plan)).toContain(c.scheduler);
    });

    // Small sizes: the reference evaluator is the oracle here, the scheduler plays no part.
    it(`${c.name}: reference execute writes the aliased input and returns it where nvFuser does`, async () => {
      const fd = c.build(SMALL[0], SMALL[1]);
      const inputs = c.inputs(seed, SMALL[0], SMALL[1]);
      const before = inputs.map(hostClone);
      const expected = fd.referenceOutputs(inputs);
      // referenceOutputs wrote nothing.
      inputs.forEach((x, i) => expect(storage(x)).toEqual(storage(before[i] as Tensor)));
      const outs = await fd.execute(inputs, { backend: 'reference' });
      expect(outs.length).toBe(expected.length);
      outs.forEach((o, i) => expect(o.toArray()).toEqual((expected[i] as Tensor).toArray()));
      const written = new Set(fd.outputAliases().map((a) => a.input));
      inputs.forEach((x, i) => {
        if (written.has(i)) expect(storage(x), `input ${i} updated`).not.toEqual(storage(before[i] as Tensor));
        else expect(storage(x), `input ${i} untouched`).toEqual(storage(before[i] as Tensor));
      });
      // Every returned output that is an aliased input's buffer is the caller's tensor.
      const fusion = fd.fusionIr();
      const visible = fusion.outputs.filter((_, i) => !fd.outputAliases().some((a) => a.hidden && a.output === i));
      visible.forEach((v, i) => {
        const alias = fd.outputAliases().find((a) => fusion.outputs[a.output] === v || fusion.inputs[a.input] === v);
        if (alias !== undefined) expect(outs[i]).toBe(inputs[alias.input]);
      });
    });
  }
});
