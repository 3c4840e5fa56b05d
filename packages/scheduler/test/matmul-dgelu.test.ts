// The backward GEMM segment with cuBLASLt's DGELU / DGELU_BGRAD epilogue (dgelu-pattern.ts): the
// dgrad GEMM followed by fusion-ir's geluBackward(grad, pre, 'tanh') — and the sum of its rows
// (the bias gradient of the linear before the gelu) — is one GEMM segment reading the
// pre-activation as cuBLASLt's aux; the erf derivative, a misshapen sum, a non-dense
// pre-activation and N not a multiple of 8 are refused, each naming the tensor and the rule.
import { Fusion, geluBackward, makeTensor, matmul, mul, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { defaultSchedulerRegistry, makeRuntimeInfo, MatmulScheduler, segmentFusion } from '../src/index.js';

/** The backward epilogues are opt-in (segment-analysis.ts MatmulSegmentOptions): these tests are about them. */
const FUSED = { backwardEpilogues: true } as const;
import { canScheduleMatmul, analyzeMatmulSegment, matmulParamsToString } from '../src/matmul/index.js';

function input(f: Fusion, dtype: DataType): TensorView {
  const tv = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(tv);
  return tv;
}

/** dPre = geluBackward(dY · W2, pre): dY [T, H], W2 [H, F], pre [T, F]; with db1 = sum(dPre, 0). */
function dgrad(dtype: DataType, opts: { bias: boolean; approximate?: 'tanh' | 'none'; sumDim?: number }): Fusion {
  const f = new Fusion();
  const [dy, w2, pre] = [input(f, dtype), input(f, dtype), input(f, dtype)];
  const d = geluBackward(matmul(dy, w2), pre, opts.approximate ?? 'tanh');
  f.addOutput(d);
  if (opts.bias) f.addOutput(sum(d, [opts.sumDim ?? 0]));
  return f;
}

const layouts = (t: number, h: number, f: number) => [{ sizes: [t, h] }, { sizes: [h, f] }, { sizes: [t, f] }];

function refusal(f: Fusion, l: { sizes: number[]; strides?: number[] }[]): string {
  const r = canScheduleMatmul(f, makeRuntimeInfo(f, l), FUSED);
  if (r.ok) throw new Error('accepted');
  return r.reason;
}

describe('DGELU backward GEMM segments', () => {
  it.each(['Float', 'BFloat16'] as const)('%s: gelu(tanh) backward after the GEMM is DGELU, with the row sum DGELU_BGRAD', (dtype) => {
    const p = analyzeMatmulSegment(dgrad(dtype, { bias: false }), makeRuntimeInfo(dgrad(dtype, { bias: false }), layouts(12, 8, 16)), FUSED);
    if (!p.ok) throw new Error(p.reason);
    expect(p.params.epilogue).toMatchObject({ kind: 'DGELU', auxInput: { input: 2, dtype, ld: 16, batchStride: 0 }, biasGradient: null });
    expect([p.params.m, p.params.n, p.params.k]).toEqual([12, 16, 8]);
    const withBias = dgrad(dtype, { bias: true });
    const q = analyzeMatmulSegment(withBias, makeRuntimeInfo(withBias, layouts(12, 8, 16)), FUSED);
    if (!q.ok) throw new Error(q.reason);
    expect(q.params.epilogue).toMatchObject({ kind: 'DGELU_BGRAD', biasGradient: { output: 1, dtype } });
    expect(matmulParamsToString(q.params)).toContain('aux (pre-activation, read): input 2');
  });

  it('refusals: the erf derivative, a sum over the columns, N not a multiple of 8, a strided pre-activation, an extra op', () => {
    expect(refusal(dgrad('Float', { bias: false, approximate: 'none' }), layouts(12, 8, 16))).toMatch(/not gelu\(tanh\)'s derivative/);
    expect(refusal(dgrad('Float', { bias: true, sumDim: 1 }), layouts(12, 8, 16))).toMatch(/not over .* rows/);
    expect(refusal(dgrad('Float', { bias: false }), layouts(12, 8, 12))).toMatch(/N = 12.*multiple of 8/);
    expect(refusal(dgrad('Float', { bias: false }), [{ sizes: [12, 8] }, { sizes: [8, 16] }, { sizes: [12, 16], strides: [1, 12] }])).toMatch(/aux laid out like D/);
    const f = new Fusion();
    const [dy, w2, pre] = [input(f, 'Float'), input(f, 'Float'), input(f, 'Float')];
    f.addOutput(mul(geluBackward(matmul(dy, w2), pre, 'tanh'), 2));
    // D's tree then holds the scale too: not the derivative alone
    expect(refusal(f, layouts(12, 8, 16))).toMatch(/T\d+ = f\(T\d+, T2\) is not gelu\(tanh\)'s derivative/);
  });
});

describe('the backward epilogues are opt-in', () => {
  it('by default a DGELU(_BGRAD) segment is refused with the measured reason; the segmenter then runs a plain GEMM and the gelu backward as kernels', () => {
    for (const bias of [false, true]) {
      const f = dgrad('BFloat16', { bias });
      const r = canScheduleMatmul(f, makeRuntimeInfo(f, layouts(64, 32, 128)));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(bias ? /DGELU_BGRAD epilogue is not fused by default/ : /DGELU epilogue is not fused by default/);
      expect(canScheduleMatmul(f, makeRuntimeInfo(f, layouts(64, 32, 128)), FUSED)).toEqual({ ok: true });
      const groups = segmentFusion(f, makeRuntimeInfo(f, layouts(64, 32, 128)), defaultSchedulerRegistry()).groups.map((g) => g.schedulerType);
      expect(groups).toContain('matmul');
      expect(groups.length).toBeGreaterThan(1);
      // the same registry with the override: one GEMM segment
      const fused = segmentFusion(f, makeRuntimeInfo(f, layouts(64, 32, 128)), defaultSchedulerRegistry().replacing(new MatmulScheduler(FUSED))).groups.map((g) => g.schedulerType);
      expect(fused).toEqual(['matmul']);
    }
  });
});
