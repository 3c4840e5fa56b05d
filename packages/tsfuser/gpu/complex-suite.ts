// GPU suite for complex numbers (needs a GPU; not a vitest suite).
//
//   pnpm gpu:bundle tsfuser-complex-suite && (GPU host) bash gpu-bundle/run.sh tsfuser-complex-suite [--seed S]
//
// The complex cases of test-support (complex-fixtures.ts) at two scales — small (odd sizes,
// predicated tails) and large (vectorized 8/16-byte element accesses) — for ComplexFloat and
// ComplexDouble: a pointwise fusion with every complex op the GPU runtime has (arithmetic,
// exp/log/sqrt/sin/cos/tanh, reciprocal, neg, eq + where, abs/real/imag, complex(re, im), casts,
// a complex scalar input; inputs with ±inf/NaN/±0 parts sprinkled in), a complex→complex cast
// copy, and sum reductions over the inner and the outer dim. Each runs through
// FusionExecutorCache as users run it (segmentation → NVRTC → launch, outputs poisoned with 0xFF
// first) and every output element is compared with the reference evaluator, seeded inputs (seed
// printed): complex outputs component by component. Tolerance per dtype, relative to the
// element's magnitude (pointwise: 1e-5 ComplexFloat / 1e-12 ComplexDouble; NaN must meet NaN and
// an infinity the same infinity); sums also get the summation-order bound 64·u·√n·max|x|.
// Prints one line per case, `N passed, M failed` last; exits 1 on failure.

import { evaluate, HostTensor, isComplexType, type DataType, type EvalValue } from '@tsfuser/fusion-ir';
import { FusionExecutorCache, type ExecutorArgument } from '@tsfuser/runtime';
import { DeviceContext, isAvailable, Tensor } from '@tsfuser/device';
import { complexCases, type ComplexCase } from '@tsfuser/test-support';

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function partsOf(t: HostTensor): { values: Float64Array; per: number } {
  return isComplexType(t.dtype) ? { values: t.toComplexInterleaved(), per: 2 } : { values: t.toFloat64Array(), per: 1 };
}

function unitRoundoff(dtype: DataType): number {
  return dtype === 'ComplexFloat' || dtype === 'Float' ? 2 ** -24 : 2 ** -53;
}

/** Throws at the first element of `got` outside the tolerance around `want`. */
function compare(want: HostTensor, got: HostTensor, label: string, reduceTerms: number): void {
  if (want.dtype !== got.dtype) throw new Error(`${label}: dtype ${got.dtype}, want ${want.dtype}`);
  if (want.sizes.join(',') !== got.sizes.join(',')) throw new Error(`${label}: sizes [${got.sizes.join(', ')}], want [${want.sizes.join(', ')}]`);
  const w = partsOf(want);
  const g = partsOf(got);
  const u = unitRoundoff(want.dtype);
  const rel = u > 1e-10 ? 1e-5 : 1e-12;
  // Sums in another order than the float64 reference (parts of magnitude ≤ 2).
  const sumSlack = reduceTerms > 1 ? 64 * u * Math.sqrt(reduceTerms) * 2 : 0;
  for (let e = 0; e < want.numel; e += 1) {
    const parts = Array.from({ length: w.per }, (_, p) => w.values[e * w.per + p] as number);
    const mag = Math.hypot(...parts.map((x) => (Number.isFinite(x) ? x : 0)));
    for (let p = 0; p < w.per; p += 1) {
      const x = parts[p] as number;
      const y = g.values[e * w.per + p] as number;
      const ok = Number.isNaN(x) ? Number.isNaN(y) : !Number.isFinite(x) ? x === y : Math.abs(x - y) <= rel * Math.max(1, mag) + sumSlack;
      if (!ok) {
        const show = (v: Float64Array): string => Array.from(v.subarray(e * w.per, (e + 1) * w.per)).join(w.per === 2 ? ' + i·' : '');
        throw new Error(`${label} element ${e}: got ${show(g.values)}, want ${show(w.values)}`);
      }
    }
  }
}

function runCase(device: DeviceContext, c: ComplexCase, seed: number): string {
  const inputs: EvalValue[] = c.inputs(seed);
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const owned: Tensor[] = [];
  const args: ExecutorArgument[] = inputs.map((v) => {
    if (!(v instanceof HostTensor)) return v as ExecutorArgument;
    const t = Tensor.fromHost(v).toDevice(device);
    owned.push(t);
    return t;
  });
  const reduceTerms = c.fusion.exprs().some((e) => e.kind === 'ReductionOp') ? Math.max(...inputs.map((v) => (v instanceof HostTensor ? Math.max(...v.sizes) : 1))) : 1;
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true });
  try {
    const outs = cache.runFusion(args);
    device.synchronize();
    try {
      want.forEach((w, i) => compare(w, (outs[i] as Tensor).toHost(), `output ${i}`, reduceTerms));
      return `${cache.stats.kernels} kernel(s)`;
    } finally {
      for (const o of outs) o.dispose();
    }
  } finally {
    for (const t of owned) t.dispose();
  }
}

function main(): void {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`complex suite: runtime unavailable: ${availability.reason ?? '?'}`);
    console.log('0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const seed = flag('seed', Math.floor(Math.random() * 2 ** 30));
  console.log(`complex suite, seed ${seed}`);
  const device = DeviceContext.create(0);
  let passed = 0;
  let failed = 0;
  try {
    for (const [k, c] of [...complexCases('small'), ...complexCases('large')].entries()) {
      try {
        const detail = runCase(device, c, seed + k);
        passed += 1;
        console.log(`PASS ${c.name}: ${detail}`);
      } catch (error) {
        failed += 1;
        const e = error as Error;
        console.log(`FAIL ${c.name} (seed ${seed + k}): ${e.name}: ${e.message.split('\n').slice(0, 3).join(' | ')}`);
      }
    }
  } finally {
    device.dispose();
  }
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

main();
