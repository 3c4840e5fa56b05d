// What a GEMM runs as when cublasLtMatmulAlgoGetHeuristic returns no algorithm for its epilogue
// on this device (some layouts / dtypes of BGRADA, BGRADB, D*_BGRAD, the _AUX forms …): the plain
// GEMM (or a simpler epilogue) first, then the rest of the epilogue as further cuBLASLt calls
// that every configuration has — so the library needs no generated kernel:
//   - BGRADA / BGRADB (Σₖ op(A), m entries / Σₖ op(B), n entries): the GEMM without it, then the
//     bias gradient as onesᵀ·op(A)ᵀ ([1×k]·[k×m]) or onesᵀ·op(B) ([1×k]·[k×n]);
//   - DRELU_BGRAD / DGELU_BGRAD: the DRELU / DGELU GEMM, then Σ over D's m rows of the stored D
//     as onesᵀ·D ([1×m]·[m×n], batched with the bias gradient's batch stride);
//   - BIAS / RELU_BIAS / GELU_BIAS, RELU / GELU, DRELU / DGELU: the GEMM without its epilogue, then
//     a rank-1 pass over D in place: D = act(ones[m×1]·bias[1×n] + D) (no bias: alpha 0, so the
//     product of two ones vectors adds nothing), DRELU / DGELU reading their aux there;
//   - GELU_AUX / GELU_AUX_BIAS: the GEMM with DEFAULT / BIAS into the aux matrix (the
//     pre-activation, D's dtype and shape at the aux's ld), then D = gelu(aux) as a rank-1 pass
//     with C = aux;
//   - refused, with the reason: DEFAULT (nothing to split off), RELU_AUX / RELU_AUX_BIAS (only
//     that epilogue writes a ReLU bit mask), an fp8 D (it cannot be the C of a later pass), a
//     bias or aux in another dtype than D (the pass's C and inputs share D's), a batched bias
//     gradient with overlapping vectors.
// Rounding: a 16-bit D is rounded after the plain GEMM and again after the pass, as cuBLASLt's
// GELU and _AUX epilogues round it (device README); BIAS / RELU_BIAS gain that one rounding of the
// GEMM result, GELU_BIAS one of round(acc) + bias before the GELU (the pass's GELU epilogue rounds
// its own GEMM result; H200, call4-h3-gemm-fallbacks.log), and GELU_AUX_BIAS's aux is
// round(acc + bias) where cuBLASLt stores round(round(acc) + bias).
// Invariant: the steps compute the descriptor's documented result (gemm-descriptor.ts) up to
// that rounding; `fallbackForm` depends only on what the heuristic sees (epilogue, dtypes,
// batch), so the library decides it once per heuristic key; the steps are rebuilt per call from
// the call's pointers, and every step is a valid descriptor of an epilogue listed above as a
// step (none of them falls back again).

import type { GemmDescriptor, GemmDtype, GemmEpilogue, GemmEpilogueKind, GemmMatrix } from './gemm-descriptor.js';
import { isFloat8, type GemmShape } from './validate-gemm.js';

/** The device buffers the fallback steps read (the library owns them). */
export interface GemmFallbackResources {
  /** A device vector of at least `count` ones in `dtype`. */
  ones(dtype: GemmDtype, count: number): bigint;
}

/** The decision for one heuristic key: which composition runs, or why none can. */
export type GemmFallbackForm =
  | { ok: true; epilogue: GemmEpilogueKind; summary: string }
  | { ok: false; epilogue: GemmEpilogueKind; reason: string };

const refuse = (epilogue: GemmEpilogueKind, reason: string): GemmFallbackForm => ({ ok: false, epilogue, reason });
const form = (epilogue: GemmEpilogueKind, summary: string): GemmFallbackForm => ({ ok: true, epilogue, summary });

/** The activation a rank-1 pass applies for a forward epilogue (its bias is the pass's B). */
function passEpilogue(kind: 'BIAS' | 'RELU_BIAS' | 'GELU_BIAS' | 'RELU' | 'GELU'): 'DEFAULT' | 'RELU' | 'GELU' {
  switch (kind) {
    case 'BIAS':
      return 'DEFAULT';
    case 'RELU':
    case 'RELU_BIAS':
      return 'RELU';
    case 'GELU':
    case 'GELU_BIAS':
      return 'GELU';
    default: {
      const never: never = kind;
      throw new Error(`no rank-1 pass for ${String(never)}`);
    }
  }
}

