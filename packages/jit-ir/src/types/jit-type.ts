// TorchScript value types as a closed discriminated union (c10::Type's subset that graphs use),
// with constructors, structural equality and the subtype relation used by schema matching.

import type { ExactInteger } from '../text/integers.js';
import type { ScalarType } from './scalar-type.js';

export interface Device {
  readonly type: string;
  /** null when the device has no index (`cpu`). */
  readonly index: number | null;
}

/**
 * A (possibly refined) tensor type. `sizes === null` means the rank is unknown; a null entry in
 * `sizes` is an unknown extent (printed `*`). `strides` is only kept when complete.
 * Sizes and strides are exact int64 values: a `number` when it is a safe integer (every real
 * tensor), a `bigint` only beyond 2^53 - 1 (e.g. `Float(9223372036854775807)`), so they print back
 * digit for digit.
 */
export interface TensorType {
  readonly kind: 'Tensor';
  readonly scalarType: ScalarType | null;
  readonly sizes: readonly (ExactInteger | null)[] | null;
  readonly strides: readonly ExactInteger[] | null;
  readonly requiresGrad: boolean | null;
  readonly device: Device | null;
}

export type SimpleTypeKind =
  | 'Int'
  | 'Float'
  | 'Bool'
  | 'Str'
  | 'Complex'
  | 'Device'
  | 'None'
  | 'Number'
  | 'Scalar'
  | 'Layout'
  | 'ScalarType'
  | 'MemoryFormat'
  | 'Generator'
  | 'Any'
  /** A TorchScript function value, e.g. the `fallback_function` constant of optimized graphs. */
  | 'Function';

export interface SimpleType {
  readonly kind: SimpleTypeKind;
}
export interface OptionalType {
  readonly kind: 'Optional';
  readonly elem: JitType;
}
export interface ListType {
  readonly kind: 'List';
  readonly elem: JitType;
  /** The `N` of schema types like `int[2]`; null otherwise. */
  readonly fixedSize: number | null;
}
export interface TupleType {
  readonly kind: 'Tuple';
  readonly elems: readonly JitType[];
}

export type JitType = TensorType | SimpleType | OptionalType | ListType | TupleType;

const simple = (kind: SimpleTypeKind): SimpleType => Object.freeze({ kind });

export const IntType = simple('Int');
export const FloatType = simple('Float');
export const BoolType = simple('Bool');
export const StringType = simple('Str');
export const ComplexType = simple('Complex');
export const DeviceObjType = simple('Device');
export const NoneType = simple('None');
export const NumberType = simple('Number');
export const ScalarTypeAlias = simple('Scalar');
export const LayoutType = simple('Layout');
export const ScalarTypeType = simple('ScalarType');
export const MemoryFormatType = simple('MemoryFormat');
export const GeneratorType = simple('Generator');
export const AnyType = simple('Any');
export const FunctionType = simple('Function');

export function simpleType(kind: SimpleTypeKind): SimpleType {
  return simple(kind);
}

/** The unrefined `Tensor` type. */
export const DynamicTensorType: TensorType = Object.freeze({
  kind: 'Tensor',
  scalarType: null,
  sizes: null,
  strides: null,
  requiresGrad: null,
  device: null,
});

export function tensorType(parts: Partial<Omit<TensorType, 'kind'>> = {}): TensorType {
  return { ...DynamicTensorType, ...parts };
}

/** Contiguous strides of `sizes` (row-major), as PyTorch computes them (module-private: jit-ir sits below fusion-ir, whose contiguousStrides is the public one). */
function contiguousStrides(sizes: readonly number[]): number[] {
  const strides = new Array<number>(sizes.length).fill(1);
  for (let i = sizes.length - 2; i >= 0; i--) {
    strides[i] = (strides[i + 1] ?? 1) * Math.max(sizes[i + 1] ?? 1, 1);
  }
  return strides;
}

