// The GEMM segment of a scaled_mm (torch._scaled_mm with per-tensor fp32 scales of fp8 mat1 and
// mat2): Hopper's cuBLASLt fp8 path, its scales read from the device (the two one-element
// segment inputs, CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER), its own bias as the BIAS epilogue.
// The segment is the scaled_mm alone: whatever follows it (a cast, an activation) runs in a
// generated kernel after it, and the refusal says so. Layout rules are cuBLASLt's fp8 rules,
// which are torch._scaled_mm's: mat1 row-major, mat2 column-major (the "TN" form: mat2 is the
// transpose of a row-major [N, K], as a linear weight), K and N multiples of 16, leading dims
// multiples of 16 elements; a bias in BFloat16 or Half (Half for a Half output); a BFloat16,
// Half, Float or fp8 output (no e5m2 output of e4m3 × e4m3: cuBLASLt's table). Block-scaled
// forms (MX / NVFP4) never reach here: fusion-ir's scaled_mm refuses them with the reason.
// Invariant: an accepted segment's parameters pass the device's validateGemm for fp8 (both
// inputs fp8, not e5m2 × e5m2, TN, scales only on fp8 operands, bias dtype); sizes PyTorch
// refuses are a GemmShapeError with PyTorch's message, everything else a refusal naming the
// tensor and the rule.

import type { Fusion, ScaledMmaOp, TensorView } from '@tsfuser/fusion-ir';
import type { RuntimeInfo, TensorInputInfo } from '../runtime-info.js';
import { tensorExprs, tvName } from '../segmentation/fusion-graph.js';
import type { MatmulSegmentAnalysis } from './segment-analysis.js';
import { planGemmLayout } from './operand-layout.js';
import type { Float8Dtype, GemmOperandDtype, MatmulDtype, MatmulEpilogue, MatmulParams } from './params.js';
import { GemmShapeError } from './shape-error.js';

type Refusal = { ok: false; reason: string };
const refuse = (reason: string): Refusal => ({ ok: false, reason });

/** cuBLASLt's fp8 kernels need 16-byte aligned dims and leading dims (1-byte elements). */
const FP8_ALIGNMENT = 16;

function isFloat8(dtype: string): dtype is Float8Dtype {
  return dtype === 'Float8_e4m3fn' || dtype === 'Float8_e5m2';
}

function isOutputDtype(dtype: string): dtype is GemmOperandDtype {
  return dtype === 'Float' || dtype === 'BFloat16' || dtype === 'Half' || isFloat8(dtype);
}

function tensorInfo(info: RuntimeInfo, fusion: Fusion, tv: TensorView): TensorInputInfo | string {
  const input = fusion.inputs.indexOf(tv);
  if (input < 0) return `${tvName(tv)} is computed in the segment: cuBLASLt's fp8 GEMM reads its operands, scales and bias as they are (a generated kernel before it computes ${tvName(tv)})`;
  const i = info.inputs[input];
  if (i === undefined || i.kind !== 'tensor') return `runtime info has no tensor layout for ${tvName(tv)} (input ${input})`;
  return i;
}

/** The scaled_mm of the segment, or why the segment is not one scaled_mm alone. */
function onlyScaledMm(fusion: Fusion): ScaledMmaOp | Refusal {
  const exprs = tensorExprs(fusion);
  const gemm = exprs.find((e): e is ScaledMmaOp => e.kind === 'ScaledMmaOp');
  if (gemm === undefined) return refuse('no scaled_mm in the segment');
  const other = exprs.find((e) => e !== gemm);
  if (other !== undefined) {
    return refuse(
      `a scaled_mm segment is the scaled_mm alone (its bias included): ${other.kind} producing ${other.outputs.map(tvName).join(', ')} runs in a generated kernel ${other.inputs.includes(gemm.out()) ? 'after' : 'beside'} it`,
    );
  }
  if (fusion.outputs.length !== 1 || fusion.outputs[0] !== gemm.out()) return refuse(`the scaled_mm's result ${tvName(gemm.out())} must be the segment's one output`);
  return gemm;
}

