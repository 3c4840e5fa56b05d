// The GPT MLP backward of `tsfuser bench` (gpt_mlp_bwd_bf16, src/bench/gpt-mlp-backward.ts): on
// the reference backend every grad (dx, dW1, db1, dW2, db2) equals float64 math written here
// from the chain rule (not from the definition's ops), at a small size with random inputs (seed
// printed) in Float and in BFloat16; and the definition segments into four plain cuBLASLt calls
// and two reduction kernels — the gelu backward writing dpre inside db1's loops, and db2 (the
// default: the backward epilogues measured slower on the H200), or — with MatmulScheduler({ backwardEpilogues: true })
// — into four cuBLASLt calls: DGELU_BGRAD (dpre and db1), BGRADA (dW2 and db2, dy read
// transposed), two plain — no kernel.
import { evaluate, HostTensor } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, makeRuntimeInfo, MatmulScheduler, segmentFusion, type MatmulParams } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { gptMlpBackwardDefinition, GPT_MLP_GRADS } from '../src/bench/gpt-mlp-backward.js';
import { gemmWorkloads } from '../src/bench/gemm-workloads.js';
import { importPythonDefinition } from '../src/python/import-definition.js';

const SEED = Number(process.env.TSFUSER_SEED ?? Date.now() % 1_000_000);
const [T, H, F] = [6, 4, 8];

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296 - 0.5;
  };
}

type Matrix = number[][];
const zeros = (r: number, c: number): Matrix => Array.from({ length: r }, () => new Array<number>(c).fill(0));
const mm = (a: Matrix, b: Matrix): Matrix => a.map((row) => (b[0] as number[]).map((_, j) => row.reduce((acc, v, k) => acc + v * ((b[k] as number[])[j] as number), 0)));
const transpose = (a: Matrix): Matrix => (a[0] as number[]).map((_, j) => a.map((row) => row[j] as number));
const colSums = (a: Matrix): number[] => (a[0] as number[]).map((_, j) => a.reduce((acc, row) => acc + (row[j] as number), 0));
/** d/dh of 0.5·h·(1 + tanh(√(2/π)(h + 0.044715h³))). */
function geluTanhGrad(h: number): number {
  const c = Math.sqrt(2 / Math.PI);
  const t = Math.tanh(c * (h + 0.044715 * h ** 3));
  return 0.5 * (1 + t) + 0.5 * h * (1 - t * t) * c * (1 + 3 * 0.044715 * h * h);
}

/** The grads in float64, from the chain rule of y = gelu(x·W1ᵀ + b1)·W2ᵀ + b2. */
function expectedGrads(x: Matrix, w1: Matrix, w2: Matrix, h: Matrix, g: Matrix, dy: Matrix): (Matrix | number[])[] {
  const dg = mm(dy, w2);
  const dpre = dg.map((row, i) => row.map((v, j) => v * geluTanhGrad((h[i] as number[])[j] as number)));
  return [mm(dpre, w1), mm(transpose(dpre), x), colSums(dpre), mm(transpose(dy), g), colSums(dy)];
}

function hostOf(dtype: 'Float' | 'BFloat16', m: Matrix): HostTensor {
  return HostTensor.fromValues(dtype, [m.length, (m[0] as number[]).length], m.flat());
}

function matrixOf(dtype: 'Float' | 'BFloat16', rows: number, cols: number, rng: () => number, scale: number): Matrix {
  const m = zeros(rows, cols).map((row) => row.map(() => rng() * 2 * scale));
  // the inputs as the definition sees them (rounded to its dtype)
  const t = hostOf(dtype, m);
  return m.map((row, i) => row.map((_, j) => Number(t.get(i * cols + j))));
}

