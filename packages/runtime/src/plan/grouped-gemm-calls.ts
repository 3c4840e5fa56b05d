// grouped_mm with offsets as per-group cuBLASLt calls: the offsets (Int32 cumulative group ends)
// are read back from the device first (one host sync, as PyTorch's per-group fallback does),
// checked as the reference evaluator checks them (non-decreasing, at most the cut dim's extent),
// and each non-empty group becomes one call on sub-matrices of the operands read in place: its
// pointers moved along the cut dim and the group dim by the params' element strides, the cut
// dim's extent the group's. Output no group covers is zeroed (the reference's value; PyTorch
// leaves it uninitialized): the rows after the last offset (M cut), the whole output before the
// calls when columns stay uncovered (N cut), an empty group's [M, N] block (K cut).
// Invariant: every call is the params' group-0 descriptor with only pointers and the cut
// extent changed, so the layouts the scheduler accepted are the layouts cuBLASLt reads.

import type { GemmCall, GemmDescriptor, GemmMatrix } from '@tsfuser/device';
import type { GemmOperandDtype, GroupedMmLayout } from '@tsfuser/scheduler';
import { ExecutorInputError } from '../errors.js';
import type { GemmBuffer, GemmRunner, LibraryCallSegment } from './library-call-segment.js';

const ELEMENT_BYTES: Record<GemmOperandDtype, number> = { Float: 4, BFloat16: 2, Half: 2, Float8_e4m3fn: 1, Float8_e5m2: 1 };

/** Group g's [start, end) along the cut dim, checked. */
function groupBounds(where: string, offsets: Int32Array, extent: number): [number, number][] {
  let previous = 0;
  return Array.from(offsets, (end, g) => {
    if (end < previous || end > extent) {
      throw new ExecutorInputError(`${where}: offsets[${g}] = ${end} must be non-decreasing and at most ${extent} (the dim that the offsets cut)`);
    }
    const r: [number, number] = [previous, end];
    previous = end;
    return r;
  });
}

/** `m` moved by `elements` and with its stored rows / cols along the cut dim set to `extent` (when cut). */
function moved(m: GemmMatrix, elements: number, cutsRows: boolean | null, extent: number): GemmMatrix {
  const pointer = m.pointer + BigInt(elements * ELEMENT_BYTES[m.dtype]);
  if (cutsRows === null) return { ...m, pointer };
  // The cut dim is op(X)'s rows or cols; a transposed operand stores it the other way round.
  const storedRows = cutsRows !== (m.transposed === true);
  return storedRows ? { ...m, pointer, rows: extent } : { ...m, pointer, cols: extent };
}

/** Runs the segment's groups (see the header); returns the last call's record, with the total shape. */
export function runGroupedCalls(
  segment: LibraryCallSegment,
  grouped: GroupedMmLayout,
  desc: GemmDescriptor,
  inputs: readonly GemmBuffer[],
  gemm: GemmRunner,
  options: { stream?: bigint },
): GemmCall {
  const where = `segment ${segment.groupId} (grouped_mm)`;
  const zero = gemm.zero?.bind(gemm);
  if (gemm.readInt32 === undefined || zero === undefined) throw new ExecutorInputError(`${where}: this GEMM library cannot read the offsets back from the device`);
  const offsetsBuffer = inputs[grouped.offsets];
  if (offsetsBuffer === undefined) throw new Error(`${where}: the offsets (input ${grouped.offsets}) have no buffer`);
  const offsets = gemm.readInt32(offsetsBuffer.dataPtr, grouped.groups);
  const bounds = groupBounds(where, offsets, grouped.extent);
  const p = segment.params;
  const dBytes = ELEMENT_BYTES[p.d.dtype];
  const dAt = (elements: number): bigint => desc.d.pointer + BigInt(elements * dBytes);
  const last = bounds.length === 0 ? 0 : (bounds[bounds.length - 1] as [number, number])[1];
  if (grouped.cut === 'M' && last < grouped.extent) zero(dAt(last * p.n), (grouped.extent - last) * p.n * dBytes);
  if (grouped.cut === 'N' && last < grouped.extent) zero(desc.d.pointer, p.m * p.n * dBytes);
  let record: GemmCall | null = null;
  bounds.forEach(([start, end], g) => {
    const extent = end - start;
    if (extent === 0) {
      if (grouped.cut === 'K') zero(dAt(g * grouped.d.groupStride), p.m * p.n * dBytes);
      return;
    }
    // M cuts op(A)'s rows and D's rows; N cuts op(B)'s cols and D's cols; K cuts op(A)'s cols and op(B)'s rows.
    const a = moved(desc.a, start * grouped.a.cutStride + g * grouped.a.groupStride, grouped.cut === 'M' ? true : grouped.cut === 'K' ? false : null, extent);
    const b = moved(desc.b, start * grouped.b.cutStride + g * grouped.b.groupStride, grouped.cut === 'N' ? false : grouped.cut === 'K' ? true : null, extent);
    const d: GemmMatrix = {
      ...desc.d,
      pointer: dAt(start * grouped.d.cutStride + g * grouped.d.groupStride),
      rows: grouped.cut === 'M' ? extent : p.m,
      cols: grouped.cut === 'N' ? extent : p.n,
    };
    record = gemm.matmul({ ...desc, a, b, d }, options);
  });
  const total = { m: p.m, n: p.n, k: p.k, batch: grouped.groups };
  return record === null ? { cachedAlgorithm: true, workspaceBytes: 0, ...total } : { ...(record as GemmCall), ...total };
}