/** Which composition replaces `desc`'s epilogue (see the header), decided from what the heuristic sees. */
export function fallbackForm(desc: GemmDescriptor, shape: GemmShape): GemmFallbackForm {
  const e = desc.epilogue ?? { kind: 'DEFAULT' };
  const d = desc.d.dtype;
  if (isFloat8(d)) return refuse(e.kind, `an fp8 D (${d}) cannot be read back as the C of a second cuBLASLt pass`);
  switch (e.kind) {
    case 'DEFAULT':
      return refuse(e.kind, 'the plain GEMM has no epilogue to split off');
    case 'RELU_AUX':
    case 'RELU_AUX_BIAS':
      return refuse(e.kind, `only ${e.kind} itself writes the ReLU bit mask its aux holds`);
    case 'BGRADA':
      return form(e.kind, `DEFAULT GEMM, then the bias gradient Σₖ op(A) as onesᵀ·op(A)ᵀ (1×${shape.m}, k ${shape.k})`);
    case 'BGRADB':
      return form(e.kind, `DEFAULT GEMM, then the bias gradient Σₖ op(B) as onesᵀ·op(B) (1×${shape.n}, k ${shape.k})`);
    case 'DRELU_BGRAD':
    case 'DGELU_BGRAD': {
      const stride = e.biasGradient.batchStride ?? 0;
      if (shape.batch > 1 && stride < shape.n) return refuse(e.kind, `the batch's bias gradients overlap (batch stride ${stride} < n = ${shape.n})`);
      return form(e.kind, `${e.kind === 'DRELU_BGRAD' ? 'DRELU' : 'DGELU'} GEMM, then the bias gradient Σ over D's ${shape.m} rows as onesᵀ·D (1×${shape.n}, k ${shape.m})`);
    }
    case 'BIAS':
    case 'RELU_BIAS':
    case 'GELU_BIAS':
      if (e.bias.dtype !== d) return refuse(e.kind, `the ${e.bias.dtype} bias is not D's ${d}, so a rank-1 pass over D cannot add it`);
      return form(e.kind, `DEFAULT GEMM, then D = ${passEpilogue(e.kind)}(ones·bias + D) (rank-1 pass, in place)`);
    case 'RELU':
    case 'GELU':
    case 'DRELU':
    case 'DGELU':
      return form(e.kind, `DEFAULT GEMM, then D = ${e.kind}(D) (rank-1 pass, in place)`);
    case 'GELU_AUX':
    case 'GELU_AUX_BIAS':
      if ((e.aux.dtype ?? d) !== d) return refuse(e.kind, `the ${e.aux.dtype ?? d} aux is not D's ${d}, so it cannot be the C of the GELU pass`);
      if (e.kind === 'GELU_AUX_BIAS' && e.bias.dtype !== d) return refuse(e.kind, `the ${e.bias.dtype} bias is not D's ${d}`);
      return form(e.kind, `${e.kind === 'GELU_AUX' ? 'DEFAULT' : 'BIAS'} GEMM into the aux (the pre-activation), then D = GELU(aux) (rank-1 pass, C = aux)`);
    default: {
      const never: never = e;
      throw new Error(`unknown epilogue ${(never as { kind: string }).kind}`);
    }
  }
}

/** A row vector [1×count] of ones (broadcast over any batch). */
function onesRow(resources: GemmFallbackResources, dtype: GemmDtype, count: number): GemmMatrix {
  return { pointer: resources.ones(dtype, count), dtype, rows: 1, cols: count, ld: count };
}

/** A column [count×1] of ones: the row stored once, read transposed (a pitch of `count`, not 1). */
function onesColumn(resources: GemmFallbackResources, dtype: GemmDtype, count: number): GemmMatrix {
  return { ...onesRow(resources, dtype, count), transposed: true };
}

/** `matrix` without its batch (BGRADA / BGRADB GEMMs have none). */
function single(matrix: GemmMatrix): GemmMatrix {
  const { batchCount: _count, batchStride: _stride, ...rest } = matrix;
  return rest;
}

/**
 * The rank-1 pass D = epilogue(alpha · ones[m×1] · row[1×n] + 1 · C) over D's layout; C
 * defaults to D itself (in place). alpha 0 adds nothing (no bias: row is ones).
 */
function rankOnePass(desc: GemmDescriptor, shape: GemmShape, resources: GemmFallbackResources, row: GemmMatrix, alpha: number, epilogue: GemmEpilogue, c?: GemmMatrix): GemmDescriptor {
  const pass: GemmDescriptor = { a: onesColumn(resources, row.dtype, shape.m), b: row, d: desc.d, alpha, beta: 1, epilogue };
  if (c !== undefined) pass.c = c;
  return pass;
}

