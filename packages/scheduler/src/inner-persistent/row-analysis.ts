// The row analysis of an inner persistent fusion: its first reduction's row shape (R elements,
// I rows), which inputs hold full rows, row parameters (weight, bias) or rows through
// reshapes, the row's vector width (the widest vector dividing R, every outer stride and the
// pointer alignment of those inputs, within maxVectorBytes) and the register bytes each row
// element costs in the persistent buffers. Both the acceptance (launch-bounds.ts) and the
// heuristics read it; the row fit is memoized per (fusion, runtime info, max vector bytes) in
// the HeuristicDataCache, so it is computed once for a segment.
// Invariant: reads the fusion and the runtime info only (no launch is chosen here).

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { SchedulingError } from '../errors.js';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { ReshapeIndexGraph } from '../pointwise/reshape-index-graph.js';
import type { HeuristicDataCache } from '../heuristic-data-cache.js';
import { evaluateExtent, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import { persistentBuffers } from '../persistent/persistent-buffer.js';
import { rowVectorChoice, type VectorChoice } from '../persistent/row-vectorization.js';
import { hasResizeExprs } from '../pointwise/resize/index-space.js';
import { resizeRowVectorChoice } from '../persistent/resize-row-vectorization.js';

/** The first ReductionOp (or Welford avg) output: the pattern every reduction of the fusion shares. */
export function firstReduction(fusion: Fusion): TensorView {
  for (const e of fusion.exprs()) {
    if (e.kind !== 'ReductionOp' && e.kind !== 'WelfordOp') continue;
    const out = e.outputs[0];
    if (out !== undefined && out.kind === 'tensorView') return out;
  }
  throw new SchedulingError('inner persistent scheduler: the fusion has no reduction');
}

/** Merged row length and number of rows of a reduction tensor. */
export function rowShape(r: TensorView, bindings: ExtentBindings): { rowLength: number; rows: number } {
  let rowLength = 1;
  let rows = 1;
  for (const id of r.domain.logical) {
    if (id.isBroadcast()) continue;
    const n = evaluateExtent(id.extent, bindings);
    if (id.isReduction()) rowLength *= n;
    else rows *= n;
  }
  return { rowLength, rows };
}

/** Fusion tensors (inputs or outputs) whose innermost non-broadcast dim is the row's innermost dim (through resizes), full rank. */
export function rowTensors(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): Set<TensorView> {
  // Across a slice / pad / cat of the row, an input is read shifted along the same loops
  // (vectorized within resize-row-vectorization.ts's limit).
  const map = hasResizeExprs(fusion) ? new ExactLogicalMap(fusion, fusion.allTvs(), { throughResize: true }) : new ExactLogicalMap(fusion);
  const logical = r.domain.logical;
  const innermost = logical[logical.length - 1];
  const rank = logical.length;
  const out = new Set<TensorView>();
  if (innermost === undefined || !innermost.isReduction()) return out;
  for (const tv of tvs) {
    const dims = tv.domain.logicalNoReductions();
    const last = dims[dims.length - 1];
    if (dims.length !== rank || last === undefined || last.isBroadcast() || !map.same(last, innermost)) continue;
    out.add(tv);
  }
  return out;
}

/**
 * Fusion inputs read through reshapes into the row tensor (persistent-reshapes.ts): no broadcast
 * dims and every dim indexed from the reduction input through a view. Candidates for the row
 * vector when they hold all of the row tensor's elements (row-vectorization.ts checks the sizes).
 */
function reshapedRowInputs(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): Set<TensorView> {
  const out = new Set<TensorView>();
  const ref = r.definition?.inputs[0];
  if (ref === undefined || ref.kind !== 'tensorView' || !fusion.exprs().some((e) => e.kind === 'ViewOp')) return out;
  const map = new ExactLogicalMap(fusion);
  const graph = new ReshapeIndexGraph(fusion, ref);
  for (const tv of tvs) {
    const dims = tv.domain.logicalNoReductions();
    // A size-1 broadcast dim (the leading 1 of HuggingFace's reshape back to [1, H, S_q, S_k]) holds
    // no elements and adds nothing to the linear index; an expanded one is refused (not row-major).
    if (dims.length === 0 || dims.every((id) => id.isBroadcast()) || dims.some((id) => id.isBroadcast() && id.expandedExtent !== null)) continue;
    const real = dims.map((id) => !id.isBroadcast());
    const direct = map.mapToReference(tv, ref);
    if (direct.every((p, d) => !real[d] || p !== -1)) continue;
    if (graph.deriveLogical(tv).every((x, d) => !real[d] || x !== null)) out.add(tv);
  }
  return out;
}

/** Inputs over the row only (a weight or bias) whose innermost dim is the row's innermost dim. */
function rowParams(fusion: Fusion, r: TensorView, tvs: readonly TensorView[]): Set<TensorView> {
  const map = new ExactLogicalMap(fusion);
  const logical = r.domain.logical;
  const innermost = logical[logical.length - 1];
  const reduced = logical.filter((id) => id.isReduction());
  const out = new Set<TensorView>();
  if (innermost === undefined || !innermost.isReduction()) return out;
  for (const tv of tvs) {
    const dims = tv.domain.logicalNoReductions().filter((id) => !id.isBroadcast());
    const last = dims[dims.length - 1];
    if (last === undefined || !map.same(last, innermost)) continue;
    if (dims.every((id) => reduced.some((x) => map.same(x, id)))) out.add(tv);
  }
  return out;
}

/** The fusion's tensor inputs over full rows, those over the row only (weight, bias), and those read through reshapes. */
export interface RowInputs {
  rows: Set<TensorView>;
  params: Set<TensorView>;
  reshaped: Set<TensorView>;
}

export function rowInputs(fusion: Fusion, r: TensorView): RowInputs {
  const inputTvs = fusion.inputs.filter((v): v is TensorView => v.kind === 'tensorView');
  return { rows: rowTensors(fusion, r, inputTvs), params: rowParams(fusion, r, inputTvs), reshaped: reshapedRowInputs(fusion, r, inputTvs) };
}

/**
 * Outputs written through reshapes of the row (the row reshaped back to [B, S, H], or to
 * [1, H, S_q, S_k] with a size-1 broadcast dim): contiguous, holding all `numel` elements in the
 * row-major order of the row tensor (no permute in the fusion), each with its innermost
 * non-broadcast extent; loops-past-views.ts gives them the reference's loops.
 */
function reshapedRowOutputs(fusion: Fusion, r: TensorView, bindings: ExtentBindings, numel: number): Map<TensorView, number> {
  const out = new Map<TensorView, number>();
  if (fusion.exprs().some((e) => e.kind === 'LoadStoreOp' && e.permutation !== null)) return out;
  const outputTvs = fusion.outputs.filter((v): v is TensorView => v.kind === 'tensorView' && v.domain.allocation === null && !v.isFusionInput());
  for (const tv of reshapedRowInputs(fusion, r, outputTvs)) {
    let sizes: number[];
    try {
      // Size-1 broadcast dims aside: the innermost extent the vector must divide is the last real one.
      sizes = tv.domain
        .logicalNoReductions()
        .filter((id) => !id.isBroadcast())
        .map((id) => evaluateExtent(id.extent, bindings));
    } catch (err) {
      if (err instanceof SchedulingError) continue; // an extent not known here: stored as before
      throw err;
    }
    if (sizes.reduce((a, b) => a * b, 1) === numel) out.set(tv, sizes[sizes.length - 1] ?? 1);
  }
  return out;
}

export function vectorization(fusion: Fusion, runtimeInfo: RuntimeInfo, bindings: ExtentBindings, r: TensorView, inputs: RowInputs, rowLength: number, rows: number, maxVectorBytes: number): VectorChoice {
  const rowInputs = new Set([...inputs.rows, ...inputs.params, ...inputs.reshaped]);
  const outputTvs = fusion.outputs.filter((v): v is TensorView => v.kind === 'tensorView');
  const reshaped = { tvs: inputs.reshaped, numel: rowLength * rows };
  const reshapedOutputs = reshapedRowOutputs(fusion, r, bindings, rowLength * rows);
  const rowOutputs = new Set([...rowTensors(fusion, r, outputTvs), ...reshapedOutputs.keys()]);
  const choice = rowVectorChoice(fusion, runtimeInfo, rowInputs, rowOutputs, rowLength, maxVectorBytes, reshaped, [...reshapedOutputs.values()]);
  return resizeRowVectorChoice(fusion, bindings, r, choice);
}

/** Register bytes each row element costs across the persistent buffers (as computed, not projected). */
export function bytesPerRowElement(analysis: HeuristicDataCache, rowLength: number): number {
  if (persistentBuffers(analysis.fusion).length === 0 || rowLength === 0) return 4;
  const size = analysis.persistentBufferSize();
  return Math.max(1, size.bufferBytes / rowLength);
}

