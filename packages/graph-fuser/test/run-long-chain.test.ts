// A long TorchScript chain fused into one group and run on the reference evaluator, which now
// drops each intermediate after its last reader (fusion-ir evaluate's releasePlan): the values
// must be those of the op-by-op computation, including a value read early and again at the end
// (x's relu feeds the first op and the last add) and an intermediate that is also an output.

import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { parseIR } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, runGraph } from '../src/index.js';
import { seeded } from './helpers/seeded.js';

const T = 'Float(4, 8, strides=[8, 1], requires_grad=0, device=cuda:0)';
const OPS = ['aten::sigmoid', 'aten::neg', 'aten::abs', 'aten::relu'] as const;
const STEP: Record<(typeof OPS)[number], (x: number) => number> = {
  'aten::sigmoid': (x) => 1 / (1 + Math.exp(-x)),
  'aten::neg': (x) => -x,
  'aten::abs': (x) => Math.abs(x),
  'aten::relu': (x) => Math.max(x, 0),
};

function chain(n: number): string {
  const lines = [`graph(%x : ${T}):`, `  %r : ${T} = aten::relu(%x)`];
  let prev = '%r';
  for (let i = 0; i < n; i += 1) {
    lines.push(`  %v${i} : ${T} = ${OPS[i % OPS.length]}(${prev})`);
    prev = `%v${i}`;
  }
  lines.push(`  %one : int = prim::Constant[value=1]()`, `  %y : ${T} = aten::add(${prev}, %r, %one)`, `  return (%y, %v${Math.floor(n / 2)})`);
  return `${lines.join('\n')}\n`;
}

describe('a 2,000-op chain in one fusion group', () => {
  it('gives the op-by-op values (float32 rounding per op), with a value read at both ends and a mid-chain output', () => {
    const n = 2000;
    const seed = 4242;
    const next = seeded(seed);
    const values = Array.from({ length: 32 }, () => next() * 4 - 2);
    const graph = parseIR(chain(n));
    fuseGraph(graph);
    guardFusionGroups(graph);
    const started = performance.now();
    const result = runGraph(graph, [HostTensor.fromValues('Float', [4, 8], values)]);
    const ms = performance.now() - started;
    expect(result.groups.map((g) => [g.taken, g.fallback])).toEqual([[1, 0]]);
    const f32 = (x: number): number => Math.fround(x);
    const expectedMid: number[] = [];
    const expected = values.map((x0) => {
      const r = f32(Math.max(f32(x0), 0));
      let v = r;
      for (let i = 0; i < n; i += 1) {
        v = f32(STEP[OPS[i % OPS.length] as (typeof OPS)[number]](v));
        if (i === n / 2) expectedMid.push(v);
      }
      return f32(v + r);
    });
    const [y, mid] = result.outputs as [HostTensor, HostTensor];
    expect(y.toNumbers(), `seed ${seed}, ${ms.toFixed(0)} ms`).toEqual(expected);
    expect(mid.toNumbers(), `seed ${seed}`).toEqual(expectedMid);
  });
});
