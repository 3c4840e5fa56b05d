// The weight-gradient GEMM segment with cuBLASLt's BGRADA / BGRADB epilogue (bgrad-pattern.ts):
// dW = matmul(permute(dY), X) reads dY transposed in place (the permute joins the GEMM segment)
// and db = sum(dY, 0) — op(A) summed over K — is its BGRADA epilogue, with or without the casts
// to Float and back; the sum of op(B) over K is BGRADB; a sum over another dim, a gradient of
// another dtype and a batched GEMM are refused with the rule, and the sum then runs in a
// reduction kernel of its own.
import { cast, Fusion, makeTensor, matmul, permute, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { defaultSchedulerRegistry, fusionIrSegmentsToString, makeRuntimeInfo, MatmulScheduler, segmentFusion, type MatmulParams, type SegmentedFusion } from '../src/index.js';

/** The backward epilogues are opt-in (segment-analysis.ts MatmulSegmentOptions): these tests are about them. */
const FUSED = { backwardEpilogues: true } as const;
import { canScheduleMatmul, analyzeMatmulSegment, matmulParamsToString } from '../src/matmul/index.js';

function input(f: Fusion, dtype: DataType, rank = 2): TensorView {
  const tv = makeTensor(f, { shape: new Array<number>(rank).fill(-1), dtype });
  f.addInput(tv);
  return tv;
}

/** dW = matmul(permute(dY), G) and db = sum(dY, dim): dY [T, H], G [T, F]; `viaFloat` sums a Float cast and casts back. */
function weightGrad(dtype: DataType, opts: { dim?: number; viaFloat?: boolean; castBack?: boolean; sumView?: boolean } = {}): Fusion {
  const f = new Fusion();
  const [dy, g] = [input(f, dtype), input(f, dtype)];
  const dyT = permute(dy, [1, 0]);
  f.addOutput(matmul(dyT, g));
  const summand = opts.sumView === true ? dyT : dy;
  const s = sum(opts.viaFloat === true ? cast(summand, 'Float') : summand, [opts.dim ?? (opts.sumView === true ? 1 : 0)]);
  f.addOutput(opts.viaFloat === true && opts.castBack !== false ? cast(s, dtype) : s);
  return f;
}

const T = 24;
const H = 8;
const F = 16;
const LAYOUTS = [{ sizes: [T, H] }, { sizes: [T, F] }];

function params(f: Fusion, layouts = LAYOUTS): MatmulParams {
  const r = analyzeMatmulSegment(f, makeRuntimeInfo(f, layouts), FUSED);
  if (!r.ok) throw new Error(r.reason);
  return r.params;
}

function refusal(f: Fusion, layouts = LAYOUTS): string {
  const r = canScheduleMatmul(f, makeRuntimeInfo(f, layouts), FUSED);
  if (r.ok) throw new Error('accepted');
  return r.reason;
}

function segment(f: Fusion, layouts = LAYOUTS): SegmentedFusion {
  return segmentFusion(f, makeRuntimeInfo(f, layouts), defaultSchedulerRegistry().replacing(new MatmulScheduler(FUSED)));
}

describe('BGRADA / BGRADB weight-gradient GEMM segments', () => {
  it.each([
    ['Float', {}],
    ['BFloat16', { viaFloat: true }],
    ['Half', {}],
    ['Float', { sumView: true }],
  ] as const)('%s %o: matmul(permute(dY), G) + sum(dY, 0) is one call, dY read transposed, BGRADA', (dtype, opts) => {
    const p = params(weightGrad(dtype, opts));
    expect([p.m, p.n, p.k, p.batch]).toEqual([H, F, T, 1]);
    expect(p.a).toMatchObject({ input: 0, rows: T, cols: H, ld: H, transposed: true, copy: null });
    expect(p.b).toMatchObject({ input: 1, rows: T, cols: F, ld: F, transposed: false, copy: null });
    expect(p.epilogue).toMatchObject({ kind: 'BGRADA', bias: null, aux: null, c: null, auxInput: null, biasGradient: { output: 1, dtype } });
    const text = matmulParamsToString(p);
    expect(text).toContain('Epilogue: BGRADA');
    expect(text).toContain(`bias gradient: output 1 (${dtype}, ${H} entries: op(A) summed over k)`);
    expect(text).toMatch(/A T\d+ = permute\(T\d+\) read in place/);
  });

  it('the sum of op(B) over K is BGRADB (n entries)', () => {
    const f = new Fusion();
    const [a, b] = [input(f, 'Float'), input(f, 'Float')];
    f.addOutput(matmul(a, b));
    f.addOutput(sum(b, [0]));
    const p = params(f, [{ sizes: [12, 9] }, { sizes: [9, 16] }]);
    expect([p.m, p.n, p.k]).toEqual([12, 16, 9]);
    expect(p.epilogue.kind).toBe('BGRADB');
    expect(matmulParamsToString(p)).toContain('16 entries: op(B) summed over k');
  });

  it('refuses a sum over another dim, a gradient of another dtype and a batched GEMM, naming the rule', () => {
    expect(refusal(weightGrad('Float', { dim: 1 }))).toMatch(/is not over T\d+'s dim 0, the GEMM's K: cuBLASLt's BGRADA sums op\(A\) over K/);
    expect(refusal(weightGrad('BFloat16', { viaFloat: true, castBack: false }))).toMatch(/the bias gradient T\d+ is Float but D T\d+ is BFloat16: cuBLASLt's bias gradient has D's dtype/);
    const f = new Fusion();
    const [dy, g] = [input(f, 'Float', 3), input(f, 'Float', 3)];
    f.addOutput(matmul(permute(dy, [0, 2, 1]), g));
    f.addOutput(sum(dy, [1]));
    expect(refusal(f, [{ sizes: [2, T, H] }, { sizes: [2, T, F] }])).toMatch(/BGRADA \/ BGRADB take one 2-D GEMM/);
  });

  it('the segmenter puts the permute, the GEMM and the sum in one GEMM segment; a refused sum is a reduction kernel with its reason', () => {
    const fused = segment(weightGrad('BFloat16', { viaFloat: true }));
    expect(fused.groups.map((g) => g.schedulerType)).toEqual(['matmul']);
    const apart = segment(weightGrad('Float', { dim: 1 }));
    expect(apart.groups.map((g) => g.schedulerType).sort()).toEqual(['matmul', 'reduction']);
    expect(fusionIrSegmentsToString(apart)).toMatch(/the GEMM's K: cuBLASLt's BGRADA sums op\(A\) over K/);
  });

  it('BGRADA at K = 1 (cuBLASLt had no algorithm there on the H200) or with A not transposed: the sum stays a reduction kernel, with the reason; K = 2 is one call', () => {
    for (const t of [1]) {
      const layouts = [{ sizes: [t, H] }, { sizes: [t, F] }];
      expect(refusal(weightGrad('BFloat16', { viaFloat: true }), layouts)).toMatch(new RegExp(`has K = ${t}( and A not transposed)?: cuBLASLt may have no BGRADA algorithm there`));
      const apart = segment(weightGrad('BFloat16', { viaFloat: true }), layouts);
      expect(apart.groups.map((g) => g.schedulerType)).toContain('reduction');
    }
    expect(params(weightGrad('Half'), [{ sizes: [2, H] }, { sizes: [2, F] }]).epilogue.kind).toBe('BGRADA');
    // matmul(A, G) + sum(A over K) with A stored [H, T] as is: not transposed.
    const f = new Fusion();
    const [a, g] = [input(f, 'Float'), input(f, 'Float')];
    f.addOutput(matmul(a, g));
    f.addOutput(sum(a, [1]));
    expect(refusal(f, [{ sizes: [H, T] }, { sizes: [T, F] }])).toMatch(/has K = 24 and A not transposed: cuBLASLt may have no BGRADA algorithm/);
  });
});
