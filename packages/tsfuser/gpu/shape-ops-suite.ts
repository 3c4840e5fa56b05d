// GPU suite for shape ops and tensor factories (needs a GPU; not a vitest suite).
//
//   pnpm gpu:bundle tsfuser-shape-ops-suite && (GPU host) bash gpu-bundle/run.sh tsfuser-shape-ops-suite [--seed S] [--random N] [--random-reshape R] [--resize-random M] [--transpose-random T] [--random-persistent-reshape P] [--permute-reduction-random Q] [--reduction-reshape-random V] [--persistent-resize-random W]
//
// Every fixture of packages/codegen/test/shape-ops-fixtures.ts (full / zeros / ones / iota in
// pointwise, reduction and persistent kernels; expanded outputs; stride-0 inputs; metadata-only
// fusions; a reshape between pointwise kernels; zero-size tensors), plus a few larger sizes where
// the kernels vectorize, runs through FusionExecutorCache with the default registry as users run
// it (segmentation → expr_eval views / no_op / kernels → NVRTC → launch; outputs and
// intermediates poisoned with 0xFF first; inputs on the device with their strides, stride 0
// included) and every output element is compared with the reference evaluator. Also checked: the
// segments' schedulers are the fixture's, a metadata-only fusion launches no kernel and returns a
// view of the caller's input (its data pointer lies inside the input's storage), an expanded
// output has stride 0. Then N (default 300) random fusions mixing shape ops with pointwise and
// reduction work (codegen's test/shape-ops-random.ts, seeded from S); then the reshape fixtures
// (reshapes inside pointwise kernels), larger reshapes that vectorize (reshape-cases.ts) and R
// (default 200) random reshape fusions, each one pointwise kernel; then M (--resize-random,
// default 200) random fusions mixing slice / pad / cat with pointwise work (test-support's
// resize-random.ts; K (--resize-reduction-random, default 100) more before a sum / max / mean,
// each one reduction kernel: resize-reduction-random.ts); large resize cases (RoPE, cat, pad at vectorized sizes) beside the
// fixtures' small ones; the transpose fixtures (test-support's transpose-fixtures.ts: 2-D f32 /
// bf16 transposes, permute + pointwise, 3-D / 4-D permutes, a permuted input, a stride-ordered
// output, odd sizes — each checked to take the scheduler it names, transpose or pointwise) and T
// (--transpose-random, default 100) random transposes at H100 sizes; the persistent reshape fixtures (persistent-reshape-cases.ts: reshapes
// in inner / outer / inner-outer persistent kernels), the attention prologue reshape +
// layer_norm + reshape at realistic sizes and P (--random-persistent-reshape, default 200)
// random persistent fusions with reshapes; Q (--permute-reduction-random, default 100) random
// fusions with a permute inside a reduction or persistent kernel (test-support's
// permute-reduction-random.ts); V (--reduction-reshape-random, default 100) random fusions with
// a reshape after a reduction, each one reduction kernel (test-support's
// reduction-reshape-random.ts); the persistent resize fixtures (test-support's
// persistent-resize-fixtures.ts: softmax over a pad, layer_norm over a cat, rms_norm + RoPE, a
// slice of the normalized row as an output, batch_norm-like over a cat, …, and five at
// realistic sizes) and W (--persistent-resize-random, default 100) random inner persistent
// fusions with slice / pad / cat in the row, W / 2 outer and W / 4 inner-outer persistent ones,
// each one persistent kernel (persistent-resize-random.ts). Prints one line per failing
// case and per fixture, `N passed, M failed` last; exits 1 on failure.

