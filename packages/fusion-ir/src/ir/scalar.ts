// Scalars: constants (`double(3)`), symbolic values (input extents `i0`, fusion scalar inputs) and
// named hardware values (`blockDim.x`). A scalar with a definition is an expression of others,
// e.g. the extent `ceilDiv(i0, 4)` of a split.

import type { Complex } from './complex-value.js';
import { isComplexType, isFloatingType, type DataType } from './data-type.js';
import type { Fusion } from './fusion.js';
import { ValBase } from './val.js';

export type ScalarValue = number | bigint | boolean | Complex;

export class Scalar extends ValBase {
  readonly kind = 'scalar' as const;

  constructor(
    fusion: Fusion,
    name: number,
    readonly dtype: DataType,
    /** Known value (constants), or null for symbolic scalars. */
    readonly value: ScalarValue | null,
    /** Set for hardware values such as `blockDim.x` that print by name. */
    readonly namedScalar: string | null = null,
  ) {
    super(fusion, name);
  }

  isConst(): boolean {
    return this.value !== null;
  }

  /** The constant as a JS number, or null when symbolic. */
  constNumber(): number | null {
    if (this.value === null) return null;
    if (typeof this.value === 'boolean') return this.value ? 1 : 0;
    if (typeof this.value === 'object') return null; // a complex constant is no real number
    return Number(this.value);
  }

  /** Name as nvFuser prints a symbolic scalar: `i3`, `d116`, `b2`, `f7`. */
  symbolicName(): string {
    if (this.namedScalar !== null) return this.namedScalar;
    return `${scalarPrefix(this.dtype)}${this.name}`;
  }
}

function scalarPrefix(dtype: DataType): string {
  if (dtype === 'Bool') return 'b';
  if (isComplexType(dtype)) return 'c';
  if (dtype === 'Float' || dtype === 'Half' || dtype === 'BFloat16') return 'f';
  if (isFloatingType(dtype)) return 'd';
  return 'i';
}
