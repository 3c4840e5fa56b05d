// Random fusions with inner and outer reductions (1–2 [N, H] inputs in Float/Half/BFloat16, an
// optional row parameter, random add/mul/sub, an inner sum or max broadcast back, then 1–2 outer
// sum/max reductions of random tensors, optional extra outputs, casts back): segmented with the
// default registry like the runtime does; every one-segment inner_outer_persistent fusion is
// lowered and simulated against the reference evaluator. Seeded (TSFUSER_SEED, printed on
// failure); dead intermediates are left in the definitions on purpose.
import { describe, it, expect } from 'vitest';
import { add, broadcast, cast, evaluate, exp, Fusion, HostTensor, makeTensor, max, mul, sub, sum, type TensorView, type DataType } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion } from '../src/index.js';
import { seededRandom, testSeed, tierCount } from '@tsfuser/test-support';
import { simulateKernel } from './kernel-simulator.js';

describe('inner-outer persistent: random fusions', () => {
it('one-segment inner_outer_persistent fusions simulate like the evaluator', () => {
  const base = testSeed();
  let picked = 0;
  // The fast test tier (testTier) stops after the first 4 fusions the scheduler takes.
  const enough = tierCount(Number.POSITIVE_INFINITY, 4);
  for (let it = 0; it < 120 && picked < enough; it += 1) {
    const r = seededRandom(base + it);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
    const dtype: DataType = pick(['Float', 'Half', 'BFloat16'] as const);
    const f0 = new Fusion();
    const nIn = 1 + Math.floor(r() * 2);
    const ins: TensorView[] = [];
    for (let i = 0; i < nIn; i += 1) { const t = makeTensor(f0, { shape: [-1, -1], dtype }); f0.addInput(t); ins.push(t); }
    const pool: TensorView[] = ins.map((t) => (dtype === 'Float' ? t : cast(t, 'Float')));
    if (r() < 0.5) { const w = makeTensor(f0, { shape: [-1], dtype }); f0.addInput(w); pool.push(broadcast(dtype === 'Float' ? w : cast(w, 'Float'), [true, false])); }
    const ops = 1 + Math.floor(r() * 3);
    for (let k = 0; k < ops; k += 1) { const a = pick(pool); let b = pick(pool); if (process.env.NOSAME !== undefined && b === a) b = pool[0] === a ? (pool[1] ?? a) : (pool[0] as TensorView); pool.push(pick([add, mul, sub])(a, b)); }
    const red = pick(pool);
    const inner = broadcast(pick([sum, max])(red, [1]), [false, true]);
    const after = pick([add, mul, sub])(pick(pool), inner);
    pool.push(r() < 0.3 ? exp(after) : after);
    const outs: TensorView[] = [pool[pool.length - 1] as TensorView];
    const nOuter = 1 + Math.floor(r() * 2);
    for (let k = 0; k < nOuter; k += 1) outs.push(pick([sum, sum, max])(pick(pool), [0]));
    if (r() < 0.3) outs.push(pick(pool));
    for (const o of outs) f0.addOutput(dtype === 'Float' || r() < 0.3 ? o : cast(o, dtype));
    const N = 1 + Math.floor(r() * 300); const H = 1 + Math.floor(r() * 600);
    const sizes = f0.inputs.map((v) => ((v as TensorView).rank() === 2 ? [N, H] : [H]));
    const info0 = makeRuntimeInfo(f0, sizes.map((s) => ({ sizes: s })));
    const registry = defaultSchedulerRegistry();
    const sf = segmentFusion(f0, info0, registry);
    if (sf.groups.length !== 1) continue;
    const f = (sf.groups[0] as { fusion: Fusion }).fusion;
    const info = makeRuntimeInfo(f, f.inputs.map((v) => ({ sizes: (v as TensorView).rank() === 2 ? [N, H] : [H] })));
    const p = registry.tryPick(f, info);
    if (p.scheduler?.type !== 'inner_outer_persistent') {
      continue;
    }
    picked += 1;
    try {
      const compiled = compileFusion(f, info, { registry });
      const scheduled = p.scheduler.schedule(f.clone().fusion, compiled.params);
      const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: compiled.launch.block[0] });
      const gs = f.inputs.map((v) => ((v as TensorView).rank() === 2 ? [N, H] : [H])); const inputs = f.inputs.map((v, i) => HostTensor.fromValues((v as TensorView).dtype, gs[i] as number[], Array.from({ length: (gs[i] as number[]).reduce((a, b) => a * b, 1) }, () => (r() - 0.5))));
      const want = evaluate(f, inputs) as HostTensor[];
      const o = want.map((w) => HostTensor.fromValues(w.dtype, [...w.sizes], new Array<number>(w.numel).fill(NaN)));
      const got = simulateKernel(kernel, compiled.launch, [...inputs, ...o]).slice(inputs.length);
      const tol = dtype === 'Float' ? 1e-4 : dtype === 'Half' ? 1e-2 : 5e-2;
      want.forEach((w, i) => { const g = (got[i] as HostTensor).toNumbers(); w.toNumbers().forEach((x, k) => { const y = g[k] as number; if (x !== y && !(Number.isNaN(x) && Number.isNaN(y)) && !(Math.abs(x - y) <= tol * Math.max(Math.sqrt(N), Math.abs(x)))) throw new Error(`out ${i} el ${k} got ${y} want ${x}`); }); });
    } catch (e) {
      throw new Error(`seed ${base + it} (TSFUSER_SEED=${base}, iteration ${it}; ${dtype} ${N}x${H}): ${(e as Error).message.slice(0, 500)}`);
    }
  }
  expect(picked).toBeGreaterThan(tierCount(20, 3));
}, 600_000);
});