import { add, broadcast, cast, cat, evaluate, expand, Fusion, full, HostTensor, iota, makeTensor, mul, pad, size, type EvalValue } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, Tensor } from '@tsfuser/device';
import { FusionExecutorCache, type ExecutorArgument } from '@tsfuser/runtime';
import { permutedAllocationOrder, segmentPlanFor } from '@tsfuser/scheduler';
import {
  compareOutput, randomPermuteReductionCase, randomResizeCase, randomShapeOpsCase, randomTensor, randomTransposeCase, ropeFusion, ropeInputs, runtimeInfoOf, seeded, shapeOpsFixtures, transposeFixtures, type ShapeOpsFixture,
} from '@tsfuser/test-support';
import { randomResizeReductionCase } from '@tsfuser/test-support';
import { hasReshapeAfterReduction, randomReductionReshapeCase } from '@tsfuser/test-support';
import {
  persistentResizeFixtures, randomInnerOuterPersistentResizeCase, randomOuterPersistentResizeCase, randomPersistentResizeCase, rmsNormRope, sliceOfNormalizedRow, softmaxOverPad,
} from '@tsfuser/test-support';
import { largeReshapeCases, randomReshapeFixtures, reshapeFixtures } from './reshape-cases.js';
import { largePersistentReshapeCases, persistentReshapeFixtures, randomPersistentReshapeFixtures } from './persistent-reshape-cases.js';
import { absoluteHost, reductionSlack } from './summation-slack.js';

interface Result {
  name: string;
  ok: boolean;
  detail: string;
}

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** Slice / pad / cat in inner persistent kernels at realistic sizes (Llama q/k norm + RoPE: D = 128; a slice of the normalized row as an output). */
function largePersistentResizeCases(): ShapeOpsFixture[] {
  return [
    softmaxOverPad('BFloat16', 4096, 1016),
    softmaxOverPad('Float', 2048, 4088),
    rmsNormRope('BFloat16', 8192, 128),
    rmsNormRope('Float', 4096, 128),
    sliceOfNormalizedRow('BFloat16', 8192, 1024, 256, 768),
  ];
}

/** Larger sizes than the CPU simulator can take: vectorized loads and stores around the factories. */
function largeCases(): ShapeOpsFixture[] {
  const out: ShapeOpsFixture[] = [];
  for (const dtype of ['Float', 'BFloat16'] as const) {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype });
    f.addInput(x);
    f.addOutput(cast(add(mul(cast(x, 'Float'), full(f, [], 0.125, 'Double')), broadcast(iota(f, size(x, 1), 0, 0.001, 'Float'), [true, false])), dtype));
    out.push({ name: `large_scale_iota_${dtype}`, fusion: f, inputs: (r) => [randomTensor(dtype, [2048, 4096], r)], segments: 'pointwise' });
  }
  {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1] });
    const y = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(expand(broadcast(mul(x, 2), [false, true]), [size(x, 0), size(y, 1)]));
    out.push({ name: 'large_expanded_output', fusion: f, inputs: (r) => [randomTensor('Float', [1 << 20], r), randomTensor('Float', [1 << 20, 8], r)], segments: 'pointwise' });
  }
  // Slice / pad / cat at sizes where the shifted accesses vectorize.
  out.push({ name: 'large_rope_BFloat16', fusion: ropeFusion('BFloat16', 128), inputs: (r) => ropeInputs('BFloat16', [2, 512, 8, 128], r), segments: 'pointwise' });
  for (const dim of [0, 1]) {
    const f = new Fusion();
    const ts = [0, 1, 2].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' }));
    ts.forEach((t) => f.addInput(t));
    f.addOutput(cat(ts, dim));
    const shapes = [0, 1, 2].map((k) => (dim === 0 ? [1024 + 8 * k, 2048] : [1024, 2048 - 16 * k]));
    out.push({ name: `large_cat3_dim${dim}_BFloat16`, fusion: f, inputs: (r) => shapes.map((sz) => randomTensor('BFloat16', sz, r)), segments: 'pointwise' });
  }
  {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
    f.addInput(x);
    f.addOutput(pad(x, [8, 8, 1, 1]));
    out.push({ name: 'large_pad_BFloat16', fusion: f, inputs: (r) => [randomTensor('BFloat16', [2048, 4096], r)], segments: 'pointwise' });
  }
  return out;
}

function segmentsOf(fx: ShapeOpsFixture, inputs: readonly EvalValue[]): string {
  return segmentPlanFor(fx.fusion, runtimeInfoOf(fx.fusion, inputs)).groups.map((g) => g.schedulerType ?? 'none').join('+');
}

