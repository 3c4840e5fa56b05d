// Converts the arguments of an `fd.ops` call into record values, one parameter kind at a time:
// handles become state references, JS constants in operand slots become `defineScalar` records
// (through the context), lists are checked element by element. Every rejection names the op,
// the parameter and the value.

import { Complex, isDataType } from '@tsfuser/fusion-ir';
import { DefinitionError } from '../errors.js';
import { ScalarHandle, TensorHandle, VectorHandle, type Handle } from './handles.js';
import type { OpSpec, ParamSpec } from './op-spec.js';
import type { RecordValue, StateRef } from './records.js';

export interface ConversionContext {
  /** The reference to a handle of this definition (throws for foreign handles). */
  refOf(handle: Handle, where: string): StateRef;
  /** Records `defineScalar(value, inferred dtype)` and returns its reference. */
  autoScalar(value: number | boolean | bigint | Complex): StateRef;
}

function show(v: unknown): string {
  if (v instanceof TensorHandle || v instanceof ScalarHandle || v instanceof VectorHandle) return v.toString();
  if (typeof v === 'bigint') return `${v}n`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function isInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v);
}

export function toRecordValue(ctx: ConversionContext, spec: OpSpec, param: ParamSpec, value: unknown): RecordValue {
  const where = `${spec.name}: ${param.name}`;
  const bad = (expected: string): never => {
    throw new DefinitionError(`${where} must be ${expected}, got ${show(value)}`);
  };
  const scalarLike = (v: unknown): StateRef => {
    if (v instanceof ScalarHandle) return ctx.refOf(v, where);
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint' || v instanceof Complex) return ctx.autoScalar(v);
    return bad('a scalar or a number');
  };
  const sizes = (v: unknown): RecordValue => {
    if (v instanceof VectorHandle) return ctx.refOf(v, where);
    if (!Array.isArray(v)) return bad('a list of sizes or a vector');
    return v.map((e: unknown) => {
      if (isInt(e)) return e;
      if (e instanceof ScalarHandle) return ctx.refOf(e, where);
      return bad('a list of integers and scalars');
    });
  };
  const tensor = (v: unknown): StateRef => (v instanceof TensorHandle ? ctx.refOf(v, where) : bad('a tensor'));

  switch (param.kind) {
    case 'tensor':
      return tensor(value);
    case 'optTensor':
      return value === null || value === undefined ? null : tensor(value);
    case 'operand':
      return value instanceof TensorHandle ? ctx.refOf(value, where) : scalarLike(value);
    case 'scalar':
      return scalarLike(value);
    case 'optScalar':
      return value === null || value === undefined ? null : scalarLike(value);
    case 'int':
      return isInt(value) ? value : bad('an integer');
    case 'ints':
      if (isInt(value)) return [value];
      if (Array.isArray(value) && value.every(isInt)) return [...(value as number[])];
      return bad('a list of integers');
    case 'intOrInts':
      if (isInt(value)) return value;
      if (Array.isArray(value) && value.every(isInt)) return [...(value as number[])];
      return bad('an integer or a list of integers');
    case 'bool':
      // nvFuser's printer writes some flags as C++ integers (`manual_normalization=0`).
      if (value === 0 || value === 1) return value === 1;
      return typeof value === 'boolean' ? value : bad('a boolean');
    case 'bools':
      if (Array.isArray(value) && value.every((e) => typeof e === 'boolean')) return [...(value as boolean[])];
      return bad('a list of booleans');
    case 'dtype':
      if (value === null || value === 'Null') return null;
      return typeof value === 'string' && isDataType(value) ? value : bad('a DataType');
    case 'sizes':
      return sizes(value);
    case 'optSizes':
      return value === null || value === undefined ? null : sizes(value);
    case 'tensors':
      if (Array.isArray(value) && value.length > 0) return value.map(tensor);
      return bad('a non-empty list of tensors');
    case 'string':
      if (typeof value === 'string' && (param.choices === undefined || param.choices.includes(value))) return value;
      return bad(param.choices === undefined ? 'a string' : `one of ${param.choices.map((c) => `'${c}'`).join(', ')}`);
    default: {
      const unreachable: never = param.kind;
      throw new DefinitionError(`unknown parameter kind ${String(unreachable)}`);
    }
  }
}
