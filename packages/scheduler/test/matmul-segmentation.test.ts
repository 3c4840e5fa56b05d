// Segmentation with GEMMs (the default registry): each matmul / linear is a matmul segment of its
// own (a cuBLASLt call) holding the epilogue cuBLASLt fuses, and everything else runs in
// generated kernels around it, each boundary with its reason: linear → bias → gelu(tanh) is one
// segment; an MLP is two; gelu's erf form and a scale stay in a pointwise kernel after the GEMM;
// a layer_norm before the GEMM is its normalization kernel, then the GEMM; a transposed,
// batch-broadcast operand is read in place. The dumps of the MLP with a layer_norm prologue are
// golden (UPDATE_GOLDEN=1 rewrites them).
import { fileURLToPath } from 'node:url';
import { add, broadcast, cast, checkGolden, Fusion, gelu, layerNorm, linear, makeTensor, matmul, mul, permute, relu, rmsNorm, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import {
  defaultSchedulerRegistry, fusionIrSegmentsToString, heuristicParamsToString, makeRuntimeInfo, segmentedFusionToString, segmentFusion, segmentKindOf,
  type MatmulParams, type SegmentedFusion,
} from '../src/index.js';

const dir = fileURLToPath(new URL('../../../test-fixtures/golden/scheduler/', import.meta.url));

function input(f: Fusion, rank: number, dtype: DataType = 'BFloat16', contiguous = true): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype, ...(contiguous ? {} : { contiguity: new Array<boolean>(rank).fill(false) }) });
  f.addInput(tv);
  return tv;
}

function segment(f: Fusion, layouts: { sizes: number[]; strides?: number[] }[]): SegmentedFusion {
  return segmentFusion(f, makeRuntimeInfo(f, layouts), defaultSchedulerRegistry());
}

function matmulParams(sf: SegmentedFusion, group: number): MatmulParams {
  const g = sf.groups[group];
  if (g === undefined || g.schedulerType !== 'matmul') throw new Error(`group ${group} is not a matmul segment`);
  const p = defaultSchedulerRegistry().get('matmul').computeHeuristics(g.fusion, g.analysis?.runtimeInfo ?? makeRuntimeInfo(g.fusion, []));
  if (p.schedulerType !== 'matmul') throw new Error('not matmul params');
  return p;
}

/** x → linear(W1) + b1 → gelu(tanh) → linear(W2) + b2, optionally after a layer_norm of x. */
function mlp(withLayerNorm: boolean): Fusion {
  const f = new Fusion();
  const x = input(f, 2);
  const w1 = input(f, 2);
  const b1 = input(f, 1);
  const w2 = input(f, 2);
  const b2 = input(f, 1);
  const h = withLayerNorm ? cast(layerNorm(x, 1).output, 'BFloat16') : x;
  const u = gelu(add(linear(h, w1), broadcast(b1, [true, false])), 'tanh');
  f.addOutput(linear(u, w2, b2));
  return f;
}

const MLP_LAYOUTS = [{ sizes: [256, 64] }, { sizes: [128, 64] }, { sizes: [128] }, { sizes: [64, 128] }, { sizes: [64] }];

