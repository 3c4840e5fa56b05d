// The GEMM segment's parameters against values derived by hand from the operands' sizes and
// strides: m / n / k, the batch (folded into m, broadcast with stride 0, or a copy where the
// strides do not nest), each operand's rows / cols / ld / transposition, the output's layout and
// the epilogue; and the refusals (each names the tensor and the rule), and the params dump.
import { add, broadcast, cast, Fusion, gelu, linear, makeTensor, matmul, mul, relu, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { makeRuntimeInfo } from '../src/index.js';
import { canScheduleMatmul, analyzeMatmulSegment, GemmShapeError, matmulParamsToString, type MatmulParams } from '../src/matmul/index.js';

type Layout = { sizes: number[]; strides?: number[] };

function input(f: Fusion, rank: number, dtype: DataType = 'BFloat16'): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(tv);
  return tv;
}

function params(f: Fusion, layouts: Layout[]): MatmulParams {
  const r = analyzeMatmulSegment(f, makeRuntimeInfo(f, layouts));
  if (!r.ok) throw new Error(`refused: ${r.reason}`);
  return r.params;
}

function refusal(f: Fusion, layouts: Layout[]): string {
  const r = canScheduleMatmul(f, makeRuntimeInfo(f, layouts));
  if (r.ok) throw new Error('accepted');
  return r.reason;
}

/** x [M, K] · W [N, K]ᵀ + b, then gelu(tanh), bf16 (the transformer MLP's first half). */
function linearBiasGelu(aux: boolean): Fusion {
  const f = new Fusion();
  const x = input(f, 2);
  const w = input(f, 2);
  const b = input(f, 1);
  const y = linear(x, w);
  const pre = add(y, broadcast(b, [true, false]));
  f.addOutput(gelu(pre, 'tanh'));
  if (aux) f.addOutput(pre);
  return f;
}

