// The two data-carrying constructors of the inputs line:
//   torch.tensor(data, dtype=None)   nested lists/tuples of Python bools, ints, floats and complex
//                                    numbers (or one scalar: a 0-dim tensor). The shape is the
//                                    nesting (rectangular, else PyTorch's "expected sequence of
//                                    length n at dim d (got m)"); without dtype= the dtype is
//                                    PyTorch's inference: all bools Bool, else ints Int (int64),
//                                    any float Float, any complex ComplexFloat; [] is Float.
//   torch.from_numpy(numpy.load(path))   (or np.load) a .npy file, its path relative to the
//                                    script's directory; nothing but .npy reading is done (no
//                                    .npz, no pickles, no other numpy call). The header is read
//                                    now (dtype, shape, order; a Fortran-order array keeps its
//                                    column-major strides, as from_numpy does); the data when the
//                                    input is built.
// Invariant: the spec returned has the shape and dtype PyTorch's tensor would have; every refusal
// is one DefinitionImportError at the expression.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { Complex, type DataType, type ElementValue } from '@tsfuser/fusion-ir';
import { NpyError, parseNpyHeader, parseNpyPreamble, type NpyHeader } from '../io/npy-header.js';
import { npyLayout } from '../io/npy.js';
import { DEFAULT_ALLOCATION_LIMITS } from '../io/allocation-limits.js';
import type { Expr } from './ast.js';
import { fail } from './definition-interpreter.js';
import { checkKeywords, dotted, isNone, keyword, newTensor, numberValue, resolve, torchDtype, withOp, type Lookup, type TensorValue } from './torch-input-exprs.js';

type Scalar = { kind: 'bool'; value: boolean } | { kind: 'int' | 'float'; value: number } | { kind: 'complex'; value: Complex };

const INT64_LIMIT = 2 ** 63;

/** One element of torch.tensor's data: True/False, a number, `2j`, `1 + 2j`, complex(a, b), float('nan'). */
function scalarOf(e: Expr, lookup: Lookup): Scalar | null {
  const r = resolve(e, lookup);
  if (r.kind === 'name' && (r.id === 'True' || r.id === 'False')) return { kind: 'bool', value: r.id === 'True' };
  if (r.kind === 'number' && r.imaginary === true) return { kind: 'complex', value: new Complex(0, r.value) };
  if (r.kind === 'unary') {
    const inner = scalarOf(r.operand, lookup);
    if (inner === null || inner.kind === 'bool' || r.op === '+') return inner?.kind === 'bool' ? { kind: 'int', value: inner.value ? 1 : 0 } : inner;
    return inner.kind === 'complex' ? { kind: 'complex', value: new Complex(-inner.value.re, -inner.value.im) } : { kind: inner.kind, value: -inner.value };
  }
  if (r.kind === 'binary' && (r.op === '+' || r.op === '-')) {
    const a = scalarOf(r.left, lookup);
    const b = scalarOf(r.right, lookup);
    if (a === null || b === null || (a.kind !== 'complex' && b.kind !== 'complex')) return null;
    const z = (s: Scalar): Complex => (s.kind === 'complex' ? s.value : new Complex(s.kind === 'bool' ? Number(s.value) : s.value, 0));
    const sign = r.op === '+' ? 1 : -1;
    return { kind: 'complex', value: new Complex(z(a).re + sign * z(b).re, z(a).im + sign * z(b).im) };
  }
  if (r.kind === 'call' && r.func.kind === 'name' && r.func.id === 'complex' && r.keywords.length === 0 && r.args.length <= 2) {
    const parts = r.args.map((a) => numberValue(a, lookup));
    if (parts.some((p) => p === null)) return null;
    return { kind: 'complex', value: new Complex(parts[0]?.value ?? 0, parts[1]?.value ?? 0) };
  }
  const n = numberValue(r, lookup);
  if (n === null) return null;
  return { kind: n.isFloat ? 'float' : 'int', value: n.value };
}