/**
 * The cuBLASLt calls that replace `desc` under `chosen` (fallbackForm's decision for its key), in
 * stream order. Throws when `chosen` refused (the library reports that refusal instead).
 */
export function fallbackSteps(desc: GemmDescriptor, shape: GemmShape, chosen: GemmFallbackForm, resources: GemmFallbackResources): GemmDescriptor[] {
  if (!chosen.ok) throw new Error(`no fallback for ${chosen.epilogue}: ${chosen.reason}`);
  const e = desc.epilogue ?? { kind: 'DEFAULT' };
  const plain: GemmDescriptor = { ...desc, epilogue: { kind: 'DEFAULT' } };
  const d = desc.d.dtype;
  const unitRow = (): GemmMatrix => onesRow(resources, d, shape.n);
  switch (e.kind) {
    case 'BGRADA': {
      // Σₖ op(A)[i, k] for each of the m rows: onesᵀ [1×k] · op(A)ᵀ [k×m]
      const opAT: GemmMatrix = { ...single(desc.a), transposed: desc.a.transposed !== true };
      const g = e.biasGradient;
      return [plain, { a: onesRow(resources, desc.a.dtype, shape.k), b: opAT, d: { pointer: g.pointer, dtype: g.dtype, rows: 1, cols: shape.m, ld: shape.m } }];
    }
    case 'BGRADB': {
      const g = e.biasGradient;
      return [plain, { a: onesRow(resources, desc.b.dtype, shape.k), b: single(desc.b), d: { pointer: g.pointer, dtype: g.dtype, rows: 1, cols: shape.n, ld: shape.n } }];
    }
    case 'DRELU_BGRAD':
    case 'DGELU_BGRAD': {
      const g = e.biasGradient;
      const main: GemmDescriptor = { ...desc, epilogue: { kind: e.kind === 'DRELU_BGRAD' ? 'DRELU' : 'DGELU', aux: e.aux } };
      const batched = shape.batch > 1;
      const sum: GemmDescriptor = {
        a: onesRow(resources, d, shape.m),
        b: desc.d,
        d: { pointer: g.pointer, dtype: g.dtype, rows: 1, cols: shape.n, ld: shape.n, ...(batched ? { batchCount: shape.batch, batchStride: g.batchStride ?? 0 } : {}) },
      };
      return [main, sum];
    }
    case 'BIAS':
    case 'RELU_BIAS':
    case 'GELU_BIAS': {
      const bias = e.bias;
      const stride = bias.batchStride ?? 0;
      const row: GemmMatrix = { pointer: bias.pointer, dtype: bias.dtype, rows: 1, cols: shape.n, ld: shape.n, ...(shape.batch > 1 && stride > 0 ? { batchCount: shape.batch, batchStride: stride } : {}) };
      return [plain, rankOnePass(desc, shape, resources, row, 1, { kind: passEpilogue(e.kind) })];
    }
    case 'RELU':
    case 'GELU':
      return [plain, rankOnePass(desc, shape, resources, unitRow(), 0, { kind: passEpilogue(e.kind) })];
    case 'DRELU':
    case 'DGELU':
      return [plain, rankOnePass(desc, shape, resources, unitRow(), 0, { kind: e.kind, aux: e.aux })];
    case 'GELU_AUX':
    case 'GELU_AUX_BIAS': {
      const aux = e.aux;
      const preActivation: GemmMatrix = {
        pointer: aux.pointer,
        dtype: d,
        rows: shape.m,
        cols: shape.n,
        ld: aux.ld,
        ...(shape.batch > 1 ? { batchCount: shape.batch, batchStride: aux.batchStride ?? 0 } : {}),
      };
      // D's old values stay C when beta accumulates them (C defaults to D, which is the aux here)
      const c = desc.c ?? ((desc.beta ?? 0) !== 0 ? desc.d : undefined);
      const first: GemmDescriptor = { ...desc, d: preActivation, epilogue: e.kind === 'GELU_AUX_BIAS' ? { kind: 'BIAS', bias: e.bias } : { kind: 'DEFAULT' } };
      if (c !== undefined) first.c = c;
      return [first, rankOnePass(desc, shape, resources, unitRow(), 0, { kind: 'GELU' }, preActivation)];
    }
    case 'DEFAULT':
    case 'RELU_AUX':
    case 'RELU_AUX_BIAS':
      throw new Error(`no fallback for ${e.kind}`);
    default: {
      const never: never = e;
      throw new Error(`unknown epilogue ${(never as { kind: string }).kind}`);
    }
  }
}