function runCase(device: DeviceContext, fx: ShapeOpsFixture, seed: number): string {
  const inputs = fx.inputs(seeded(seed));
  const segments = segmentsOf(fx, inputs);
  if (fx.segments !== '*' && segments !== fx.segments) throw new Error(`segments ${segments}, expected ${fx.segments}`);
  const want = evaluate(fx.fusion, inputs) as HostTensor[];
  const owned: Tensor[] = [];
  const args: ExecutorArgument[] = inputs.map((v) => {
    if (!(v instanceof HostTensor)) return Number(v);
    const t = Tensor.fromHost(v).toDevice(device);
    owned.push(t);
    return t;
  });
  const cache = new FusionExecutorCache(fx.fusion, device, { poisonOutputs: true });
  try {
    const outs = cache.runFusion(args);
    device.synchronize();
    try {
      // Sums in another order than the float64 reference: elements whose sum cancels get the
      // rounding bound √n·u·Σ|x| (summation-slack.ts; Σ|x| from the fusion on |inputs|, n at most
      // the largest input), and every element at least the norm-wise bound the simulator tests
      // use (reductionSlack) — far below what a lost or doubled term would change.
      const reduces = fx.fusion.exprs().some((e) => e.kind === 'ReductionOp' || e.kind === 'WelfordOp');
      const terms = Math.max(1, ...inputs.map((v) => (v instanceof HostTensor ? v.numel : 1)));
      const absolute = reduces ? (evaluate(fx.fusion, inputs.map((v) => (v instanceof HostTensor ? absoluteHost(v) : v))) as HostTensor[]) : [];
      // The loosest reduced float of the fusion (a Half / BFloat16 intermediate rounds what a Float output holds).
      const dtypes = fx.fusion.allTvs().map((tv) => tv.dtype);
      const loosest = dtypes.includes('BFloat16') ? 'BFloat16' : dtypes.includes('Half') ? 'Half' : 'Float';
      want.forEach((w, i) => {
        const a = absolute[i];
        compareOutput(w, (outs[i] as Tensor).toHost(), `output ${i}`, a === undefined || w.dtype !== 'Float' ? undefined : reductionSlack(w, a, terms, loosest), w.dtype === 'Float' ? loosest : w.dtype);
      });
      fx.fusion.outputs.forEach((o, i) => {
        // An expanded dim must come back with stride 0 (a view, not a copy); where it expands to
        // size 1 its stride is meaningless (PyTorch's expand keeps the old one), so only dims of
        // extent > 1 are checked.
        const out = outs[i] as Tensor;
        const logical = o.kind === 'tensorView' ? o.domain.logicalNoReductions() : [];
        const copied = logical.some((id, d) => id.isBroadcast() && id.expandedExtent !== null && (out.sizes[d] ?? 0) > 1 && out.strides[d] !== 0);
        if (copied) throw new Error(`output ${i} is expanded but has strides [${(outs[i] as Tensor).strides.join(', ')}] (a materialized copy)`);
        // Stride-ordered outputs come back with the reference's permuted strides.
        const got = (outs[i] as Tensor).strides;
        const ref = (want[i] as HostTensor).strides;
        if (o.kind === 'tensorView' && permutedAllocationOrder(o) !== null && got.join(',') !== ref.join(',')) throw new Error(`output ${i} has strides [${got.join(', ')}], the reference [${ref.join(', ')}]`);
      });
      if (fx.segments === 'expr_eval') {
        if (cache.stats.kernels !== 0) throw new Error(`a metadata-only fusion compiled ${cache.stats.kernels} kernels`);
        outs.forEach((o, i) => {
          const inside = owned.some((t) => o.dataPtr >= t.dataPtr && o.dataPtr <= t.dataPtr + BigInt(t.storageBytes));
          if (!inside && o.numel > 0) throw new Error(`output ${i} is not a view of an input (no alias)`);
        });
      }
      return `${segments}, ${cache.stats.kernels} kernel(s)`;
    } finally {
      // Views alias the inputs: disposing them frees nothing.
      for (const o of outs) o.dispose();
    }
  } finally {
    for (const t of owned) t.dispose();
  }
}

