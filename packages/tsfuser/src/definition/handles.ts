// Handles to the states of a FusionDefinition — nvFuser's python `Tensor`, `Scalar` and `Vector`
// objects. A handle is only an index into its definition's state list (printed T0, S2, V5);
// the Fusion IR value behind it is owned by the definition.

import type { DataType } from '@tsfuser/fusion-ir';

/** What a handle needs from its definition (kept small to avoid a cycle with FusionDefinition). */
export interface HandleOwner {
  sizeOf(tensor: TensorHandle, dim: number): ScalarHandle;
  shapeOf(tensor: TensorHandle): VectorHandle;
}

export class TensorHandle {
  readonly kind = 'tensor' as const;
  constructor(
    readonly owner: HandleOwner,
    readonly index: number,
    /** Number of dimensions (nvFuser's `ndim`). */
    readonly ndim: number,
    readonly dtype: DataType,
  ) {}

  /** The extent of dim `dim` as a scalar state (nvFuser `T.size(i)`). */
  size(dim: number): ScalarHandle {
    return this.owner.sizeOf(this, dim);
  }

  /** All extents as a vector state (nvFuser `T.shape()`). */
  shape(): VectorHandle {
    return this.owner.shapeOf(this);
  }

  toString(): string {
    return `T${this.index}`;
  }
}

export class ScalarHandle {
  readonly kind = 'scalar' as const;
  constructor(
    readonly owner: HandleOwner,
    readonly index: number,
    readonly dtype: DataType,
  ) {}

  toString(): string {
    return `S${this.index}`;
  }
}

export class VectorHandle {
  readonly kind = 'vector' as const;
  constructor(
    readonly owner: HandleOwner,
    readonly index: number,
    readonly length: number,
  ) {}

  toString(): string {
    return `V${this.index}`;
  }
}

export type Handle = TensorHandle | ScalarHandle | VectorHandle;

/** Printed name of a state: T/S/V followed by its index, as nvFuser's python_definition. */
export function stateName(kind: Handle['kind'], index: number): string {
  switch (kind) {
    case 'tensor':
      return `T${index}`;
    case 'scalar':
      return `S${index}`;
    case 'vector':
      return `V${index}`;
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown state kind ${String(unreachable)}`);
    }
  }
}
