// Argument checks the importer applies before a python value reaches the FusionDefinition: the
// literal arguments of `fd.define_tensor` (types, integrality, rank) and the value of
// `fd.define_scalar` against its dtype (integral and in range for integer dtypes, True/False for
// Bool). They turn python values the definition API would mistype or round silently into one
// message naming the argument.
//
// Invariant: a check returns null/the value when the argument is well-formed; the message names
// the argument and the offending value, never a JS type.

import { DATA_TYPES, type DataType } from '@tsfuser/fusion-ir';
import { ScalarHandle, TensorHandle, VectorHandle } from '../definition/handles.js';
import { PyDtype } from './py-dtype.js';
import { PyComplex } from './py-complex.js';
import { PyFloat } from './py-float.js';
import { showText } from './tokenizer.js';

/** Most dims a tensor defined by an imported definition may have. */
export const MAX_TENSOR_RANK = 64;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** A python value as a message shows it. */
export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v instanceof PyFloat) return pythonFloatText(v.value);
  if (v instanceof PyComplex) return `complex(${pythonFloatText(v.re)}, ${pythonFloatText(v.im)})`;
  if (v instanceof PyDtype) return `DataType.${v.dtype}`;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e30 ? BigInt(v).toString() : String(v);
  if (typeof v === 'string') return `"${showText(v.length > 40 ? `${v.slice(0, 40)}…` : v).replace(/"/g, '\\"')}"`;
  if (Array.isArray(v)) return 'a list';
  if (v instanceof TensorHandle) return 'a tensor';
  if (v instanceof ScalarHandle) return 'a scalar';
  if (v instanceof VectorHandle) return 'a vector';
  return 'a name that is not a value';
}

function pythonFloatText(f: number): string {
  if (Number.isNaN(f)) return 'nan';
  if (!Number.isFinite(f)) return f > 0 ? 'inf' : '-inf';
  if (Object.is(f, -0)) return '-0.0';
  return Number.isInteger(f) && Math.abs(f) < 1e16 ? `${f}.0` : String(f);
}

export interface ArgumentProblem {
  /** The python keyword of the argument at fault. */
  readonly argument: string;
  readonly message: string;
}

/** A python int that tsfuser holds exactly (not a bool, not a float). */
function isExactInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** `argument` must be a list (of at most MAX_TENSOR_RANK entries) whose entries pass `ok`. */
function listProblem(argument: string, v: unknown, element: string, ok: (e: unknown) => boolean): ArgumentProblem | null {
  if (!Array.isArray(v)) return { argument, message: `${argument} must be a list, each entry ${element}; got ${describeValue(v)}` };
  if (v.length > MAX_TENSOR_RANK) return { argument, message: `${argument} has ${v.length} entries; tsfuser tensors have at most ${MAX_TENSOR_RANK} dims` };
  const bad = (v as readonly unknown[]).findIndex((e) => !ok(e));
  const value: unknown = v[bad];
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return { argument, message: `${argument}[${bad}] is ${describeValue(value)}, beyond ±(2^53 − 1), the largest integer tsfuser holds exactly` };
  }
  if (bad >= 0) return { argument, message: `${argument}[${bad}] must be ${element}, got ${describeValue(value)}` };
  return null;
}

const isIntOrFloatFree = (e: unknown): boolean => isExactInt(e);
const isBool = (e: unknown): boolean => typeof e === 'boolean';
const isBoolOrNone = (e: unknown): boolean => typeof e === 'boolean' || e === null;

/** The raw (python) arguments of `fd.define_tensor`, by keyword; absent ones are undefined. */
export interface DefineTensorArgs {
  readonly ndims?: unknown;
  readonly shape?: unknown;
  readonly contiguity?: unknown;
  readonly dtype?: unknown;
  readonly is_cpu?: unknown;
  readonly stride_order?: unknown;
  readonly symbolic_sizes?: unknown;
  readonly contiguous?: unknown;
  readonly sizes?: unknown;
  readonly strides?: unknown;
}