/** Flattens nested lists/tuples row-major, checking they are rectangular as PyTorch does. */
function flatten(e: Expr, lookup: Lookup, depth: number, shape: number[], out: Scalar[]): void {
  const r = resolve(e, lookup);
  if (r.kind === 'list' || r.kind === 'tuple') {
    if (shape.length === depth) {
      if (out.length > 0) return fail(`torch.tensor: expected a number at dim ${depth - 1}, got a sequence (the data is not rectangular)`, r.pos);
      shape.push(r.elements.length);
    } else if (shape[depth] !== r.elements.length) {
      return fail(`torch.tensor: expected sequence of length ${shape[depth]} at dim ${depth} (got ${r.elements.length})`, r.pos);
    }
    for (const x of r.elements) flatten(x, lookup, depth + 1, shape, out);
    return;
  }
  if (depth < shape.length) return fail(`torch.tensor: expected a sequence at dim ${depth}, got a number (the data is not rectangular)`, r.pos);
  const s = scalarOf(r, lookup);
  if (s === null) return fail('torch.tensor: data must be Python bools, ints, floats or complex numbers in nested lists or tuples', r.pos);
  if (s.kind === 'int' && (s.value >= INT64_LIMIT || s.value < -INT64_LIMIT)) return fail(`torch.tensor: Overflow when unpacking long (${s.value} is outside int64)`, r.pos);
  out.push(s);
}

function inferredDtype(values: readonly Scalar[]): DataType {
  if (values.some((v) => v.kind === 'complex')) return 'ComplexFloat';
  if (values.some((v) => v.kind === 'float')) return 'Float';
  if (values.length > 0 && values.every((v) => v.kind === 'bool')) return 'Bool';
  return values.length === 0 ? 'Float' : 'Int';
}

function elementOf(s: Scalar, dtype: DataType): ElementValue {
  // Complex data in a real dtype is refused by the caller.
  if (s.kind === 'complex') return s.value;
  if (s.kind === 'bool') return dtype === 'Bool' ? s.value : s.value ? 1 : 0;
  if (dtype === 'Int' || dtype === 'UInt64') return BigInt(Math.trunc(s.value));
  return s.value;
}

/** `torch.tensor(data, dtype=…)`. */
export function tensorLiteral(e: Expr & { kind: 'call' }, lookup: Lookup): TensorValue {
  const what = 'torch.tensor';
  checkKeywords(e.keywords, ['data', 'dtype'], what);
  const data = e.args[0] ?? keyword(e.keywords, 'data')?.value;
  if (data === undefined) return fail(`${what}: missing the data`, e.pos);
  if (e.args.length > 1) return fail(`${what}: takes one positional argument (the data), got ${e.args.length}`, e.args[1]?.pos ?? e.pos);
  const shape: number[] = [];
  const values: Scalar[] = [];
  flatten(data, lookup, 0, shape, values);
  const kw = keyword(e.keywords, 'dtype');
  const dtype = kw === undefined || isNone(kw.value) ? inferredDtype(values) : torchDtype(kw.value, lookup);
  if (values.some((v) => v.kind === 'complex') && dtype !== 'ComplexFloat' && dtype !== 'ComplexDouble') {
    return fail(`${what}: complex data cannot be stored as ${dtype} (PyTorch: "value cannot be converted to type … without overflow")`, data.pos);
  }
  if (dtype === 'UInt64' && values.some((v) => v.kind !== 'complex' && v.kind !== 'bool' && v.value < 0)) return fail(`${what}: a negative value cannot be stored as torch.uint64`, data.pos);
  return newTensor({ kind: 'tensor', factory: 'tensor', shape, dtype, data: values.map((v) => elementOf(v, dtype)) }, what, e.pos);
}