/** The GEMM segment's parameters of a lone scaled_mm under `info` (see the header). */
export function analyzeScaledMmSegment(fusion: Fusion, info: RuntimeInfo): MatmulSegmentAnalysis {
  const gemm = onlyScaledMm(fusion);
  if ('ok' in gemm) return gemm;
  const out = gemm.out();
  const name = tvName(out);
  const infos = [gemm.matrix1(), gemm.matrix2(), gemm.scale1(), gemm.scale2()].map((tv) => tensorInfo(info, fusion, tv));
  const bad = infos.find((i): i is string => typeof i === 'string');
  if (bad !== undefined) return refuse(bad);
  const [a, b, sa, sb] = infos as TensorInputInfo[];
  if (a === undefined || b === undefined || sa === undefined || sb === undefined) return refuse('scaled_mm has four operands');
  const [m, k] = a.sizes as [number, number];
  const [k2, n] = b.sizes as [number, number];
  if (k !== k2) throw new GemmShapeError(`scaled_mm producing ${name}: mat_a and mat_b shapes cannot be multiplied (${m}x${k} and ${k2}x${n})`);
  for (const [what, s] of [['scale1', sa], ['scale2', sb]] as const) {
    if (s.sizes.reduce((x, y) => x * y, 1) !== 1) return refuse(`${what} of ${name} has sizes [${s.sizes.join(', ')}]: cuBLASLt's fp8 path takes one fp32 scale per tensor`);
  }
  const aDtype = gemm.matrix1().dtype;
  const bDtype = gemm.matrix2().dtype;
  if (!isFloat8(aDtype) || !isFloat8(bDtype)) return refuse(`scaled_mm producing ${name} has ${aDtype} × ${bDtype} operands: cuBLASLt's scaled path is fp8 (e4m3fn / e5m2)`);
  if (!isOutputDtype(out.dtype)) return refuse(`scaled_mm producing ${name} writes ${out.dtype}`);
  const layout = planGemmLayout('matmulA', { input: fusion.inputs.indexOf(gemm.matrix1()), sizes: a.sizes, strides: a.strides }, 'matmulB', { input: fusion.inputs.indexOf(gemm.matrix2()), sizes: b.sizes, strides: b.strides });
  if (layout.a.copy !== null || layout.a.transposed) {
    return refuse(`mat1 ${tvName(gemm.matrix1())} of ${name} has strides [${a.strides.join(', ')}]: cuBLASLt's fp8 GEMMs read mat1 row-major (torch._scaled_mm's rule)`);
  }
  if (layout.b.copy !== null || !layout.b.transposed) {
    return refuse(`mat2 ${tvName(gemm.matrix2())} of ${name} has strides [${b.strides.join(', ')}]: cuBLASLt's fp8 GEMMs read mat2 column-major (mat2 = W.t() of a row-major [N, K], torch._scaled_mm's rule)`);
  }
  if (k % FP8_ALIGNMENT !== 0 || n % FP8_ALIGNMENT !== 0 || layout.a.ld % FP8_ALIGNMENT !== 0 || layout.b.ld % FP8_ALIGNMENT !== 0) {
    return refuse(`scaled_mm producing ${name} has K = ${k}, N = ${n} (leading dims ${layout.a.ld}, ${layout.b.ld}): cuBLASLt's fp8 GEMMs need multiples of ${FP8_ALIGNMENT}`);
  }
  // An fp8 output: the device's GemmLibrary describes it as NVIDIA's fp8 sample does (its own C,
  // a unit D scale; device fp8-output.ts) — the H200 refused C at D's address. cuBLASLt's table
  // has no e5m2 D from e4m3 × e4m3 (an e5m2 D needs an e5m2 operand).
  if (out.dtype === 'Float8_e5m2' && aDtype === 'Float8_e4m3fn' && bDtype === 'Float8_e4m3fn') {
    return refuse(`scaled_mm producing ${name} writes Float8_e5m2 from e4m3fn × e4m3fn operands: cuBLASLt has that output only when an operand is e5m2 (write Float8_e4m3fn, BFloat16, Half or Float and cast)`);
  }
  let bias: MatmulEpilogue['bias'] = null;
  const biasTv = gemm.bias();
  if (biasTv !== null) {
    const bi = tensorInfo(info, fusion, biasTv);
    if (typeof bi === 'string') return refuse(bi);
    const allowed: MatmulDtype[] = out.dtype === 'Half' ? ['Half'] : ['BFloat16', 'Half'];
    const dtype = biasTv.dtype;
    if (!allowed.includes(dtype as MatmulDtype)) return refuse(`the bias ${tvName(biasTv)} of ${name} is ${dtype}: cuBLASLt's fp8 GEMM with a ${out.dtype} output takes a ${allowed.join(' or ')} bias`);
    if ((bi.sizes[0] ?? 0) !== n) throw new GemmShapeError(`scaled_mm producing ${name}: bias has ${bi.sizes[0] ?? 0} elements, expected N = ${n}`);
    if (n > 1 && bi.strides[0] !== 1) return refuse(`the bias ${tvName(biasTv)} has stride ${bi.strides[0] ?? 0}: cuBLASLt reads a contiguous bias vector`);
    bias = { input: fusion.inputs.indexOf(biasTv), dtype: dtype as MatmulDtype };
  }
  const params: MatmulParams = {
    schedulerType: 'matmul',
    tag: '',
    op: 'scaled_mm',
    m: layout.m,
    n: layout.n,
    k: layout.k,
    batch: 1,
    foldedBatch: false,
    inputDtype: aDtype,
    bDtype,
    scales: { a: fusion.inputs.indexOf(gemm.scale1()), b: fusion.inputs.indexOf(gemm.scale2()) },
    grouped: null,
    a: layout.a,
    b: layout.b,
    d: { output: 0, dtype: out.dtype, ld: layout.d.ld, batchStride: 0 },
    epilogue: { kind: bias === null ? 'DEFAULT' : 'BIAS', bias, aux: null, c: null, auxInput: null, biasGradient: null },
    fused: [`per-tensor scales ${tvName(gemm.scale1())}, ${tvName(gemm.scale2())}`, ...(biasTv === null ? [] : [`bias ${tvName(biasTv)}`])],
  };
  return { ok: true, params };
}