describe('segmentation with GEMM segments', () => {
  it('linear → bias → gelu(tanh) is one matmul segment (GELU_BIAS): a library call, no kernel', () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    const b = input(f, 1);
    f.addOutput(gelu(add(linear(x, w), broadcast(b, [true, false])), 'tanh'));
    const sf = segment(f, [{ sizes: [64, 32] }, { sizes: [48, 32] }, { sizes: [48] }]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul']);
    expect(segmentKindOf('matmul')).toBe('libraryCall');
    expect(matmulParams(sf, 0).epilogue.kind).toBe('GELU_BIAS');
  });

  it('an MLP is two GEMM segments: the first fuses bias + gelu(tanh), the second its bias', () => {
    const sf = segment(mlp(false), MLP_LAYOUTS);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul', 'matmul']);
    expect(matmulParams(sf, 0).epilogue.kind).toBe('GELU_BIAS');
    const second = matmulParams(sf, 1);
    expect([second.m, second.n, second.k, second.epilogue.kind]).toEqual([256, 64, 128, 'BIAS']);
    expect(sf.edges).toHaveLength(1);
    expect(sf.edges[0]?.reason).toMatch(/matmul: a GEMM segment holds one matmul or linear/);
  });

  it('a layer_norm before the GEMM is its normalization kernel, then the GEMMs (dumps golden)', () => {
    const sf = segment(mlp(true), MLP_LAYOUTS);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['inner_persistent', 'matmul', 'matmul']);
    const text = segmentedFusionToString(sf) + fusionIrSegmentsToString(sf) + sf.groups.slice(1).map((_, i) => heuristicParamsToString(matmulParams(sf, i + 1))).join('');
    expect(checkGolden(text, `${dir}mlp_layer_norm_gemm.segmented_fusion.txt`, process.env.UPDATE_GOLDEN === '1').diff).toBe('');
  });

  it("an epilogue cuBLASLt has no form for runs in a pointwise kernel after the GEMM, and the boundary says why", () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    f.addOutput(mul(gelu(linear(x, w)), 0.5));
    const sf = segment(f, [{ sizes: [16, 8] }, { sizes: [8, 8] }]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul', 'pointwise']);
    expect(matmulParams(sf, 0).epilogue.kind).toBe('DEFAULT');
    expect(sf.edges[0]?.reason).toMatch(/gelu producing T\d+ is the erf form: cuBLASLt's GELU epilogue is approximate='tanh'/);
  });

  it('the pre-activation as an output too is written by GELU_AUX_BIAS, not recomputed', () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    const b = input(f, 1);
    const pre = add(linear(x, w), broadcast(b, [true, false]));
    f.addOutput(gelu(pre, 'tanh'));
    f.addOutput(pre);
    const sf = segment(f, [{ sizes: [16, 8] }, { sizes: [8, 8] }, { sizes: [8] }]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul']);
    expect(matmulParams(sf, 0).epilogue.kind).toBe('GELU_AUX_BIAS');
  });

  it('a pre-activation read by later pointwise work: the GEMM writes it (bias fused), the pointwise kernel applies gelu and the rest', () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    const b = input(f, 1);
    const pre = add(linear(x, w), broadcast(b, [true, false]));
    const act = gelu(pre, 'tanh');
    f.addOutput(act);
    f.addOutput(mul(pre, act));
    const sf = segment(f, [{ sizes: [16, 8] }, { sizes: [8, 8] }, { sizes: [8] }]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul', 'pointwise']);
    expect(matmulParams(sf, 0).epilogue.kind).toBe('BIAS');
  });

  it('an RMSNorm between GEMMs is one persistent kernel; the last residual add becomes the linear\'s C', () => {
    // x → h = x + linear(a, Wo) → rms_norm(h) · w → y = h + linear(n, Wd): greedy pairwise merging
    // alone dead-ends on the norm (pointwise / reduction / pointwise); the regions between the
    // library calls start whole (library-regions.ts)
    const f = new Fusion();
    const x = input(f, 3);
    const a = input(f, 3);
    const wo = input(f, 2);
    const wn = input(f, 1);
    const wd = input(f, 2);
    const h = cast(add(x, linear(a, wo)), 'BFloat16');
    const n = cast(rmsNorm(h, 1, wn).output, 'BFloat16');
    f.addOutput(cast(add(h, linear(n, wd)), 'BFloat16'));
    const sf = segment(f, [{ sizes: [2, 64, 128] }, { sizes: [2, 64, 128] }, { sizes: [128, 128] }, { sizes: [128] }, { sizes: [128, 128] }]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul', 'inner_persistent', 'matmul']);
    // the first residual joins the norm's kernel (it reads x and the GEMM's result once there);
    // the last one, read by nothing else, is the second GEMM's C
    expect(matmulParams(sf, 2).epilogue.c).not.toBeNull();
  });

  it('a permute only GEMMs read joins the GEMM segment: dW = matmul(permute(dY), X) reads dY transposed in place', () => {
    // dY = relu(a) · 2 is computed in a kernel; its permute feeds only the weight-gradient GEMM
    const f = new Fusion();
    const a = input(f, 2);
    const x = input(f, 2);
    const dy = cast(mul(relu(a), 2), 'BFloat16');
    f.addOutput(dy);
    f.addOutput(matmul(permute(dy, [1, 0]), x));
    const sf = segment(f, [{ sizes: [64, 48] }, { sizes: [64, 32] }]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['pointwise', 'matmul']);
    // the kernel writes dY once, untransposed; the GEMM segment holds the permute as its A's layout
    expect(sf.groups[0]?.exprs.some((e) => e.kind === 'LoadStoreOp')).toBe(false);
    expect(sf.groups[1]?.exprs.some((e) => e.kind === 'LoadStoreOp' && e.permutation !== null)).toBe(true);
    const p = matmulParams(sf, 1);
    expect([p.m, p.n, p.k, p.epilogue.kind]).toEqual([48, 32, 64, 'DEFAULT']);
    expect(p.a).toMatchObject({ rows: 64, cols: 48, ld: 48, transposed: true, copy: null });
    expect(p.fused.join(', ')).toMatch(/A T\d+ = permute\(T\d+\) read in place/);
  });

  it('a transposed, batch-broadcast operand is described to cuBLASLt, not copied', () => {
    const f = new Fusion();
    const a = input(f, 3, 'Half', false);
    const b = input(f, 2, 'Half', false);
    f.addOutput(matmul(a, b));
    // A [4, 9, 5] with each matrix column-major; B [5, 7] column-major too.
    const sf = segment(f, [{ sizes: [4, 9, 5], strides: [45, 1, 9] }, { sizes: [5, 7], strides: [1, 5] }]);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['matmul']);
    const p = matmulParams(sf, 0);
    expect([p.m, p.n, p.k, p.batch]).toEqual([9, 7, 5, 4]);
    expect(p.a).toMatchObject({ rows: 5, cols: 9, ld: 9, transposed: true, batchStride: 45, copy: null });
    expect(p.b).toMatchObject({ rows: 7, cols: 5, ld: 5, transposed: true, batchStride: 0, copy: null });
  });
});
