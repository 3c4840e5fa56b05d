// Tensor-level loop transforms: split, merge, reorder of a TensorView's loop domain (nvFuser's
// TensorView::split/merge/reorder). Each creates IterDomain exprs (id-ops.ts) and replaces loop
// IDs; the logical domain never changes, so what the tensor computes never changes.
//
// Invariant kept: the loop IDs at positions below max(computeAtPosition, maxProducerPosition)
// are shared with other tensors' loops and are never touched — transforms there are refused.

import { TransformError } from '../ir/errors.js';
import type { IterDomain } from '../ir/iter-domain.js';
import type { Scalar } from '../ir/scalar.js';
import type { TensorView } from '../ir/tensor-view.js';
import { mergeIds, splitId, toFactor } from './id-ops.js';

/** Normalizes a loop axis (negative counts from the end) or throws naming the tensor. */
export function normalizeAxis(tv: TensorView, axis: number, op: string, size = tv.nDims()): number {
  if (!Number.isInteger(axis) || axis < -size || axis >= size) {
    throw new TransformError(`${op} of T${tv.name}: axis ${axis} is out of range for ${size} loop dims`);
  }
  return axis < 0 ? axis + size : axis;
}

/** The first loop position that scheduling may still change. */
export function maxComputePosition(tv: TensorView): number {
  return Math.max(tv.computeAtPosition, tv.maxProducerPosition);
}

function checkOutsideComputeAt(tv: TensorView, axis: number, op: string): void {
  if (axis < tv.computeAtPosition) {
    throw new TransformError(
      `${op} of T${tv.name}: axis ${axis} is inside the compute-at position ${tv.computeAtPosition}; transform before inlining`,
    );
  }
  if (axis < tv.maxProducerPosition) {
    throw new TransformError(
      `${op} of T${tv.name}: axis ${axis} is inside the producer position ${tv.maxProducerPosition} (a producer is inlined there)`,
    );
  }
}

/**
 * split(tv, axis, factor, innerSplit = true): loop ID `axis` becomes (outer, inner).
 * Inner split: inner extent = factor, outer = ceilDiv(extent, factor); outer split: reversed.
 */
export function split(tv: TensorView, axis: number, factor: number | Scalar, innerSplit = true): TensorView {
  const a = normalizeAxis(tv, axis, 'split');
  checkOutsideComputeAt(tv, a, 'split');
  const id = tv.axis(a);
  const f = toFactor(tv.fusion, factor, `split of T${tv.name} axis ${a}`);
  if (id.isBroadcast() && f.constNumber() !== 1) {
    throw new TransformError(
      `split of T${tv.name}: axis ${a} is a broadcast ID (${id.name}) and can only be split by 1, not ${f.constNumber() ?? f.symbolicName()}`,
    );
  }
  const [outer, inner] = splitId(id, f, innerSplit);
  tv.domain.loop.splice(a, 1, outer, inner);
  return tv;
}

/**
 * merge(tv, axisO, axisI = axisO + 1): replaces loop IDs axisO (outer) and axisI (inner) by one
 * ID placed at min(axisO, axisI), as nvFuser's TensorDomain::merge does.
 */
export function merge(tv: TensorView, axisO: number, axisI?: number): TensorView {
  const o = normalizeAxis(tv, axisO, 'merge');
  const i = normalizeAxis(tv, axisI ?? o + 1, 'merge');
  if (o === i) throw new TransformError(`merge of T${tv.name}: cannot merge axis ${o} with itself`);
  checkOutsideComputeAt(tv, Math.min(o, i), 'merge');
  const outer = tv.axis(o);
  const inner = tv.axis(i);
  const merged = mergeIds(outer, inner, {}, `merge of T${tv.name} axes ${o} and ${i}`);
  const loop = tv.domain.loop;
  loop.splice(Math.max(o, i), 1);
  loop.splice(Math.min(o, i), 1, merged);
  return tv;
}

export type ReorderMap = Readonly<Record<number, number>> | readonly (readonly [number, number])[];

/**
 * The full old→new permutation for a partial map (nvFuser's normalizeOld2New): the listed axes
 * go to their new positions, the others fill the free positions keeping their relative order.
 */
export function normalizeReorder(tv: TensorView, map: ReorderMap, size = tv.nDims()): number[] {
  const pairs: [number, number][] = Array.isArray(map)
    ? (map as readonly (readonly [number, number])[]).map(([a, b]) => [a, b])
    : Object.entries(map as Record<number, number>).map(([a, b]) => [Number(a), b]);
  const old2new = new Array<number>(size).fill(-1);
  const taken = new Array<boolean>(size).fill(false);
  for (const [oldRaw, newRaw] of pairs) {
    const oldAx = normalizeAxis(tv, oldRaw, 'reorder', size);
    const newAx = normalizeAxis(tv, newRaw, 'reorder', size);
    if (old2new[oldAx] !== -1) throw new TransformError(`reorder of T${tv.name}: axis ${oldRaw} is moved twice`);
    if (taken[newAx] === true) throw new TransformError(`reorder of T${tv.name}: two axes moved to position ${newRaw}`);
    old2new[oldAx] = newAx;
    taken[newAx] = true;
  }
  let free = 0;
  for (let d = 0; d < size; d += 1) {
    if (old2new[d] !== -1) continue;
    while (taken[free] === true) free += 1;
    old2new[d] = free;
    taken[free] = true;
  }
  return old2new;
}

/** reorder(tv, {old: new, …}) or reorder(tv, [[old, new], …]). */
export function reorder(tv: TensorView, map: ReorderMap): TensorView {
  const old2new = normalizeReorder(tv, map);
  const limit = maxComputePosition(tv);
  old2new.forEach((n, o) => {
    if (n !== o && (o < limit || n < limit)) {
      throw new TransformError(
        `reorder of T${tv.name}: axis ${o} → ${n} crosses the compute-at/producer position ${limit}`,
      );
    }
  });
  const next = new Array<IterDomain>(old2new.length);
  old2new.forEach((n, o) => {
    next[n] = tv.axis(o);
  });
  tv.domain.loop.splice(0, tv.domain.loop.length, ...next);
  return tv;
}
