// Persistent buffers (after nvFuser's scheduler_utils::persistentBuffers / persistentBufferSize
// and the inner persistent scheduler's budget). A tensor is a persistent buffer of a reduction R
// when R consumes it (directly or through pointwise work) and it is also needed after R, joined
// with R's result: `x - mean(x)` keeps x alive across the reduction. One kernel can do that only
// by keeping each row's buffer on chip (registers or shared memory) — the normalization
// schedulers' job; the plain reduction scheduler refuses such fusions.
//
// Bytes are per reduction row (the buffer's dims that map to R's reduced dims × dtype size),
// summed over buffers; the projected size counts instead the fusion inputs the buffers are
// recomputed from (nvFuser projects buffers to inputs when that is smaller: a bf16 input rather
// than its fp32 cast; recomputing through a reduction's broadcast result is allowed because
// that result is per row). The budget is nvFuser's: the larger of half the register file of an
// SM and the opt-in shared memory of a block less its reserved part and one reduction
// workspace. Pure reads.

import { dataTypeSize, type Fusion, type IterDomain, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from '../analysis/domain-map.js';
import { bindExtents, evaluateExtent, type SchedulerDevice, type ExtentBindings, type RuntimeInfo } from '../runtime-info.js';
import { downstreamTvs, tensorInputs, tensorOutputs, tvName, upstreamTvs } from '../segmentation/fusion-graph.js';
import { reductionInfos, type ReductionInfo } from '../segmentation/reduction-pattern.js';

/** 64K 32-bit registers per SM on every architecture tsfuser targets. */
export const REGISTER_FILE_BYTES = 64 * 1024 * 4;
/**
 * Opt-in shared memory per block and the part the driver reserves (H100/H200; SchedulerDevice
 * does not carry these yet).
 */
export const SHARED_MEMORY_PER_BLOCK_OPTIN = 227 * 1024;
export const RESERVED_SHARED_MEMORY_PER_BLOCK = 1024;

export interface PersistentBuffer {
  tv: TensorView;
  /** The reduction it lives across. */
  reduction: ReductionInfo;
  /** A use of `tv` after the reduction (the expression joining it with the result). */
  joinedBy: TensorView;
}

/** The persistent buffers of the fusion's reductions (each tensor once, first reduction wins). */
export function persistentBuffers(fusion: Fusion): PersistentBuffer[] {
  const out: PersistentBuffer[] = [];
  const seen = new Set<TensorView>();
  const live = new Set(fusion.exprs());
  for (const r of reductionInfos(fusion)) {
    const results = new Set<Val>(tensorOutputs(r.expr));
    for (const o of tensorOutputs(r.expr)) for (const d of downstreamTvs(fusion, o)) results.add(d);
    const before = new Set<TensorView>();
    for (const i of tensorInputs(r.expr)) {
      before.add(i);
      for (const u of upstreamTvs(i)) before.add(u);
    }
    for (const t of [...before].sort((a, b) => a.name - b.name)) {
      if (seen.has(t)) continue;
      const joinedBy = joinAfterReduction(t, r, before, results, live);
      if (joinedBy === null) continue;
      seen.add(t);
      out.push({ tv: t, reduction: r, joinedBy });
    }
  }
  return out;
}

/**
 * Walks forward from `t` through expressions that neither are the reduction nor feed it; the
 * first one that also reads the reduction's result (or something computed from it) is where
 * `t` must still be alive. Returns that expression's output, or null.
 */
function joinAfterReduction(t: TensorView, r: ReductionInfo, before: ReadonlySet<TensorView>, results: ReadonlySet<Val>, live: ReadonlySet<unknown>): TensorView | null {
  const stack: TensorView[] = [t];
  const seen = new Set<TensorView>();
  while (stack.length > 0) {
    const v = stack.pop() as TensorView;
    if (seen.has(v)) continue;
    seen.add(v);
    for (const u of v.uses) {
      if (!live.has(u) || u === r.expr) continue;
      const outs = tensorOutputs(u);
      if (outs.some((o) => before.has(o))) continue;
      if (u.inputs.some((i) => results.has(i))) return outs[0] ?? null;
      stack.push(...outs.filter((o) => !results.has(o)));
    }
  }
  return null;
}

export interface PersistentBufferSize {
  buffers: PersistentBuffer[];
  /** Per-row bytes of the buffers as they are. */
  bufferBytes: number;
  /** Per-row bytes when recomputed from the fusion inputs they come from (0: no buffers). */
  projectedBytes: number;
  /** The smaller of the two (what a persistent kernel keeps on chip). */
  bytes: number;
  /** Largest dtype among the buffers (sizes the reduction workspace). */
  maxDtypeBytes: number;
}

function rowBytes(tv: TensorView, r: ReductionInfo, map: ExactLogicalMap, bindings: ExtentBindings): number {
  const reduced: IterDomain[] = r.tv.domain.logical.filter((id) => id.isReduction());
  let elements = 1;
  for (const id of tv.domain.logicalNoReductions()) {
    if (id.isBroadcast() || !reduced.some((x) => map.same(x, id))) continue;
    elements *= evaluateExtent(id.extent, bindings);
  }
  return elements * dataTypeSize(tv.dtype);
}

/**
 * Per-row persistent buffer bytes of the fusion for the sizes in `runtimeInfo`; `bindingsOf`: its
 * extent bindings (HeuristicDataCache.bindings, the one binding; read only when there are buffers).
 */
export function persistentBufferBytes(fusion: Fusion, runtimeInfo: RuntimeInfo, bindingsOf: () => ExtentBindings = () => bindExtents(fusion, runtimeInfo)): PersistentBufferSize {
  const buffers = persistentBuffers(fusion);
  if (buffers.length === 0) return { buffers, bufferBytes: 0, projectedBytes: 0, bytes: 0, maxDtypeBytes: 1 };
  const bindings = bindingsOf();
  const map = new ExactLogicalMap(fusion);
  let bufferBytes = 0;
  let maxDtypeBytes = 1;
  const projected = new Map<TensorView, number>();
  for (const b of buffers) {
    bufferBytes += rowBytes(b.tv, b.reduction, map, bindings);
    maxDtypeBytes = Math.max(maxDtypeBytes, dataTypeSize(b.tv.dtype));
    const sources = [b.tv, ...upstreamTvs(b.tv)].filter((t) => t.isFusionInput());
    for (const s of sources) {
      // Inputs without the reduced dims (a weight, a bias) are re-read per element, not kept.
      const spansRow = s.domain.logicalNoReductions().some((id) => !id.isBroadcast() && b.reduction.tv.domain.logical.some((x) => x.isReduction() && map.same(x, id)));
      if (spansRow) projected.set(s, Math.max(projected.get(s) ?? 0, rowBytes(s, b.reduction, map, bindings)));
    }
  }
  const projectedBytes = [...projected.values()].reduce((a, b) => a + b, 0);
  const bytes = projectedBytes > 0 ? Math.min(bufferBytes, projectedBytes) : bufferBytes;
  return { buffers, bufferBytes, projectedBytes, bytes, maxDtypeBytes };
}

/** nvFuser's available persistent buffer size for one row: registers or shared memory. */
export function persistentBufferBudget(device: SchedulerDevice, maxDtypeBytes: number): number {
  const registers = REGISTER_FILE_BYTES / 2;
  const shared = SHARED_MEMORY_PER_BLOCK_OPTIN - RESERVED_SHARED_MEMORY_PER_BLOCK - device.maxThreadsPerBlock * maxDtypeBytes;
  return Math.max(registers, shared);
}

/** "T3 (joined again in T16)" — how reasons name persistent buffers. */
export function describeBuffers(buffers: readonly PersistentBuffer[]): string {
  return buffers.map((b) => `${tvName(b.tv)} (read by the reduction ${tvName(b.reduction.tv)} and again by ${tvName(b.joinedBy)})`).join(', ');
}