describe(`gpt_mlp_bwd_bf16 (seed ${SEED})`, () => {
  it.each([['Float', 2e-6], ['BFloat16', 2e-2]] as const)('%s: every grad equals the float64 chain rule on the reference backend', (dtype, tol) => {
    const rng = random(SEED);
    const x = matrixOf(dtype, T, H, rng, 1);
    const w1 = matrixOf(dtype, F, H, rng, 0.5);
    const w2 = matrixOf(dtype, H, F, rng, 0.5);
    const h = matrixOf(dtype, T, F, rng, 2);
    // g = gelu(h) as the forward saved it (any tensor: dW2 = dyᵀ·g reads it as it is)
    const g = matrixOf(dtype, T, F, rng, 1);
    const dy = matrixOf(dtype, T, H, rng, 1);
    const fusion = gptMlpBackwardDefinition(dtype).fusionIr();
    const got = evaluate(fusion, [x, w1, w2, h, g, dy].map((m) => hostOf(dtype, m))) as HostTensor[];
    const want = expectedGrads(x, w1, w2, h, g, dy);
    expect(got).toHaveLength(GPT_MLP_GRADS.length);
    want.forEach((w, o) => {
      const flat = w.flat() as number[];
      const t = got[o] as HostTensor;
      expect(t.dtype).toBe(dtype);
      expect(t.numel, GPT_MLP_GRADS[o]).toBe(flat.length);
      const scale = Math.max(...flat.map(Math.abs), 1);
      flat.forEach((v, i) => expect(Math.abs(Number(t.get(i)) - v) / scale, `${GPT_MLP_GRADS[o]}[${i}] seed ${SEED}`).toBeLessThan(tol));
    });
  });

  it.each([[T, H, F], [8192, 4096, 16384]])('T%i H%i F%i: four plain cuBLASLt calls and two reduction kernels by default; opted in, DGELU_BGRAD, BGRADA and two plain, no kernel', (t, h, f) => {
    const fusion = gptMlpBackwardDefinition('BFloat16').fusionIr();
    const sizes = [[t, h], [f, h], [h, f], [t, f], [t, f], [t, h]];
    const info = makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s })));
    for (const fused of [false, true]) {
      const matmul = new MatmulScheduler({ backwardEpilogues: fused });
      const sf = segmentFusion(fusion, info, defaultSchedulerRegistry().replacing(matmul));
      const types = sf.groups.map((g) => g.schedulerType);
      expect(types.filter((x) => x === 'matmul')).toHaveLength(4);
      if (fused) expect(types).toEqual(['matmul', 'matmul', 'matmul', 'matmul']);
      else expect([...types].sort(), types.join(', ')).toEqual(['matmul', 'matmul', 'matmul', 'matmul', 'reduction', 'reduction']);
      const kinds = sf.groups
        .filter((g) => g.schedulerType === 'matmul')
        .map((g) => (matmul.computeHeuristics(g.fusion, g.analysis?.runtimeInfo ?? makeRuntimeInfo(g.fusion, [])) as MatmulParams).epilogue.kind);
      expect([...kinds].sort()).toEqual(fused ? ['BGRADA', 'DEFAULT', 'DEFAULT', 'DGELU_BGRAD'] : ['DEFAULT', 'DEFAULT', 'DEFAULT', 'DEFAULT']);
    }
  });

  it('its python_definition reads back as the same computation (gelu_backward, permute, matmul, sum)', () => {
    const def = gptMlpBackwardDefinition('Float');
    const text = def.printPython();
    for (const op of ['fd.ops.gelu_backward', 'fd.ops.permute', 'fd.ops.matmul', 'fd.ops.sum']) expect(text).toContain(op);
    const rng = random(SEED + 1);
    const args = [[T, H], [F, H], [H, F], [T, F], [T, F], [T, H]].map(([r, c]) => hostOf('Float', matrixOf('Float', r as number, c as number, rng, 1)));
    const a = evaluate(def.fusionIr(), args) as HostTensor[];
    const b = evaluate(importPythonDefinition(text).fusionIr(), args) as HostTensor[];
    a.forEach((t, o) => expect(Array.from({ length: t.numel }, (_, i) => Number(t.get(i)))).toEqual(Array.from({ length: t.numel }, (_, i) => Number((b[o] as HostTensor).get(i)))));
  });

  it('the workload counts four GEMMs of 2·T·H·F flops at the issue sizes', () => {
    const w = gemmWorkloads().find((x) => x.name === 'gpt_mlp_bwd_bf16');
    expect(w?.flops).toBe(8 * 8192 * 4096 * 16384);
    expect(w?.inputs.map((i) => i.sizes)).toEqual([[8192, 4096], [16384, 4096], [4096, 16384], [8192, 16384], [8192, 16384], [8192, 4096]]);
  });
});

describe(`the backward's GEMM layouts as bench workloads (seed ${SEED})`, () => {
  const [M, N, K] = [5, 3, 7];
  it.each(['dgrad', 'wgrad'] as const)('%s: equals the float64 product on the reference, and plans as one GEMM reading both operands in place', (kind) => {
    const w = gemmWorkloads().find((x) => x.name.startsWith(`gemm_bf16_${kind}_`));
    expect(w, kind).toBeDefined();
    const workload = w as NonNullable<typeof w>;
    const fusion = workload.build().fusionIr();
    const rng = random(SEED + 2);
    const a = matrixOf('BFloat16', kind === 'dgrad' ? M : K, kind === 'dgrad' ? K : M, rng, 1);
    const b = matrixOf('BFloat16', K, N, rng, 1);
    const got = (evaluate(fusion, [hostOf('BFloat16', a), hostOf('BFloat16', b)]) as HostTensor[])[0] as HostTensor;
    const want = mm(kind === 'dgrad' ? a : transpose(a), b).flat();
    expect(got.sizes).toEqual([M, N]);
    want.forEach((v, i) => expect(Math.abs(Number(got.get(i)) - v), `${kind}[${i}] seed ${SEED}`).toBeLessThanOrEqual(2e-2 * Math.max(1, Math.abs(v))));
    const sizes = workload.inputs.map((i) => i.sizes);
    const info = makeRuntimeInfo(fusion, sizes.map((s) => ({ sizes: s })));
    const sf = segmentFusion(fusion, info, defaultSchedulerRegistry());
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul']);
    const group = sf.groups[0] as (typeof sf.groups)[number];
    const params = new MatmulScheduler().computeHeuristics(group.fusion, group.analysis?.runtimeInfo ?? info) as MatmulParams;
    expect([params.m, params.n, params.k]).toEqual(kind === 'dgrad' ? [8192, 4096, 16384] : [16384, 4096, 8192]);
    expect(params.a.copy).toBeNull();
    expect(params.b.copy).toBeNull();
    expect(workload.flops).toBe(2 * params.m * params.n * params.k);
  });
});
