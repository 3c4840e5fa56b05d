// Random persistent-normalization-shaped fusions (beyond the named kinds): pointwise work before
// a reduction over the last dim (sum/max/min, keepdim), the result broadcast back and joined with
// the rows, optionally a second reduction of that, a row parameter, a per-row scale, and outputs
// picked among the rows before and after the reductions and the reduction results. Whenever the
// inner persistent scheduler accepts one, its kernel must lower and, simulated on the CPU, match
// the reference evaluator — acceptance must never promise a kernel codegen cannot build.
import { describe, expect, it } from 'vitest';
import {
  abs, add, broadcast, evaluate, exp, Fusion, HostTensor, makeTensor, max, min, mul, sub, sum,
  type TensorView,
} from '@tsfuser/fusion-ir';
import { InnerPersistentScheduler, makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { innerPersistentRegistry, seededRandom, testSeed } from '@tsfuser/test-support';

interface RandomCase {
  fusion: Fusion;
  sizes: number[][];
  description: string;
}

function randomCase(rand: () => number): RandomCase {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const f = new Fusion();
  const rows = 1 + Math.floor(rand() * 9);
  const row = pick([1, 3, 8, 17, 64, 100, 257]);
  const x = makeTensor(f, { shape: [-1, -1], dtype: pick(['Float', 'Half', 'BFloat16'] as const) });
  f.addInput(x);
  const sizes: number[][] = [[rows, row]];
  const steps: string[] = [];
  let t: TensorView = x.dtype === 'Float' ? x : (x as TensorView);
  if (rand() < 0.5) {
    const y = makeTensor(f, { shape: [-1, -1], dtype: x.dtype });
    f.addInput(y);
    sizes.push([rows, row]);
    t = add(t, y);
    steps.push('x+y');
  }
  if (rand() < 0.4) {
    t = abs(t);
    steps.push('abs');
  }
  const op = pick(['sum', 'max', 'min'] as const);
  const reduce = (v: TensorView): TensorView => (op === 'sum' ? sum(v, [1], true) : op === 'max' ? max(v, [1], true) : min(v, [1], true));
  const r1 = reduce(t);
  steps.push(`${op}`);
  let joined = sub(t, r1);
  if (rand() < 0.5) {
    const w = makeTensor(f, { shape: [-1], dtype: x.dtype });
    f.addInput(w);
    sizes.push([row]);
    joined = mul(joined, broadcast(w, [true, false]));
    steps.push('*w');
  }
  if (rand() < 0.3) {
    const s = makeTensor(f, { shape: [-1, 1], dtype: 'Float' });
    f.addInput(s);
    sizes.push([rows, 1]);
    joined = mul(joined, s);
    steps.push('*rowscale');
  }
  const outs: TensorView[] = [];
  if (rand() < 0.5) {
    const r2 = sum(exp(joined), [1], true);
    steps.push('sum(exp)');
    const normed = mul(joined, r2);
    outs.push(normed);
    if (rand() < 0.4) outs.push(r2);
  } else {
    outs.push(joined);
  }
  if (rand() < 0.3) outs.push(r1);
  if (rand() < 0.2) {
    outs.push(mul(t, 2));
    steps.push('pre-output');
  }
  for (const o of outs) f.addOutput(o);
  return { fusion: f, sizes, description: `${x.dtype} [${rows}, ${row}]: ${steps.join(' → ')}; ${outs.length} outputs` };
}

describe('random persistent fusions: accepted ⇒ lowered and correct', () => {
  it('200 random fusions', () => {
    const seed = testSeed();
    const rand = seededRandom(seed);
    const scheduler = new InnerPersistentScheduler();
    let accepted = 0;
    for (let i = 0; i < 200; i += 1) {
      const c = randomCase(rand);
      const info = makeRuntimeInfo(c.fusion, c.sizes.map((s) => ({ sizes: s })));
      if (!scheduler.canSchedule(c.fusion, info).ok) continue;
      accepted += 1;
      const where = `case ${i} (seed ${seed}): ${c.description}`;
      let compiled;
      try {
        compiled = compileFusion(c.fusion, info, { registry: innerPersistentRegistry() });
      } catch (error) {
        throw new Error(`${where}: accepted but did not compile: ${(error as Error).message}`);
      }
      const scheduled = scheduler.schedule(c.fusion.clone().fusion, compiled.params);
      const kernel = lowerFusion(scheduled, { kernelName: 'k', maxThreadsPerBlock: 1024 });
      const inputs = c.fusion.inputs.map((v, k) => {
        const sizes = c.sizes[k] as number[];
        return HostTensor.fromValues((v as TensorView).dtype, sizes, Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, () => (rand() - 0.5) * 2));
      });
      const want = evaluate(c.fusion, inputs) as HostTensor[];
      const outs = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
      const got = simulateKernel(kernel, compiled.launch, [...inputs, ...outs]).slice(inputs.length);
      want.forEach((w, o) => {
        const g = (got[o] as HostTensor).toNumbers();
        // Loose for Float: random compositions cancel (x − sum(x)) and amplify summation-order
        // differences; structural bugs give O(1) errors.
        const tol = w.dtype === 'BFloat16' ? 3e-2 : w.dtype === 'Half' ? 4e-3 : 3e-4;
        w.toNumbers().forEach((v, k) => {
          const y = g[k] as number;
          const ok = Number.isNaN(v) ? Number.isNaN(y) : !Number.isFinite(v) ? v === y : Math.abs(v - y) <= tol * Math.max(1, Math.abs(v));
          if (!ok) throw new Error(`${where}: output ${o} element ${k}: got ${y}, want ${v}`);
        });
      });
    }
    expect(accepted).toBeGreaterThan(50);
  });
});