function main(): void {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`shape-ops suite: runtime unavailable: ${availability.reason ?? '?'}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const seed = flag('seed', Math.floor(Math.random() * 2 ** 30));
  console.log(`shape-ops suite, seed ${seed}`);
  const device = DeviceContext.create(0);
  const results: Result[] = [];
  try {
    const random = flag('random', 300);
    const randomCases: ShapeOpsFixture[] = Array.from({ length: random }, (_, k) => {
      const c = randomShapeOpsCase(seed + 100000 + k);
      return { name: `random ${seed + 100000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: '*' };
    });
    const resizeRandom = flag('resize-random', 200);
    const resizeCases: ShapeOpsFixture[] = Array.from({ length: resizeRandom }, (_, k) => {
      const c = randomResizeCase(seed + 200000 + k);
      return { name: `random ${seed + 200000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: '*' };
    });
    // Slice / pad / cat before a reduction: one reduction kernel each (run after the resize cases).
    for (let k = 0; k < flag('resize-reduction-random', 100); k += 1) {
      const c = randomResizeReductionCase(seed + 500000 + k);
      resizeCases.push({ name: `random ${seed + 500000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: 'reduction' });
    }
    // Slice / pad / cat inside inner persistent kernels: the fixtures, then random ones, one kernel each.
    resizeCases.push(...persistentResizeFixtures(), ...largePersistentResizeCases());
    for (let k = 0; k < flag('persistent-resize-random', 100); k += 1) {
      const c = randomPersistentResizeCase(seed + 700000 + k);
      resizeCases.push({ name: `random ${seed + 700000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: c.segments });
      if (k % 2 === 1) continue;
      const o = randomOuterPersistentResizeCase(seed + 750000 + k);
      resizeCases.push({ name: `random ${seed + 750000 + k} (${o.description})`, fusion: o.fusion, inputs: () => o.inputs, segments: o.segments });
      if (k % 4 === 2) continue;
      const io = randomInnerOuterPersistentResizeCase(seed + 780000 + k);
      resizeCases.push({ name: `random ${seed + 780000 + k} (${io.description})`, fusion: io.fusion, inputs: () => io.inputs, segments: io.segments });
    }
    const transposeRandom = flag('transpose-random', 100);
    const transposeCases: ShapeOpsFixture[] = Array.from({ length: transposeRandom }, (_, k) => {
      const c = randomTransposeCase(seeded(seed + 300000 + k), k);
      return { ...c, name: `random ${seed + 300000 + k} (${c.name})` };
    });
    const permuteReduction = flag('permute-reduction-random', 100);
    const permuteReductionCases: ShapeOpsFixture[] = Array.from({ length: permuteReduction }, (_, k) => {
      const c = randomPermuteReductionCase(seed + 400000 + k);
      return { name: `random ${seed + 400000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: '*' };
    });
    const reshapeCases = [...reshapeFixtures(), ...largeReshapeCases(), ...randomReshapeFixtures(seed, flag('random-reshape', 200))];
    const persistentReshapeCases = [
      ...persistentReshapeFixtures(),
      ...largePersistentReshapeCases(),
      ...randomPersistentReshapeFixtures(seed, flag('random-persistent-reshape', 200)),
    ];
    // A reshape after a reduction: one reduction kernel each (drawn until that many have one).
    const reductionReshape = flag('reduction-reshape-random', 100);
    for (let k = 0, taken = 0; taken < reductionReshape && k < 20 * reductionReshape; k += 1) {
      const c = randomReductionReshapeCase(seed + 600000 + k);
      if (!hasReshapeAfterReduction(c.fusion)) continue;
      taken += 1;
      reshapeCases.push({ name: `random ${seed + 600000 + k} (${c.description})`, fusion: c.fusion, inputs: () => c.inputs, segments: 'reduction' });
    }
    for (const [k, fx] of [...shapeOpsFixtures(), ...largeCases(), ...randomCases, ...reshapeCases, ...resizeCases, ...transposeFixtures(), ...transposeCases, ...persistentReshapeCases, ...permuteReductionCases].entries()) {
      try {
        results.push({ name: fx.name, ok: true, detail: runCase(device, fx, seed + k) });
      } catch (error) {
        const e = error as Error;
        results.push({ name: fx.name, ok: false, detail: `${e.name}: ${e.message.split('\n').slice(0, 3).join(' | ')}` });
      }
      const r = results[results.length - 1] as Result;
      if (!r.ok || !r.name.startsWith('random')) console.log(`${r.ok ? 'PASS' : 'FAIL'} ${r.name}: ${r.detail}`);
    }
  } finally {
    device.dispose();
  }
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

main();
