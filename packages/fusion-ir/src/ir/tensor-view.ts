// TensorView: a tensor value of the fusion. What is computed is fixed by its definition; how it
// is computed is its domain's loop domain, the parallel types of the loop IDs, its memory type
// and its inlining position (computeAt). Scheduling transforms live in ../transforms and are
// exposed here as methods so that schedules read like nvFuser's C++ API.

import { cacheAfter, cacheBefore, cacheFork } from '../transforms/cache.js';
import { computeAt, inlineAt } from '../transforms/inline.js';
import { merge, reorder, split, type ReorderMap } from '../transforms/loop-transforms.js';
import { rFactor } from '../transforms/rfactor.js';
import type { DataType } from './data-type.js';
import type { Fusion } from './fusion.js';
import type { IterDomain } from './iter-domain.js';
import type { Scalar } from './scalar.js';
import type { TensorDomain } from './tensor-domain.js';
import type { MemoryType } from './types.js';
import { ValBase } from './val.js';

export class TensorView extends ValBase {
  readonly kind = 'tensorView' as const;
  memoryType: MemoryType = 'Local';
  /** Number of outer loop IDs shared with consumers (nvFuser's `ca_pos`). */
  computeAtPosition = 0;
  /** Highest position at which a producer is inlined into this tensor (`produce_pos`). */
  maxProducerPosition = 0;

  constructor(
    fusion: Fusion,
    name: number,
    public domain: TensorDomain,
    readonly dtype: DataType,
  ) {
    super(fusion, name);
  }

  /** Number of loop IDs. */
  nDims(): number {
    return this.domain.loop.length;
  }

  /** Loop ID `i`; negative indices count from the end as in nvFuser. */
  axis(i: number): IterDomain {
    const n = this.domain.loop.length;
    const pos = i < 0 ? i + n : i;
    const id = this.domain.loop[pos];
    if (id === undefined) {
      throw new RangeError(`T${this.name}: axis ${i} out of range for ${n} loop dims`);
    }
    return id;
  }

  getLogicalDomain(): IterDomain[] {
    return this.domain.logical;
  }

  getRootDomain(): IterDomain[] {
    return this.domain.maybeRoot();
  }

  getLoopDomain(): IterDomain[] {
    return this.domain.loop;
  }

  /** Logical dims excluding reductions — the rank a consumer sees. */
  rank(): number {
    return this.domain.logicalNoReductions().length;
  }

  hasReduction(): boolean {
    return this.domain.hasReduction();
  }

  isFusionInput(): boolean {
    return this.fusion.inputs.includes(this);
  }

  isFusionOutput(): boolean {
    return this.fusion.outputs.includes(this);
  }

  setMemoryType(m: MemoryType): this {
    this.memoryType = m;
    return this;
  }

  // ---- scheduling (implemented in ../transforms) -------------------------------------------

  /** Splits loop axis `axis` by `factor` into (outer, inner); see transforms/loop-transforms.ts. */
  split(axis: number, factor: number | Scalar, innerSplit = true): this {
    split(this, axis, factor, innerSplit);
    return this;
  }

  /** Merges loop axes `axisO` (outer) and `axisI` (inner, default axisO + 1). */
  merge(axisO: number, axisI?: number): this {
    merge(this, axisO, axisI);
    return this;
  }

  /** Reorders loop axes: `{old: new}` or `[[old, new], …]`; unlisted axes keep their order. */
  reorder(map: ReorderMap): this {
    reorder(this, map);
    return this;
  }

  /** Reduces loop `axes` first in a new partial tensor, which is returned; see transforms/rfactor.ts. */
  rFactor(axes: readonly number[]): TensorView {
    return rFactor(this, axes);
  }

  /** Computes this producer inside the first `pos` loops of `consumer` (`replay`: take its loop structure first). */
  computeAt(consumer: TensorView, pos: number, opts: { replay?: boolean } = {}): this {
    computeAt(this, consumer, pos, opts);
    return this;
  }

  /** Sets the compute-at position, validated against every consumer. */
  inlineAt(pos: number): this {
    inlineAt(this, pos);
    return this;
  }

  /** The copy this tensor's definition now writes; this = set(cache). */
  cacheBefore(): TensorView {
    return cacheBefore(this);
  }

  /** A copy that all current consumers read instead of this tensor. */
  cacheAfter(): TensorView {
    return cacheAfter(this);
  }

  /** A new output copy of this output, which stays an intermediate for its other uses. */
  cacheFork(): TensorView {
    return cacheFork(this);
  }

  override toString(): string {
    return `T${this.name}`;
  }
}