/** A complete CUDA tensor type: `Float(8, 256, strides=[256, 1], requires_grad=0, device=cuda:0)`. */
export function completeTensorType(scalarType: ScalarType, sizes: readonly number[], strides?: readonly number[], device: Device = { type: 'cuda', index: 0 }): TensorType {
  return tensorType({ scalarType, sizes: [...sizes], strides: [...(strides ?? contiguousStrides(sizes))], requiresGrad: false, device });
}

export function optionalType(elem: JitType): OptionalType {
  return { kind: 'Optional', elem };
}
export function listType(elem: JitType, fixedSize: number | null = null): ListType {
  return { kind: 'List', elem, fixedSize };
}
export function tupleType(elems: readonly JitType[]): TupleType {
  return { kind: 'Tuple', elems: [...elems] };
}

export function isTensorType(t: JitType): t is TensorType {
  return t.kind === 'Tensor';
}

/** True when a tensor type has a known scalar type, rank, every size and every stride, and device. */
export function isCompleteTensorType(t: JitType): t is TensorType {
  return t.kind === 'Tensor' && t.scalarType !== null && t.sizes !== null && t.sizes.every((s) => s !== null) && t.strides !== null && t.device !== null;
}

function devicesEqual(a: Device | null, b: Device | null): boolean {
  if (a === null || b === null) return a === b;
  return a.type === b.type && a.index === b.index;
}

function arraysEqual<T>(a: readonly T[] | null, b: readonly T[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function typesEqual(a: JitType, b: JitType): boolean {
  switch (a.kind) {
    case 'Tensor':
      return (
        b.kind === 'Tensor' &&
        a.scalarType === b.scalarType &&
        arraysEqual(a.sizes, b.sizes) &&
        arraysEqual(a.strides, b.strides) &&
        a.requiresGrad === b.requiresGrad &&
        devicesEqual(a.device, b.device)
      );
    case 'Optional':
      return b.kind === 'Optional' && typesEqual(a.elem, b.elem);
    case 'List':
      return b.kind === 'List' && a.fixedSize === b.fixedSize && typesEqual(a.elem, b.elem);
    case 'Tuple':
      return b.kind === 'Tuple' && a.elems.length === b.elems.length && a.elems.every((e, i) => typesEqual(e, b.elems[i] as JitType));
    default:
      return a.kind === b.kind;
  }
}

const NUMERIC_KINDS: ReadonlySet<JitType['kind']> = new Set(['Int', 'Float', 'Complex', 'Number', 'Scalar']);
/** Schema-level enums that are plain ints inside TorchScript graphs. */
const INT_LIKE_KINDS: ReadonlySet<JitType['kind']> = new Set(['Int', 'Layout', 'ScalarType', 'MemoryFormat']);

/**
 * `actual <: formal`, the relation Node::matches uses: every tensor type is a `Tensor`,
 * int/float/complex are `Scalar`/`number`, None and T are `T?`, and schema enums
 * (ScalarType, Layout, MemoryFormat) accept ints.
 */
export function isSubtypeOf(actual: JitType, formal: JitType): boolean {
  switch (formal.kind) {
    case 'Any':
      return true;
    case 'Tensor':
      return actual.kind === 'Tensor';
    case 'Optional':
      if (actual.kind === 'None') return true;
      if (actual.kind === 'Optional') return isSubtypeOf(actual.elem, formal.elem);
      return isSubtypeOf(actual, formal.elem);
    case 'List':
      return actual.kind === 'List' && isSubtypeOf(actual.elem, formal.elem);
    case 'Tuple':
      return actual.kind === 'Tuple' && actual.elems.length === formal.elems.length && actual.elems.every((e, i) => isSubtypeOf(e, formal.elems[i] as JitType));
    case 'Number':
    case 'Scalar':
      return NUMERIC_KINDS.has(actual.kind);
    case 'Layout':
    case 'ScalarType':
    case 'MemoryFormat':
      return INT_LIKE_KINDS.has(actual.kind);
    case 'Int':
    case 'Float':
    case 'Bool':
    case 'Str':
    case 'Complex':
    case 'Device':
    case 'None':
    case 'Generator':
    case 'Function':
      return actual.kind === formal.kind;
  }
}