describe('GEMM segment parameters', () => {
  it('linear + bias + gelu(tanh): W read transposed in place, GELU_BIAS', () => {
    const p = params(linearBiasGelu(false), [{ sizes: [64, 32] }, { sizes: [48, 32] }, { sizes: [48] }]);
    expect([p.m, p.n, p.k, p.batch, p.foldedBatch]).toEqual([64, 48, 32, 1, false]);
    expect(p.a).toMatchObject({ input: 0, rows: 64, cols: 32, ld: 32, transposed: false, batchStride: 0, copy: null });
    // W [48, 32] row-major is Wᵀ (32 × 48) column-major: stored 48 × 32, ld 32, read transposed.
    expect(p.b).toMatchObject({ input: 1, rows: 48, cols: 32, ld: 32, transposed: true, batchStride: 0, copy: null });
    expect(p.d).toEqual({ output: 0, dtype: 'BFloat16', ld: 48, batchStride: 0 });
    expect(p.epilogue).toEqual({ kind: 'GELU_BIAS', bias: { input: 2, dtype: 'BFloat16' }, aux: null, c: null , auxInput: null, biasGradient: null });
  });

  it('the pre-activation as an output too: GELU_AUX_BIAS writes it (ld n, a multiple of 8)', () => {
    const p = params(linearBiasGelu(true), [{ sizes: [64, 32] }, { sizes: [48, 32] }, { sizes: [48] }]);
    expect(p.epilogue).toEqual({ kind: 'GELU_AUX_BIAS', bias: { input: 2, dtype: 'BFloat16' }, aux: { output: 1, dtype: 'BFloat16', ld: 48, batchStride: 0 }, c: null , auxInput: null, biasGradient: null });
    expect(refusal(linearBiasGelu(true), [{ sizes: [64, 32] }, { sizes: [44, 32] }, { sizes: [44] }])).toMatch(/N = 44.*multiple of 8/);
  });

  it("linear's own bias, a 3-D input folded into m, relu", () => {
    const f = new Fusion();
    const x = input(f, 3, 'Half');
    const w = input(f, 2, 'Half');
    const b = input(f, 1, 'Half');
    f.addOutput(relu(linear(x, w, b)));
    const p = params(f, [{ sizes: [4, 7, 16] }, { sizes: [24, 16] }, { sizes: [24] }]);
    expect([p.m, p.n, p.k, p.batch, p.foldedBatch]).toEqual([28, 24, 16, 1, true]);
    expect(p.a).toMatchObject({ rows: 28, cols: 16, ld: 16, transposed: false });
    expect(p.epilogue.kind).toBe('RELU_BIAS');
    // A [4, 7, 16] whose rows do not nest with the batch (padded between batch entries): batched, B broadcast.
    const q = params(f, [{ sizes: [4, 7, 16], strides: [128, 16, 1] }, { sizes: [24, 16] }, { sizes: [24] }]);
    expect([q.m, q.batch, q.foldedBatch]).toEqual([7, 4, false]);
    expect(q.a.batchStride).toBe(128);
    expect(q.b.batchStride).toBe(0);
    expect(q.d).toMatchObject({ ld: 24, batchStride: 7 * 24 });
  });

  it('matmul with a transposed A and a padded B', () => {
    const f = new Fusion();
    const a = input(f, 2, 'Float');
    const b = input(f, 2, 'Float');
    f.addOutput(matmul(a, b));
    // A [M 129, K 7] stored column-major (strides [1, 129]); B [7, 33] with rows padded to 40.
    const p = params(f, [{ sizes: [129, 7], strides: [1, 129] }, { sizes: [7, 33], strides: [40, 1] }]);
    expect([p.m, p.n, p.k]).toEqual([129, 33, 7]);
    expect(p.a).toMatchObject({ rows: 7, cols: 129, ld: 129, transposed: true, copy: null });
    expect(p.b).toMatchObject({ rows: 7, cols: 33, ld: 40, transposed: false, copy: null });
    expect(p.epilogue.kind).toBe('DEFAULT');
  });

  it('batched matmul: broadcast batch as stride 0, per-batch transposed operands', () => {
    const f = new Fusion();
    const a = input(f, 2, 'Float');
    const b = input(f, 3, 'Float');
    f.addOutput(matmul(a, b));
    // A [5, 3] shared by every entry of B [6, 3, 4]: batch 6, A's batch stride 0.
    const p = params(f, [{ sizes: [5, 3] }, { sizes: [6, 3, 4] }]);
    expect([p.m, p.n, p.k, p.batch, p.foldedBatch]).toEqual([5, 4, 3, 6, false]);
    expect([p.a.batchStride, p.b.batchStride, p.d.batchStride]).toEqual([0, 12, 20]);

    const g = new Fusion();
    const c = input(g, 3, 'Float');
    const d = input(g, 3, 'Float');
    g.addOutput(matmul(c, d));
    // C [2, 5, 3] with each matrix column-major (strides [15, 1, 5]); D's batch expanded (stride 0).
    const q = params(g, [{ sizes: [2, 5, 3], strides: [15, 1, 5] }, { sizes: [2, 3, 4], strides: [0, 4, 1] }]);
    expect([q.m, q.n, q.k, q.batch]).toEqual([5, 4, 3, 2]);
    expect(q.a).toMatchObject({ rows: 3, cols: 5, ld: 5, transposed: true, batchStride: 15, copy: null });
    expect(q.b).toMatchObject({ rows: 3, cols: 4, ld: 4, transposed: false, batchStride: 0, copy: null });
    // B broadcast over the batch and C's matrices not nesting with its batch: not folded.
    expect(q.foldedBatch).toBe(false);
  });

  it('batch dims broadcast against each other do not nest: those operands are copied, and the params say why', () => {
    const f = new Fusion();
    const a = input(f, 4, 'Float');
    const b = input(f, 4, 'Float');
    f.addOutput(matmul(a, b));
    // A [2, 1, 5, 3], B [1, 3, 3, 4]: batch [2, 3]; A reads the batch with strides [15, 0], B with [0, 12].
    const p = params(f, [{ sizes: [2, 1, 5, 3] }, { sizes: [1, 3, 3, 4] }]);
    expect([p.m, p.n, p.k, p.batch]).toEqual([5, 4, 3, 6]);
    expect(p.a.copy?.sizes).toEqual([2, 3, 5, 3]);
    expect(p.a.copy?.reason).toMatch(/batch strides \[15, 0\] over batch \[2, 3\] do not nest/);
    expect(p.a).toMatchObject({ rows: 5, cols: 3, ld: 3, batchStride: 15 });
    expect(p.b.copy?.sizes).toEqual([2, 3, 3, 4]);
    expect(matmulParamsToString(p)).toContain('copied first to a dense [2, 3, 5, 3]');
  });

  it('a matrix neither row- nor column-major is copied', () => {
    const f = new Fusion();
    const a = input(f, 2, 'Half');
    const b = input(f, 2, 'Half');
    f.addOutput(matmul(a, b));
    const p = params(f, [{ sizes: [4, 6], strides: [2, 8] }, { sizes: [6, 8] }]);
    expect(p.a.copy?.reason).toMatch(/strides 2, 8\) are neither row- nor column-major/);
    expect(p.a).toMatchObject({ rows: 4, cols: 6, ld: 6, transposed: false });
  });

  it('vectors: dot, mv with a strided vector, vm', () => {
    const dot = new Fusion();
    const u = input(dot, 1, 'Float');
    const v = input(dot, 1, 'Float');
    dot.addOutput(matmul(u, v));
    const p = params(dot, [{ sizes: [9] }, { sizes: [9], strides: [3] }]);
    expect([p.m, p.n, p.k, p.batch]).toEqual([1, 1, 9, 1]);
    expect(p.a).toMatchObject({ rows: 1, cols: 9, ld: 9, transposed: false });
    // A strided column vector is a 9 × 1 row-major matrix with ld 3.
    expect(p.b).toMatchObject({ rows: 9, cols: 1, ld: 3, transposed: false });

    const vm = new Fusion();
    const x = input(vm, 1, 'Float');
    const m = input(vm, 3, 'Float');
    vm.addOutput(matmul(x, m));
    // [K] · [B, K, N]: batch B of one-row GEMMs, output [B, N].
    const q = params(vm, [{ sizes: [3] }, { sizes: [2, 3, 4] }]);
    expect([q.m, q.n, q.k, q.batch]).toEqual([1, 4, 3, 2]);
    expect([q.a.batchStride, q.b.batchStride, q.d.batchStride]).toEqual([0, 12, 4]);

    const mv = new Fusion();
    const t = input(mv, 3, 'Float');
    const w = input(mv, 1, 'Float');
    mv.addOutput(matmul(t, w));
    // [B, M, K] · [K] folds into one [B·M, K] · [K, 1] GEMM.
    const r = params(mv, [{ sizes: [2, 5, 3] }, { sizes: [3] }]);
    expect([r.m, r.n, r.k, r.batch, r.foldedBatch]).toEqual([10, 1, 3, 1, true]);
  });

  it('casts around the GEMM: bf16 → Float bias add and activation → bf16 output', () => {
    const f = new Fusion();
    const x = input(f, 2);
    const w = input(f, 2);
    const b = input(f, 1);
    const y = cast(linear(x, w), 'Float');
    const z = relu(add(y, cast(broadcast(b, [true, false]), 'Float')));
    f.addOutput(cast(z, 'BFloat16'));
    const p = params(f, [{ sizes: [16, 8] }, { sizes: [8, 8] }, { sizes: [8] }]);
    expect(p.epilogue.kind).toBe('RELU_BIAS');
    expect(p.d.dtype).toBe('BFloat16');
    expect(p.fused).toEqual(['cast T4 to Float', expect.stringMatching(/^bias add T\d+$/), expect.stringMatching(/^relu T\d+$/), expect.stringMatching(/^cast T\d+ to BFloat16$/)]);
  });

  it('refuses what cuBLASLt cannot compute in the epilogue, naming the tensor', () => {
    const erf = new Fusion();
    {
      const x = input(erf, 2);
      const w = input(erf, 2);
      erf.addOutput(gelu(linear(x, w)));
    }
    expect(refusal(erf, [{ sizes: [4, 4] }, { sizes: [4, 4] }])).toMatch(/gelu producing T\d+ is the erf form/);

    const scale = new Fusion();
    {
      const x = input(scale, 2);
      const w = input(scale, 2);
      scale.addOutput(mul(linear(x, w), 2));
    }
    expect(refusal(scale, [{ sizes: [4, 4] }, { sizes: [4, 4] }])).toMatch(/mul producing T\d+ has no cuBLASLt epilogue/);

    const prologue = new Fusion();
    {
      const x = input(prologue, 2);
      const w = input(prologue, 2);
      prologue.addOutput(linear(relu(x), w));
    }
    expect(refusal(prologue, [{ sizes: [4, 4] }, { sizes: [4, 4] }])).toMatch(/A T\d+ of T\d+ is computed in the segment: cuBLASLt fuses no prologue/);

    const reluAux = new Fusion();
    {
      const x = input(reluAux, 2);
      const w = input(reluAux, 2);
      const y = linear(x, w);
      reluAux.addOutput(relu(y));
      reluAux.addOutput(y);
    }
    expect(refusal(reluAux, [{ sizes: [8, 8] }, { sizes: [8, 8] }])).toMatch(/RELU_AUX writes a bit mask/);

    const two = new Fusion();
    {
      const x = input(two, 2);
      const w = input(two, 2);
      two.addOutput(linear(linear(x, w), w));
    }
    expect(refusal(two, [{ sizes: [4, 4] }, { sizes: [4, 4] }])).toMatch(/holds one matmul or linear/);

    const dbl = new Fusion();
    {
      const x = input(dbl, 2, 'Double');
      const w = input(dbl, 2, 'Double');
      dbl.addOutput(matmul(x, w));
    }
    expect(refusal(dbl, [{ sizes: [4, 4] }, { sizes: [4, 4] }])).toMatch(/Double GEMMs do not run on cuBLASLt/);

    const floatBias = new Fusion();
    {
      const x = input(floatBias, 2);
      const w = input(floatBias, 2);
      const b = input(floatBias, 1, 'Float');
      floatBias.addOutput(add(cast(linear(x, w), 'Float'), broadcast(b, [true, false])));
    }
    // D is Float here and so is the bias: accepted; a bf16 bias added to a Float result is not D's dtype.
    expect(params(floatBias, [{ sizes: [4, 8] }, { sizes: [8, 8] }, { sizes: [8] }]).epilogue.kind).toBe('BIAS');
    const stridedBias = refusal(floatBias, [{ sizes: [4, 8] }, { sizes: [8, 8] }, { sizes: [8], strides: [2] }]);
    expect(stridedBias).toMatch(/bias T\d+ has stride 2 along N/);

    const k0 = new Fusion();
    {
      const x = input(k0, 2, 'Float');
      const w = input(k0, 2, 'Float');
      k0.addOutput(matmul(x, w));
    }
    expect(refusal(k0, [{ sizes: [4, 0] }, { sizes: [0, 4] }])).toMatch(/K = 0/);
    const none = new Fusion();
    {
      const x = input(none, 2, 'Float');
      none.addOutput(relu(x));
    }
    expect(refusal(none, [{ sizes: [4, 4] }])).toBe('no matmul or linear in the segment');
  });

  it('adds of full-shape segment inputs become C (beta 1): a residual, bf16 with casts; one C, before the activation', () => {
    const f = new Fusion();
    const x = input(f, 3);
    const w = input(f, 2);
    const res = input(f, 3);
    // bf16 + bf16 as the frontend writes it: both cast to Float, added, cast back
    f.addOutput(cast(add(cast(linear(x, w), 'Float'), cast(res, 'Float')), 'BFloat16'));
    const p = params(f, [{ sizes: [2, 6, 32] }, { sizes: [48, 32] }, { sizes: [2, 6, 48] }]);
    expect(p.epilogue).toEqual({ kind: 'DEFAULT', bias: null, aux: null, c: { input: 2, dtype: 'BFloat16', ld: 48, batchStride: 0 } , auxInput: null, biasGradient: null });
    expect(p.fused.some((s) => s.startsWith('add C T'))).toBe(true);
    expect(matmulParamsToString(p)).toContain('C (beta 1): input 2 (BFloat16, ld 48, batch stride 0)');
    // a Float C under a bf16 D: cuBLASLt's C has D's dtype
    const g = new Fusion();
    const gx = input(g, 2);
    const gw = input(g, 2);
    const gr = input(g, 2, 'Float');
    g.addOutput(cast(add(linear(gx, gw), gr), 'BFloat16'));
    expect(refusal(g, [{ sizes: [6, 32] }, { sizes: [48, 32] }, { sizes: [6, 48] }])).toMatch(/C T\d+ is Float but the GEMM writes BFloat16/);
    // two full-shape adds: cuBLASLt adds one C
    const h = new Fusion();
    const hx = input(h, 2, 'Float');
    const hw = input(h, 2, 'Float');
    const r1 = input(h, 2, 'Float');
    const r2 = input(h, 2, 'Float');
    h.addOutput(add(add(linear(hx, hw), r1), r2));
    expect(refusal(h, [{ sizes: [6, 32] }, { sizes: [48, 32] }, { sizes: [6, 48] }, { sizes: [6, 48] }])).toMatch(/second C/);
    // the add after the activation is outside cuBLASLt's epilogue
    const k = new Fusion();
    const kx = input(k, 2, 'Float');
    const kw = input(k, 2, 'Float');
    const kr = input(k, 2, 'Float');
    k.addOutput(add(relu(linear(kx, kw)), kr));
    expect(refusal(k, [{ sizes: [6, 32] }, { sizes: [48, 32] }, { sizes: [6, 48] }])).toMatch(/follows the activation/);
  });

  it("operand sizes PyTorch refuses are PyTorch's error (GemmShapeError), not a refusal or a GEMM reading past B", () => {
    const mm = new Fusion();
    mm.addOutput(matmul(input(mm, 2), input(mm, 2)));
    expect(() => analyzeMatmulSegment(mm, makeRuntimeInfo(mm, [{ sizes: [2, 3] }, { sizes: [2, 3] }]))).toThrow(GemmShapeError);
    expect(() => canScheduleMatmul(mm, makeRuntimeInfo(mm, [{ sizes: [2, 3] }, { sizes: [2, 3] }]))).toThrow('matmul producing T2: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
    const lin = new Fusion();
    lin.addOutput(linear(input(lin, 3), input(lin, 2)));
    expect(() => analyzeMatmulSegment(lin, makeRuntimeInfo(lin, [{ sizes: [2, 5, 16] }, { sizes: [24, 15] }]))).toThrow('mat1 and mat2 shapes cannot be multiplied (10x16 and 15x24)');
    // the same fusions with agreeing sizes are accepted
    expect(params(mm, [{ sizes: [2, 3] }, { sizes: [3, 2] }]).k).toBe(3);
    expect(params(lin, [{ sizes: [2, 5, 16] }, { sizes: [24, 16] }]).m).toBe(10);
  });

  it('prints the parameters in the scheduler_params layout', () => {
    const p = params(linearBiasGelu(true), [{ sizes: [64, 32] }, { sizes: [48, 32] }, { sizes: [48] }]);
    expect(matmulParamsToString(p)).toBe(
      [
        '',
        '===== Matmul Parameters ========',
        'Library call: cuBLASLt linear (no generated kernel)',
        'Problem: m 64 n 48 k 32 batch 1',
        'Dtypes: inputs BFloat16, output BFloat16, accumulation Float',
        'Operands (row-major):',
        '  A: input 0, 64x32 ld 32, batch stride 0',
        '  B: input 1, 48x32 ld 32 transposed, batch stride 0',
        '  D: output 0, 64x48 ld 48, batch stride 0',
        'Epilogue: GELU_AUX_BIAS',
        '  bias: input 2 (BFloat16, 48 entries)',
        '  aux (pre-activation): output 1 (BFloat16, ld 48, batch stride 0)',
        `Fused: ${p.fused.join(', ')}`,
        '====================================',
        '',
      ].join('\n'),
    );
    expect(p.fused).toHaveLength(2);
  });
});
