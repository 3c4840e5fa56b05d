// The shape of one `fd.ops` entry: its TypeScript and python names, its parameters (kind,
// python keyword, default) and how it builds Fusion IR. One table of these drives the TS
// facade, the record list, both printers and the python importer, so they cannot disagree.
//
// Invariant: a parameter with a default is never followed by one without (positional calls
// may stop early), and defaults are stored in record form.

import { cast, isDataType, isIntegralType, type DataType, type Fusion, type Scalar, type SizeOperand, type TensorView } from '@tsfuser/fusion-ir';
import { DefinitionError } from '../errors.js';
import type { RecordValue } from './records.js';

export type ParamKind =
  | 'tensor' // TensorHandle
  | 'optTensor' // TensorHandle | null
  | 'operand' // TensorHandle | ScalarHandle | JS constant (constants become defineScalar records)
  | 'scalar' // ScalarHandle | JS constant
  | 'optScalar' // ScalarHandle | JS constant | null
  | 'int'
  | 'ints'
  | 'intOrInts'
  | 'bool'
  | 'bools'
  | 'dtype' // DataType, or null for "keep/infer" (nvFuser's DataType.Null)
  | 'sizes' // VectorHandle | (number | ScalarHandle)[]
  | 'optSizes' // sizes or null
  | 'tensors'
  | 'string';

export interface ParamSpec {
  /** camelCase name (TS docs, printed TS comments). */
  readonly name: string;
  /** nvFuser's python keyword. */
  readonly python: string;
  /** Other python keywords nvFuser used for it over time (`axes` for `dims` …). */
  readonly aliases?: readonly string[];
  readonly kind: ParamKind;
  /** Record-form default; absent = required. */
  readonly default?: RecordValue;
  /** Printed positionally although not a tensor (nvFuser's select index, embedding_fwd's options). */
  readonly printPositional?: boolean;
  /** Allowed values of a 'string' parameter. */
  readonly choices?: readonly string[];
}

/** A state value an op produces: a tensor, a scalar, or a vector of scalars. */
export type StateValue = TensorView | Scalar | readonly Scalar[];

/** 'pointwise': a tensor when any operand is one, else a scalar; a number: that many tensors. */
export type OutputKind = 'tensor' | 'scalar' | 'vector' | 'pointwise' | number;

export interface OpSpec {
  readonly name: string;
  readonly python: string;
  readonly params: readonly ParamSpec[];
  readonly output: OutputKind;
  /** Names of the outputs of a multi-output op, in order (docs and python tuple unpacking). */
  readonly outputNames?: readonly string[];
  apply(fusion: Fusion, args: OpArgs): StateValue[];
}

/** An OpSpec carrying the TypeScript signature of its `fd.ops` method. */
export interface TypedOpSpec<F> extends OpSpec {
  readonly signature?: F;
}

export function op<F>(spec: OpSpec): TypedOpSpec<F> {
  return spec;
}

/** An argument after state references were replaced by the Fusion values they stand for. */
export type ResolvedValue = StateValue | number | boolean | string | null | readonly ResolvedValue[];

function isVal(v: ResolvedValue): v is TensorView | Scalar {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'kind' in v;
}

/** Typed access to resolved arguments; a mismatch is a DefinitionError naming op and parameter. */
export class OpArgs {
  constructor(
    readonly spec: OpSpec,
    readonly values: readonly ResolvedValue[],
  ) {}

  private at(i: number): ResolvedValue {
    return this.values[i] ?? null;
  }

  private fail(i: number, expected: string): never {
    const p = this.spec.params[i];
    throw new DefinitionError(`${this.spec.name}: parameter ${p?.name ?? i} must be ${expected}`);
  }

  tensor(i: number): TensorView {
    const v = this.at(i);
    if (isVal(v) && v.kind === 'tensorView') return v;
    return this.fail(i, 'a tensor');
  }

  optTensor(i: number): TensorView | null {
    return this.at(i) === null ? null : this.tensor(i);
  }

  operand(i: number): TensorView | Scalar {
    const v = this.at(i);
    if (isVal(v) && (v.kind === 'tensorView' || v.kind === 'scalar')) return v;
    return this.fail(i, 'a tensor or scalar');
  }

  scalar(i: number): Scalar {
    const v = this.at(i);
    if (isVal(v) && v.kind === 'scalar') return v;
    return this.fail(i, 'a scalar');
  }

  optScalar(i: number): Scalar | null {
    return this.at(i) === null ? null : this.scalar(i);
  }

  bools(i: number): boolean[] {
    const v = this.at(i);
    if (Array.isArray(v) && v.every((e) => typeof e === 'boolean')) return v as boolean[];
    return this.fail(i, 'a list of booleans');
  }

  optSizes(i: number): SizeOperand[] | undefined {
    return this.at(i) === null ? undefined : this.sizes(i);
  }

  int(i: number): number {
    const v = this.at(i);
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    return this.fail(i, 'an integer');
  }

  ints(i: number): number[] {
    const v = this.at(i);
    if (Array.isArray(v) && v.every((e) => typeof e === 'number' && Number.isInteger(e))) return v as number[];
    return this.fail(i, 'a list of integers');
  }

  intOrInts(i: number): number | number[] {
    const v = this.at(i);
    return typeof v === 'number' ? this.int(i) : this.ints(i);
  }

  bool(i: number): boolean {
    const v = this.at(i);
    if (typeof v === 'boolean') return v;
    return this.fail(i, 'a boolean');
  }

  dtype(i: number): DataType | undefined {
    const v = this.at(i);
    if (v === null) return undefined;
    if (typeof v === 'string' && isDataType(v)) return v;
    return this.fail(i, 'a DataType');
  }

  string(i: number): string {
    const v = this.at(i);
    if (typeof v === 'string') return v;
    return this.fail(i, 'a string');
  }

  sizes(i: number): SizeOperand[] {
    const v = this.at(i);
    if (!Array.isArray(v)) return this.fail(i, 'a list of sizes or a vector');
    return (v as readonly ResolvedValue[]).map((e) => {
      if (typeof e === 'number') return e;
      // nvFuser casts each size to Index (reshape's maybeCastExpr): a Float size scalar is accepted.
      if (isVal(e) && e.kind === 'scalar') return isIntegralType(e.dtype) ? e : (cast(e, 'Index') as Scalar);
      return this.fail(i, 'a list of sizes (integers or scalars)');
    });
  }

  tensors(i: number): TensorView[] {
    const v = this.at(i);
    if (!Array.isArray(v)) return this.fail(i, 'a list of tensors');
    return (v as readonly ResolvedValue[]).map((e) => {
      if (isVal(e) && e.kind === 'tensorView') return e;
      return this.fail(i, 'a list of tensors');
    });
  }
}

/** `logicalNot` → `logical_not`. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