/** The first malformed argument of `fd.define_tensor`, or null. */
export function checkDefineTensorArgs(a: DefineTensorArgs): ArgumentProblem | null {
  if (a.ndims !== undefined && !(isExactInt(a.ndims) && a.ndims >= 0 && a.ndims <= MAX_TENSOR_RANK)) {
    return { argument: 'ndims', message: `ndims must be an integer in [0, ${MAX_TENSOR_RANK}], got ${describeValue(a.ndims)}` };
  }
  const optionalList = (argument: keyof DefineTensorArgs & string, what: string, ok: (e: unknown) => boolean): ArgumentProblem | null => {
    const v = a[argument];
    return v === undefined || v === null ? null : listProblem(argument, v, what, ok);
  };
  if (a.shape !== undefined) {
    const p = listProblem('shape', a.shape, 'an integer (-1 for a symbolic size)', isIntOrFloatFree);
    if (p !== null) return p;
  }
  for (const p of [
    optionalList('contiguity', 'True, False or None', isBoolOrNone),
    optionalList('stride_order', 'an integer', isIntOrFloatFree),
    optionalList('symbolic_sizes', 'an integer (-1 for a symbolic size)', isIntOrFloatFree),
    optionalList('contiguous', 'True or False', isBool),
    optionalList('sizes', 'an integer', isIntOrFloatFree),
    optionalList('strides', 'an integer', isIntOrFloatFree),
  ]) {
    if (p !== null) return p;
  }
  if (a.dtype !== undefined && a.dtype !== null && !(a.dtype instanceof PyDtype)) {
    return { argument: 'dtype', message: `dtype must be a DataType (${DATA_TYPES.map((d) => `DataType.${d}`).join(', ')}) or a torch dtype, got ${describeValue(a.dtype)}` };
  }
  if (a.is_cpu !== undefined && a.is_cpu !== null && typeof a.is_cpu !== 'boolean') {
    return { argument: 'is_cpu', message: `is_cpu must be True or False, got ${describeValue(a.is_cpu)}` };
  }
  return null;
}

/** The value `fd.define_scalar(value, dtype)` stores, or why it does not fit `dtype`. */
export function checkScalarValue(value: number | boolean | null, isFloat: boolean, dtype: DataType | undefined, literal?: string): { value: number | boolean | null } | string {
  if (value === null) return { value };
  const dt: DataType = dtype ?? (typeof value === 'boolean' ? 'Bool' : isFloat ? 'Double' : 'Int');
  const shown = literal ?? (isFloat && typeof value === 'number' ? pythonFloatText(value) : describeValue(value));
  const asNumber = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  switch (dt) {
    case 'Bool':
      if (typeof value === 'boolean') return { value };
      if (value === 0 || value === 1) return { value: value === 1 };
      return `value ${shown} is not a DataType.Bool (True, False, 1 or 0)`;
    case 'Int32':
      if (Number.isInteger(asNumber) && asNumber >= INT32_MIN && asNumber <= INT32_MAX) return { value: asNumber };
      return `value ${shown} does not fit DataType.Int32 (an integer in [${INT32_MIN}, ${INT32_MAX}])`;
    case 'Int':
    case 'Index':
      if (Number.isSafeInteger(asNumber)) return { value: asNumber };
      return `value ${shown} does not fit DataType.${dt} (an integer; tsfuser holds at most ±(2^53 − 1) exactly)`;
    case 'UInt64':
      if (Number.isSafeInteger(asNumber) && asNumber >= 0) return { value: asNumber };
      return `value ${shown} does not fit DataType.UInt64 (a non-negative integer; tsfuser holds at most 2^53 − 1 exactly in a definition)`;
    case 'Half':
    case 'BFloat16':
    case 'Float':
    case 'Double':
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
    case 'ComplexFloat':
    case 'ComplexDouble':
      return { value: asNumber };
    default: {
      const unreachable: never = dt;
      return `unknown dtype ${String(unreachable)}`;
    }
  }
}
