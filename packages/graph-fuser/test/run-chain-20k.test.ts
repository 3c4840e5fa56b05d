// A 20,000-node chain as PyTorch's tracer prints it (aten::add / aten::mul alternating, every
// node also reading the second input y) fused into one group and run, fused and un-fused, on
// the reference evaluator: both must give the op-by-op float32 values. This is the shape that
// was quadratic (a value with 20,000 users: jit-ir's use list searched per destroyed node,
// fusion-ir's per registered expr, one one-node lowering per un-fused node); tsfuser's README
// records the times.

import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { parseIR } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, runGraph } from '../src/index.js';
import { seeded } from './helpers/seeded.js';
import { tracedChain } from './helpers/traced-chain.js';


describe('a 20,000-node add/mul chain', () => {
  it('fuses into one group whose result, and the un-fused graph run node by node, are the op-by-op float32 values', () => {
    const n = 20_000;
    const seed = 3720;
    const next = seeded(seed);
    const xs = Array.from({ length: 32 }, () => 0.5 + next());
    // y in [0.5, 0.9): v -> (v + y) * y stays bounded over any number of steps.
    const ys = Array.from({ length: 32 }, () => 0.5 + 0.4 * next());
    const f32 = (v: number): number => Math.fround(v);
    const expected = xs.map((x, k) => {
      const y = f32(ys[k] as number);
      let v = f32(x);
      for (let i = 0; i < n; i += 1) v = i % 2 === 0 ? f32(v + y) : f32(v * y);
      return v;
    });
    const inputs = (): HostTensor[] => [HostTensor.fromValues('Float', [4, 8], xs), HostTensor.fromValues('Float', [4, 8], ys)];

    const fused = parseIR(tracedChain(n));
    fuseGraph(fused);
    guardFusionGroups(fused);
    const started = performance.now();
    const result = runGraph(fused, inputs());
    const ms = performance.now() - started;
    expect(result.groups.map((g) => [g.taken, g.fallback])).toEqual([[1, 0]]);
    expect((result.outputs[0] as HostTensor).toNumbers(), `seed ${seed}, fused run ${ms.toFixed(0)} ms`).toEqual(expected);

    const plain = runGraph(parseIR(tracedChain(n)), inputs());
    expect(plain.groups).toEqual([]);
    expect((plain.outputs[0] as HostTensor).toNumbers(), `seed ${seed}, un-fused`).toEqual(expected);
  });
});