/** dtype, shape and order of the .npy at `path` (its header only; format problems are NpyErrors). */
function readNpyHeader(path: string): { header: NpyHeader; dtype: DataType } {
  const fd = openSync(path, 'r');
  try {
    const fileLength = fstatSync(fd).size;
    const start = new Uint8Array(Math.min(12, fileLength));
    readSync(fd, start, 0, start.length, 0);
    const preamble = parseNpyPreamble(start, fileLength);
    const bytes = new Uint8Array(preamble.headerLength);
    readSync(fd, bytes, 0, bytes.length, preamble.headerStart);
    const header = parseNpyHeader(new TextDecoder(preamble.major === 3 ? 'utf-8' : 'latin1').decode(bytes));
    if (header.descr.replace(/^[=<]/, '') === 'u2') {
      throw new NpyError("uint16 data ('<u2'): torch.from_numpy makes a torch.uint16 tensor, which tsfuser has no DataType for (for bfloat16 data save float32 and call .to(torch.bfloat16))");
    }
    const { dtype, byteCount } = npyLayout(header, undefined, DEFAULT_ALLOCATION_LIMITS);
    const dataStart = preamble.headerStart + preamble.headerLength;
    if (fileLength - dataStart < byteCount) throw new NpyError(`truncated data: shape (${header.shape.join(', ')}) needs ${byteCount} bytes, the file has ${fileLength - dataStart}`);
    return { header, dtype };
  } finally {
    closeSync(fd);
  }
}

function isNumpyLoad(e: Expr): e is Expr & { kind: 'call' } {
  if (e.kind !== 'call') return false;
  const name = dotted(e.func);
  return name === 'numpy.load' || name === 'np.load';
}

/** `torch.from_numpy(numpy.load('x.npy'))`, the path relative to `scriptDirectory`. */
export function fromNumpy(e: Expr & { kind: 'call' }, lookup: Lookup, scriptDirectory: string | null): TensorValue {
  const what = 'torch.from_numpy';
  checkKeywords(e.keywords, [], what);
  const arg = e.args[0];
  const load = arg === undefined ? undefined : resolve(arg, lookup);
  if (arg === undefined || e.args.length !== 1 || load === undefined || !isNumpyLoad(load)) {
    return fail(`${what}: the only array it reads here is numpy.load('file.npy') (or np.load): no other numpy call is evaluated`, arg?.pos ?? e.pos);
  }
  for (const k of load.keywords) {
    if (k.name !== 'mmap_mode' && k.name !== 'allow_pickle') fail(`numpy.load: unsupported keyword '${k.name}' (only mmap_mode= and allow_pickle= are accepted; nothing but .npy data is read)`, k.pos);
  }
  const pathExpr = load.args[0] === undefined ? keyword(load.keywords, 'file')?.value : resolve(load.args[0], lookup);
  if (pathExpr === undefined || pathExpr.kind !== 'string' || load.args.length !== 1) return fail('numpy.load: expected one string literal, the path of a .npy file', load.pos);
  if (!pathExpr.value.toLowerCase().endsWith('.npy')) return fail(`numpy.load: '${pathExpr.value}' is not a .npy file (only .npy files are read: no .npz archives or pickles)`, pathExpr.pos);
  if (scriptDirectory === null && !isAbsolute(pathExpr.value)) {
    return fail(`numpy.load('${pathExpr.value}'): a relative path needs the script's directory (importPythonScript's scriptDirectory option)`, pathExpr.pos);
  }
  const path = resolvePath(scriptDirectory ?? '/', pathExpr.value);
  let found: { header: NpyHeader; dtype: DataType };
  try {
    found = readNpyHeader(path);
  } catch (err) {
    if (err instanceof NpyError) return fail(`numpy.load('${pathExpr.value}'): ${err.message}`, pathExpr.pos);
    const code = err instanceof Error && 'code' in err ? String(err.code) : 'EIO';
    return fail(`numpy.load('${pathExpr.value}'): cannot read ${path} (${code})`, pathExpr.pos);
  }
  const { header, dtype } = found;
  const fortran = header.fortranOrder && header.shape.length > 1;
  // A Fortran-order array's storage is its transpose's C order: the reversed shape, permuted back.
  const storageShape = fortran ? [...header.shape].reverse() : header.shape;
  const base = newTensor({ kind: 'tensor', factory: 'from_numpy', shape: storageShape, dtype, npy: { path, fortranOrder: fortran } }, what, e.pos);
  return fortran ? withOp(base, { kind: 'permute', dims: [...header.shape.keys()].reverse() }, what, e.pos) : base;
}
