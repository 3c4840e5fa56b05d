// The GEMM segment of a grouped_mm (torch._grouped_mm, the MoE layers' product): 3d × 3d (no
// offsets) is one batched cuBLASLt call, like a bmm; with offsets (Int32 cumulative group ends)
// the groups are per-group cuBLASLt calls over sub-matrices of the operands read in place —
// rows of mat1 for 2d × 3d (M cut), columns of mat2 for 3d × 2d (N cut), a K range of both for
// 2d × 2d (K cut, one [M, N] output per group). The offsets' values are only known on the
// device, so the runtime reads them back first (a host sync, as PyTorch's per-group fallback
// does); these parameters state, for each operand, the element strides that move along the cut
// dim and along the groups, so the runtime computes each call's pointers and extents from an
// offset and nothing else. The segment is the grouped_mm alone (a cast or activation after it
// runs in a generated kernel).
// Invariant: an accepted segment reads every operand in place (no copy; a layout cuBLASLt
// cannot express is a refusal); sizes PyTorch refuses are a GemmShapeError with its message.

import type { Fusion, GroupedMmaOp, TensorView } from '@tsfuser/fusion-ir';
import type { RuntimeInfo, TensorInputInfo } from '../runtime-info.js';
import { tensorExprs, tvName } from '../segmentation/fusion-graph.js';
import type { MatmulSegmentAnalysis } from './segment-analysis.js';
import { planGemmLayout, type GemmLayout } from './operand-layout.js';
import type { GroupedMmLayout, MatmulDtype, MatmulParams } from './params.js';
import { GemmShapeError } from './shape-error.js';

type Refusal = { ok: false; reason: string };
const refuse = (reason: string): Refusal => ({ ok: false, reason });

function isMatmulDtype(dtype: string): dtype is MatmulDtype {
  return dtype === 'Float' || dtype === 'BFloat16' || dtype === 'Half';
}

function tensorInfo(info: RuntimeInfo, fusion: Fusion, tv: TensorView): TensorInputInfo | string {
  const input = fusion.inputs.indexOf(tv);
  if (input < 0) return `${tvName(tv)} is computed in the segment: the grouped GEMM reads its operands and offsets as they are (a generated kernel before it computes ${tvName(tv)})`;
  const i = info.inputs[input];
  if (i === undefined || i.kind !== 'tensor') return `runtime info has no tensor layout for ${tvName(tv)} (input ${input})`;
  return i;
}

function onlyGroupedMm(fusion: Fusion): GroupedMmaOp | Refusal {
  const exprs = tensorExprs(fusion);
  const gemm = exprs.find((e): e is GroupedMmaOp => e.kind === 'GroupedMmaOp');
  if (gemm === undefined) return refuse('no grouped_mm in the segment');
  const other = exprs.find((e) => e !== gemm);
  if (other !== undefined) {
    return refuse(`a grouped_mm segment is the grouped_mm alone: ${other.kind} producing ${other.outputs.map(tvName).join(', ')} runs in a generated kernel ${other.inputs.includes(gemm.out()) ? 'after' : 'beside'} it`);
  }
  if (fusion.outputs.length !== 1 || fusion.outputs[0] !== gemm.out()) return refuse(`the grouped_mm's result ${tvName(gemm.out())} must be the segment's one output`);
  return gemm;
}

/** An operand as a matrix of `sizes` with `strides` (a slice of the real tensor's dims). */
const part = (input: number, t: TensorInputInfo, dims: readonly number[]): { input: number; sizes: number[]; strides: number[] } => ({
  input,
  sizes: dims.map((d) => t.sizes[d] as number),
  strides: dims.map((d) => t.strides[d] as number),
});

