// IterDomain: one axis of iteration of a TensorView — an extent, how it iterates (IterType) and
// which hardware index it binds (ParallelType). IterDomains produced by Split/Merge keep their
// defining expression so indexing can walk back to the logical axes.

import type { Fusion } from './fusion.js';
import type { Scalar } from './scalar.js';
import type { IterType, ParallelType } from './types.js';
import { ValBase } from './val.js';

export class IterDomain extends ValBase {
  readonly kind = 'iterDomain' as const;
  parallelType: ParallelType = 'Serial';

  constructor(
    fusion: Fusion,
    name: number,
    readonly extent: Scalar,
    readonly iterType: IterType,
    /** True for IDs of an rFactor (or reshape) root → logical transformation. */
    readonly isRFactorProduct = false,
    /**
     * For an expanded broadcast (`expand`): the extent the broadcast stands for. The ID is still a
     * broadcast (stride 0, one element read), but the tensor's logical size is this.
     */
    readonly expandedExtent: Scalar | null = null,
  ) {
    super(fusion, name);
  }

  isReduction(): boolean {
    return this.iterType === 'Reduction';
  }

  isBroadcast(): boolean {
    return this.iterType === 'Broadcast';
  }

  isIteration(): boolean {
    return this.iterType === 'Iteration';
  }

  /** Parallelizes this axis; `tv.axis(i).parallelize('TIDx')` in nvFuser's API. */
  parallelize(p: ParallelType): this {
    this.parallelType = p;
    return this;
  }

  /** The extent a user of the tensor sees (expanded broadcasts report their expanded size). */
  logicalExtent(): Scalar {
    return this.expandedExtent ?? this.extent;
  }
}