/** The GEMM segment's parameters of a lone grouped_mm under `info` (see the header). */
export function analyzeGroupedMmSegment(fusion: Fusion, info: RuntimeInfo): MatmulSegmentAnalysis {
  const gemm = onlyGroupedMm(fusion);
  if ('ok' in gemm) return gemm;
  const out = gemm.out();
  const name = tvName(out);
  const where = `grouped_mm producing ${name}`;
  const a = tensorInfo(info, fusion, gemm.matrix1());
  const b = tensorInfo(info, fusion, gemm.matrix2());
  if (typeof a === 'string') return refuse(a);
  if (typeof b === 'string') return refuse(b);
  const dtype = gemm.matrix1().dtype;
  if (!isMatmulDtype(dtype)) return refuse(`${where}: ${dtype} GEMMs do not run on cuBLASLt here (Float, BFloat16 and Half do)`);
  if (!isMatmulDtype(out.dtype) || (out.dtype !== dtype && out.dtype !== 'Float')) return refuse(`${where} writes ${out.dtype}: cuBLASLt writes a ${dtype} GEMM as ${dtype} or Float`);
  const [ia, ib] = [fusion.inputs.indexOf(gemm.matrix1()), fusion.inputs.indexOf(gemm.matrix2())];
  const ra = a.sizes.length;
  const rb = b.sizes.length;
  if ((a.sizes[ra - 1] as number) !== (b.sizes[rb - 2] as number)) throw new GemmShapeError(`${where}: contraction dimension of mat_a and mat_b must match`);
  const offsetsTv = gemm.offsets();
  let layout: GemmLayout;
  let grouped: GroupedMmLayout | null = null;
  if (offsetsTv === null) {
    if (a.sizes[0] !== b.sizes[0]) throw new GemmShapeError(`${where}: matrix batch sizes have to match`);
    layout = planGemmLayout('matmulA', part(ia, a, [0, 1, 2]), 'matmulB', part(ib, b, [0, 1, 2]));
  } else {
    const o = tensorInfo(info, fusion, offsetsTv);
    if (typeof o === 'string') return refuse(o);
    const groups = o.sizes[0] ?? 0;
    if (groups > 1 && o.strides[0] !== 1) return refuse(`the offsets ${tvName(offsetsTv)} have stride ${o.strides[0] ?? 0}: read back as one contiguous Int32 vector`);
    const g3 = ra === 3 ? a.sizes[0] : rb === 3 ? b.sizes[0] : groups;
    if (g3 !== groups) throw new GemmShapeError(`${where}: matrix batch sizes have to match`);
    const stride = (t: TensorInputInfo, d: number): number => t.strides[d] as number;
    if (ra === 2 && rb === 3) {
      layout = planGemmLayout('matmulA', part(ia, a, [0, 1]), 'matmulB', part(ib, b, [1, 2]));
      grouped = { cut: 'M', offsets: fusion.inputs.indexOf(offsetsTv), groups, extent: a.sizes[0] as number, a: { cutStride: stride(a, 0), groupStride: 0 }, b: { cutStride: 0, groupStride: stride(b, 0) }, d: { cutStride: layout.n, groupStride: 0 } };
    } else if (ra === 3 && rb === 2) {
      layout = planGemmLayout('matmulA', part(ia, a, [1, 2]), 'matmulB', part(ib, b, [0, 1]));
      grouped = { cut: 'N', offsets: fusion.inputs.indexOf(offsetsTv), groups, extent: b.sizes[1] as number, a: { cutStride: 0, groupStride: stride(a, 0) }, b: { cutStride: stride(b, 1), groupStride: 0 }, d: { cutStride: 1, groupStride: 0 } };
    } else {
      layout = planGemmLayout('matmulA', part(ia, a, [0, 1]), 'matmulB', part(ib, b, [0, 1]));
      grouped = { cut: 'K', offsets: fusion.inputs.indexOf(offsetsTv), groups, extent: a.sizes[1] as number, a: { cutStride: stride(a, 1), groupStride: 0 }, b: { cutStride: stride(b, 0), groupStride: 0 }, d: { cutStride: 0, groupStride: layout.m * layout.n } };
    }
  }
  for (const [what, o, tv] of [['mat1', layout.a, gemm.matrix1()], ['mat2', layout.b, gemm.matrix2()]] as const) {
    if (o.copy !== null) return refuse(`${what} ${tvName(tv)} of ${name} cannot be read in place (${o.copy.reason}): the grouped GEMM reads its operands in place`);
  }
  if (layout.m === 0 || layout.n === 0 || layout.k === 0 || layout.batch === 0) return refuse(`${name} is empty (m ${layout.m}, n ${layout.n}, k ${layout.k}): nothing to call cuBLASLt for`);
  const params: MatmulParams = {
    schedulerType: 'matmul',
    tag: '',
    op: 'grouped_mm',
    m: layout.m,
    n: layout.n,
    k: layout.k,
    batch: layout.batch,
    foldedBatch: layout.foldedBatch,
    inputDtype: dtype,
    bDtype: dtype,
    scales: null,
    grouped,
    a: layout.a,
    b: layout.b,
    d: { output: 0, dtype: out.dtype, ld: layout.d.ld, batchStride: layout.d.batchStride },
    epilogue: { kind: 'DEFAULT', bias: null, aux: null, c: null, auxInput: null, biasGradient: null },
    fused: [],
  };
  return { ok: true, params };
}
