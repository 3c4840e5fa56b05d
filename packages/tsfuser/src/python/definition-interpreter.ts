// Runs the statements of an nvFuser python definition against a FusionDefinition: `fd.define_*`,
// every `fd.ops.*` call (positional and keyword arguments, old keyword spellings, the keywords
// nvFuser's printer adds), `T.size(i)`, `T.shape()`, `fd.add_output`, tuple unpacking, dtypes as
// `DataType.X` or `torch.x`, and `float("inf")`-style scalars. Python floats stay floats (an
// operand `2.0` becomes a Double scalar, `2` an Int one), as in nvFuser. Python ints are exact
// only up to ±(2^53−1) here: a larger one is kept as the nearest double (so a slice end of
// 2^63−1, which clamps, still works) and refused wherever its exact value matters — a scalar's
// value, a tensor's declared sizes; an int too large for a double is an error.
//
// Invariant: each failure is one DefinitionImportError at the line/column of the expression
// (or keyword) that caused it.

import { Complex, DATA_TYPES, FusionIrError, isDataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import { ScalarHandle, TensorHandle, VectorHandle } from '../definition/handles.js';
import type { OpSpec, ParamSpec } from '../definition/op-spec.js';
import { opByPythonName } from '../definition/ops-table.js';
import type { TensorOptions } from '../definition/tensor-spec.js';
import { DefinitionError, DefinitionImportError } from '../errors.js';
import type { Expr, Keyword, Stmt } from './ast.js';
import { checkDefineTensorArgs, checkScalarValue, describeValue } from './definition-checks.js';
import { FRONTEND_KEYWORDS, checkFrontendKeyword, pythonFlag } from './frontend-keywords.js';
import { PyDtype, dtypeArgument } from './py-dtype.js';
import { PyFloat, pyFloatOf } from './py-float.js';
import { PyComplex, complexArithmetic } from './py-complex.js';
import type { Position } from './tokens.js';
import { torchDtype } from './torch-dtypes.js';

const FD = { marker: 'fd' } as const;
const FD_OPS = { marker: 'fd.ops' } as const;
const DATATYPE = { marker: 'DataType' } as const;
const TORCH = { marker: 'torch' } as const;
const FLOAT = { marker: 'float' } as const;
const COMPLEX = { marker: 'complex' } as const;
type Marker = typeof FD | typeof FD_OPS | typeof DATATYPE | typeof TORCH | typeof FLOAT | typeof COMPLEX;

/** The fd.ops reductions whose bindings include `(arg, dtype)`. */
const REDUCTIONS: ReadonlySet<string> = new Set(['sum', 'prod', 'max', 'min']);

export type PyValue = TensorHandle | ScalarHandle | VectorHandle | number | PyFloat | PyComplex | PyDtype | boolean | string | null | Marker | readonly PyValue[];

export function fail(message: string, pos: Position): never {
  throw new DefinitionImportError(message, pos.line, pos.column);
}

/** Runs `f`, turning definition and Fusion IR errors into an import error at `pos`. */
function at<T>(pos: Position, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof DefinitionError || e instanceof FusionIrError) fail(e.message, pos);
    throw e;
  }
}

/** Plain JS form of a value: floats unwrapped, lists recursively. */
function plain(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  if (v instanceof PyComplex) return new Complex(v.re, v.im);
  if (v instanceof PyDtype) return v.dtype;
  if (Array.isArray(v)) return (v as readonly PyValue[]).map(plain);
  return v;
}

function isMarker(v: PyValue): v is Marker {
  return typeof v === 'object' && v !== null && 'marker' in v;
}

export class DefinitionInterpreter {
  private readonly env = new Map<string, PyValue>();

  constructor(
    readonly fd: FusionDefinition,
    fdName: string,
  ) {
    this.env.set(fdName, FD);
    this.env.set('DataType', DATATYPE);
    this.env.set('torch', TORCH);
    this.env.set('float', FLOAT);
    this.env.set('complex', COMPLEX);
    this.env.set('True', true);
    this.env.set('False', false);
    this.env.set('None', null);
  }

  run(body: readonly Stmt[]): void {
    for (const s of body) this.statement(s);
  }

  private statement(s: Stmt): void {
    switch (s.kind) {
      case 'assign':
        this.assign(s.target, this.eval(s.value));
        return;
      case 'expr':
        this.eval(s.expr);
        return;
      case 'pass':
      case 'import':
        return;
      case 'return':
        if (s.value !== null) fail('a fusion definition returns nothing', s.pos);
        return;
      case 'def':
      case 'with':
      case 'for':
        return fail(`'${s.kind}' is not allowed inside a fusion definition`, s.pos);
      default: {
        const unreachable: never = s;
        throw new Error(`unknown statement ${String(unreachable)}`);
      }
    }
  }

  private assign(target: Expr, value: PyValue): void {
    if (target.kind === 'name') {
      this.env.set(target.id, value);
      return;
    }
    if (target.kind === 'tuple' || target.kind === 'list') {
      if (!Array.isArray(value)) fail(`cannot unpack a non-sequence into ${target.elements.length} names`, target.pos);
      const values = value as readonly PyValue[];
      const star = target.elements.findIndex((t) => t.kind === 'starred');
      if (star >= 0) {
        // `a, *rest = …` / `_, lse, *_ = …`: the starred name takes the list of the values between.
        if (target.elements.slice(star + 1).some((t) => t.kind === 'starred')) fail('multiple starred expressions in assignment', target.pos);
        const after = target.elements.length - star - 1;
        if (values.length < target.elements.length - 1) fail(`expected at least ${target.elements.length - 1} values to unpack, got ${values.length}`, target.pos);
        target.elements.slice(0, star).forEach((t, i) => this.assign(t, values[i] as PyValue));
        this.assign((target.elements[star] as Expr & { kind: 'starred' }).value, values.slice(star, values.length - after));
        target.elements.slice(star + 1).forEach((t, i) => this.assign(t, values[values.length - after + i] as PyValue));
        return;
      }
      if (values.length !== target.elements.length) {
        fail(`expected ${target.elements.length} values to unpack, got ${values.length}`, target.pos);
      }
      target.elements.forEach((t, i) => this.assign(t, values[i] as PyValue));
      return;
    }
    fail('cannot assign to this expression', target.pos);
  }

  eval(e: Expr): PyValue {
    switch (e.kind) {
      case 'name': {
        const v = this.env.get(e.id);
        if (v === undefined) return fail(`name '${e.id}' is not defined`, e.pos);
        return v;
      }
      case 'number':
        if (e.imaginary === true) return new PyComplex(0, e.value);
        if (e.isFloat) return new PyFloat(e.value);
        if (!Number.isFinite(e.value)) return fail(`integer ${e.text.length > 30 ? `${e.text.slice(0, 30)}…` : e.text} is too large for tsfuser (ints beyond ±(2^53 − 1) are held as doubles, at most ~1.8e308)`, e.pos);
        return e.value;
      case 'string':
        return e.value;
      case 'list':
      case 'tuple':
        return e.elements.map((x) => this.eval(x));
      case 'unary': {
        const v = this.eval(e.operand);
        if (v instanceof PyFloat) return new PyFloat(e.op === '-' ? -v.value : v.value);
        if (v instanceof PyComplex) return e.op === '-' ? new PyComplex(-v.re, -v.im) : v;
        // Python ints have no negative zero: -0 is 0 (a JS -0 would print as the float -0.0).
        if (typeof v === 'number') return e.op === '-' && v !== 0 ? -v : v;
        return fail(`unary ${e.op} needs a number`, e.pos);
      }
      case 'binary':
        return this.arithmetic(e);
      case 'attribute':
        return this.attribute(e);
      case 'subscript': {
        const obj = this.eval(e.object);
        const idx = this.eval(e.index);
        if (!Array.isArray(obj) || typeof idx !== 'number') return fail('only indexing a tuple/list by an integer is supported', e.pos);
        const list = obj as readonly PyValue[];
        const v = list[idx < 0 ? list.length + idx : idx];
        if (v === undefined) return fail(`index ${idx} out of range`, e.pos);
        return v;
      }
      case 'call':
        return this.call(e);
      case 'starred':
        return fail('a starred expression (*name) is only allowed in an assignment target', e.pos);
      default: {
        const unreachable: never = e;
        throw new Error(`unknown expression ${String(unreachable)}`);
      }
    }
  }

  private arithmetic(e: Expr & { kind: 'binary' }): PyValue {
    const l = this.eval(e.left);
    const r = this.eval(e.right);
    const isNum = (v: PyValue): boolean => typeof v === 'number' || v instanceof PyFloat;
    if ((l instanceof PyComplex || r instanceof PyComplex) && (isNum(l) || l instanceof PyComplex) && (isNum(r) || r instanceof PyComplex)) {
      const z = complexArithmetic(e.op, asPyComplex(l), asPyComplex(r));
      return z ?? fail(`'${e.op}' is not supported on complex numbers`, e.pos);
    }
    if (!isNum(l) || !isNum(r)) return fail(`'${e.op}' is only supported between numbers here (use fd.ops for tensors)`, e.pos);
    const a = plain(l) as number;
    const b = plain(r) as number;
    const float = l instanceof PyFloat || r instanceof PyFloat || e.op === '/' || (e.op === '**' && b < 0);
    if ((e.op === '/' || e.op === '//' || e.op === '%') && b === 0) return fail(`division by zero in '${e.op}'`, e.pos);
    const value = ((): number => {
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return a / b;
        case '//':
          return Math.floor(a / b);
        case '%':
          return a - Math.floor(a / b) * b;
        case '**':
          return a ** b;
        default:
          return fail(`unsupported operator '${e.op}'`, e.pos);
      }
    })();
    if (!float && !Number.isFinite(value)) return fail(`integer result of '${e.op}' is too large for tsfuser (ints beyond ±(2^53 − 1) are held as doubles, at most ~1.8e308)`, e.pos);
    return float ? new PyFloat(value) : value === 0 ? 0 : value;
  }

  private attribute(e: Expr & { kind: 'attribute' }): PyValue {
    const obj = this.eval(e.object);
    if (obj === DATATYPE) {
      if (e.attr === 'Null') return null;
      if (isDataType(e.attr)) return new PyDtype(e.attr);
      return fail(`DataType.${e.attr} is not supported (tsfuser has ${DATA_TYPES.join(', ')})`, e.pos);
    }
    if (obj === TORCH) {
      const found = torchDtype(e.attr);
      return found.kind === 'dtype' ? new PyDtype(found.dtype) : fail(found.message, e.pos);
    }
    if (obj === FD && e.attr === 'ops') return FD_OPS;
    if (obj instanceof TensorHandle && e.attr === 'ndim') return obj.ndim;
    return fail(`unsupported attribute '.${e.attr}'`, e.pos);
  }

  private call(e: Expr & { kind: 'call' }): PyValue {
    if (e.func.kind === 'name' && this.env.get(e.func.id) === FLOAT) return this.floatCall(e);
    if (e.func.kind === 'name' && this.env.get(e.func.id) === COMPLEX) return this.complexCall(e);
    if (e.func.kind !== 'attribute') return fail('unsupported call: only fd.*, fd.ops.*, tensor methods and float() can be called in a definition', e.pos);
    const target = this.eval(e.func.object);
    const method = e.func.attr;
    const args = e.args.map((a) => this.eval(a));
    const kwargs = new Map<string, { value: PyValue; pos: Position }>(e.keywords.map((k: Keyword) => [k.name, { value: this.eval(k.value), pos: k.pos }]));
    const pos = e.func.pos;
    if (target === FD_OPS) return this.opCall(method, args, kwargs, e);
    if (target === FD) return this.fdCall(method, args, kwargs, e);
    if (target instanceof TensorHandle) {
      if (method === 'size') return at(pos, () => target.size(this.intArg(args[0] ?? kwargs.get('dim')?.value, 'dim', e.pos)));
      if (method === 'shape') return at(pos, () => target.shape());
      return fail(`unsupported tensor method '${method}' (supported: size, shape)`, e.pos);
    }
    if (isMarker(target)) return fail(`unsupported call '${target.marker}.${method}'`, e.pos);
    return fail(`'${method}' cannot be called on this value`, e.pos);
  }

  /** Python's `complex(re, im)` of two real numbers (im defaults to 0). */
  private complexCall(e: Expr & { kind: 'call' }): PyValue {
    if (e.keywords.length > 0 || e.args.length > 2) return fail('complex() takes at most two positional arguments (real, imag)', e.pos);
    const parts = e.args.map((a) => {
      const v = this.eval(a);
      if (v instanceof PyComplex) return v;
      const f = typeof v === 'string' ? null : pyFloatOf(v);
      return f === null ? fail('complex() needs numbers', a.pos) : new PyComplex(f, 0);
    });
    const [re = new PyComplex(0, 0), im = new PyComplex(0, 0)] = parts;
    // complex(a, b) = a + b·1j, as python computes it.
    return new PyComplex(re.re - im.im, re.im + im.re);
  }

  /** Python's `float(x)`: a number, a bool, or a string such as "inf", "-inf", "nan", "1.5". */
  private floatCall(e: Expr & { kind: 'call' }): PyValue {
    if (e.keywords.length > 0 || e.args.length > 1) return fail('float() takes at most one positional argument', e.pos);
    const arg = e.args[0];
    if (arg === undefined) return new PyFloat(0);
    const v = this.eval(arg);
    const f = pyFloatOf(v);
    if (f === null) return fail(typeof v === 'string' ? `could not convert string to float: ${describeValue(v)}` : 'float() needs a number or a string', arg.pos);
    return new PyFloat(f);
  }

  private intArg(v: PyValue | undefined, name: string, pos: Position): number {
    if (typeof v === 'number' && Number.isInteger(v)) return v;
    return fail(`${name} must be an integer`, pos);
  }

  /** Binds positional and keyword arguments to named parameters; unknown keywords are errors. */
  private bind(
    what: string,
    params: readonly { python: string; aliases?: readonly string[] }[],
    args: readonly PyValue[],
    kwargs: ReadonlyMap<string, { value: PyValue; pos: Position }>,
    e: Expr & { kind: 'call' },
  ): (PyValue | undefined)[] {
    if (args.length > params.length) {
      fail(`${what}() takes at most ${params.length} arguments (${params.map((p) => p.python).join(', ')}), got ${args.length}`, e.pos);
    }
    const bound: (PyValue | undefined)[] = params.map((_, i) => args[i]);
    for (const [name, { value, pos }] of kwargs) {
      const i = params.findIndex((p) => p.python === name || (p.aliases ?? []).includes(name));
      if (i < 0) fail(`${what}() got an unexpected keyword argument '${name}' (parameters: ${params.map((p) => p.python).join(', ')})`, pos);
      if (bound[i] !== undefined) fail(`${what}() got multiple values for argument '${name}'`, pos);
      bound[i] = value;
    }
    return bound;
  }

  private opCall(name: string, args0: readonly PyValue[], kwargs0: ReadonlyMap<string, { value: PyValue; pos: Position }>, e: Expr & { kind: 'call' }): PyValue {
    const spec = opByPythonName(name);
    if (spec === undefined) return fail(`unknown op 'fd.ops.${name}': tsfuser does not support it`, e.pos);
    let args = args0;
    const kwargs = new Map(kwargs0);
    // Older nvFuser: reshape(arg, original_shape, new_shape) and squeeze(arg, original_shape, dims).
    if ((name === 'reshape' || name === 'squeeze') && (kwargs.has('original_shape') || args.length === 3)) {
      kwargs.delete('original_shape');
      if (args.length === 3) args = [args[0] as PyValue, args[2] as PyValue];
    }
    // nvFuser's reduction(arg, dtype) binding: a DataType second argument reduces every dim
    // (fd.ops.prod(T0, DataType.Double) is fd.ops.prod(T0, dtype=DataType.Double)).
    const second = args[1];
    if (REDUCTIONS.has(name) && args.length === 2 && second instanceof PyDtype && !kwargs.has('dtype')) {
      kwargs.set('dtype', { value: second, pos: e.args[1]?.pos ?? e.pos });
      args = [args[0] as PyValue];
    }
    for (const k of FRONTEND_KEYWORDS[name] ?? []) {
      const given = kwargs.get(k.python);
      if (given === undefined || spec.params.some((p) => p.python === k.python)) continue;
      const check = checkFrontendKeyword(name, k, plain(given.value));
      if (!check.ok) fail(check.message, given.pos);
      kwargs.delete(k.python);
    }
    const bound = this.bind(`fd.ops.${name}`, spec.params, args, kwargs, e);
    const argPos = (p: ParamSpec, i: number): Position => {
      for (const k of [p.python, ...(p.aliases ?? [])]) {
        const given = kwargs.get(k);
        if (given !== undefined) return given.pos;
      }
      return e.args[i]?.pos ?? e.pos;
    };
    const argText = (p: ParamSpec, i: number): string | undefined => {
      const written = e.keywords.find((k) => k.name === p.python || (p.aliases ?? []).includes(k.name))?.value ?? e.args[i];
      return written === undefined ? undefined : numberLiteralText(written);
    };
    const values = bound.map((v, i) => {
      const p = spec.params[i] as ParamSpec;
      return v === undefined ? undefined : this.convert(`fd.ops.${name}`, p, v, argPos(p, i), argText(p, i));
    });
    // Trailing undefined arguments take their defaults in FusionDefinition.
    const fn = (this.fd.ops as unknown as Record<string, (...a: unknown[]) => unknown>)[spec.name];
    if (fn === undefined) return fail(`op ${spec.name} is missing from fd.ops`, e.pos);
    const missing = spec.params.findIndex((p, i) => values[i] === undefined && p.default === undefined);
    if (missing >= 0) fail(`fd.ops.${name}() missing required argument '${(spec.params[missing] as ParamSpec).python}'`, e.pos);
    return at(e.pos, () => fn(...values) as PyValue);
  }

  /** Python value → fd.ops argument: floats in operand slots become Double scalars. */
  /**
   * Python value → fd.ops argument: floats in operand slots become Double scalars; a python float
   * where nvFuser's binding takes ints (dims, sizes, indices) is an error, as in nvFuser, rather
   * than an integral JS number that prints back differently (`-0.0`, `2.0`).
   */
  private convert(what: string, param: ParamSpec, v: PyValue, pos: Position, literal?: string): unknown {
    switch (param.kind) {
      case 'operand':
      case 'scalar':
      case 'optScalar':
        if (v instanceof PyFloat) return at(pos, () => this.fd.defineScalar(v.value, 'Double'));
        if (v instanceof PyComplex) return at(pos, () => this.fd.defineScalar(new Complex(v.re, v.im), 'ComplexDouble'));
        // A python int here becomes an Int constant: it must be exact.
        if (typeof v === 'number' && !Number.isSafeInteger(v)) {
          fail(`${what}(): ${param.python} = ${literal ?? describeValue(v)} does not fit DataType.Int (an integer; tsfuser holds at most ±(2^53 − 1) exactly)`, pos);
        }
        break;
      case 'int':
      case 'ints':
      case 'intOrInts':
      case 'sizes':
      case 'optSizes': {
        const float = v instanceof PyFloat ? v : Array.isArray(v) ? (v as readonly PyValue[]).find((x) => x instanceof PyFloat) : undefined;
        if (float !== undefined) fail(`${what}(): ${param.python} takes integers, got the float ${describeValue(float)}`, pos);
        break;
      }
      case 'dtype':
        if (v !== null && !(v instanceof PyDtype)) fail(`${what}(): ${param.python} takes a DataType (DataType.X or torch.x) or None, got ${describeValue(v)}`, pos);
        break;
      case 'bool': {
        // nvFuser's printer writes some bools as 0/1 (`manual_normalization=0`); its binding takes them.
        const flag = pythonFlag(v);
        return flag ?? fail(`${what}(): ${param.python} takes True/False (or 1/0), got ${describeValue(v)}`, pos);
      }
      case 'bools':
        return Array.isArray(v) ? (v as readonly PyValue[]).map((x) => pythonFlag(x) ?? plain(x)) : plain(v);
      case 'tensor':
      case 'optTensor':
      case 'tensors':
      case 'string':
        break;
      default: {
        const unreachable: never = param.kind;
        throw new Error(`unknown parameter kind ${String(unreachable)}`);
      }
    }
    return plain(v);
  }

  private fdCall(name: string, args: readonly PyValue[], kwargs: ReadonlyMap<string, { value: PyValue; pos: Position }>, e: Expr & { kind: 'call' }): PyValue {
    const fd = this.fd;
    switch (name) {
      case 'define_tensor':
        return at(e.pos, () => this.defineTensor(args, kwargs, e));
      case 'define_scalar':
      case 'define_constant': {
        // nvFuser's define_scalar(dtype) binding: a DataType as the only argument is a symbolic
        // scalar input of that dtype (define_scalar(DataType.Int) is define_scalar(None, dtype=DataType.Int)).
        const only = args[0];
        if (name === 'define_scalar' && only instanceof PyDtype && args.length === 1 && kwargs.size === 0) return at(e.pos, () => fd.defineScalar(null, only.dtype));
        const [value, dtype] = this.bind(`fd.${name}`, [{ python: 'value' }, { python: 'dtype' }], args, kwargs, e);
        const v = value ?? null;
        if (v !== null && typeof v !== 'number' && typeof v !== 'boolean' && !(v instanceof PyFloat) && !(v instanceof PyComplex)) fail(`fd.${name}: value must be a number, a bool or None`, e.pos);
        const given = dtypeArgument(dtype);
        if (given === null) return fail(`fd.${name}: dtype must be a DataType (DataType.X or torch.x), got ${describeValue(dtype)}`, kwargs.get('dtype')?.pos ?? e.args[1]?.pos ?? e.pos);
        if (v instanceof PyComplex) {
          const cdt = given ?? 'ComplexDouble';
          if (cdt !== 'ComplexFloat' && cdt !== 'ComplexDouble') return fail(`fd.${name}: a complex value needs DataType.ComplexFloat or DataType.ComplexDouble, got DataType.${cdt}`, e.pos);
          return at(e.pos, () => fd.defineScalar(new Complex(v.re, v.im), cdt));
        }
        const dt = given ?? (v instanceof PyFloat ? 'Double' : undefined);
        const literal = e.args[0] === undefined ? undefined : numberLiteralText(e.args[0]);
        const checked = checkScalarValue(plain(v) as number | boolean | null, v instanceof PyFloat, dt, literal);
        if (typeof checked === 'string') return fail(`fd.${name}: ${checked}`, (e.args[0] ?? e).pos);
        return at(e.pos, () => fd.defineScalar(checked.value, dt));
      }
      case 'define_vector':
        return this.defineVector(args, kwargs, e);
      case 'add_output':
        this.addOutput(args, kwargs, e);
        return null;
      default:
        return fail(`unsupported FusionDefinition method 'fd.${name}'`, e.pos);
    }
  }

  /**
   * nvFuser's three define_vector bindings: `define_vector(size)` (that many Int scalar inputs),
   * `define_vector(values, dtype=DataType.Int)` over a list or tuple of ints (each ≥ -1, as
   * nvFuser's shape check wants) and scalars. nvFuser records every vector as Int whatever
   * `dtype` says; so does tsfuser (the dtype must still be a DataType).
   */
  private defineVector(args: readonly PyValue[], kwargs: ReadonlyMap<string, { value: PyValue; pos: Position }>, e: Expr & { kind: 'call' }): PyValue {
    const fd = this.fd;
    const first = kwargs.get('size')?.value ?? args[0];
    if (kwargs.has('size') || typeof first === 'number' || first instanceof PyFloat) {
      const [size] = this.bind('fd.define_vector', [{ python: 'size' }], args, kwargs, e);
      const where = kwargs.get('size')?.pos ?? e.args[0]?.pos ?? e.pos;
      if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return fail(`fd.define_vector: size must be a non-negative integer, got ${describeValue(size)}`, where);
      return at(e.pos, () => fd.defineVector(size));
    }
    const [values, dtype] = this.bind('fd.define_vector', [{ python: 'values' }, { python: 'dtype' }], args, kwargs, e);
    const valuesPos = kwargs.get('values')?.pos ?? e.args[0]?.pos ?? e.pos;
    if (!Array.isArray(values)) return fail(`fd.define_vector: expected a size, or a list or tuple of sizes, got ${describeValue(values)}`, valuesPos);
    const dt = dtypeArgument(dtype);
    if (dt === null) return fail(`fd.define_vector: dtype must be a DataType, got ${describeValue(dtype)}`, kwargs.get('dtype')?.pos ?? e.args[1]?.pos ?? e.pos);
    const elements = (values as readonly PyValue[]).map((v, i) => {
      if (v instanceof ScalarHandle) return v;
      if (typeof v === 'number' && Number.isSafeInteger(v) && v >= -1) return v;
      return fail(`fd.define_vector: element ${i} must be an integer ≥ -1 (symbolic -1, 0, broadcast 1 or a static size) or a scalar, got ${describeValue(plain(v))}`, valuesPos);
    });
    return at(e.pos, () => fd.defineVector(elements, 'Int'));
  }

  /**
   * nvFuser's add_output bindings: `add_output(scalar)`, `add_output(t, alias_input=None)` and
   * `add_output(t, stride_order)`; a second positional argument is an alias when it is a tensor
   * and a stride order when it is a list (pybind picks the overload the same way).
   */
  private addOutput(args: readonly PyValue[], kwargs: ReadonlyMap<string, { value: PyValue; pos: Position }>, e: Expr & { kind: 'call' }): void {
    let positional = args;
    const keywords = new Map(kwargs);
    const secondArg = e.args[1];
    if (args.length === 2 && Array.isArray(args[1]) && secondArg !== undefined) {
      if (keywords.has('stride_order')) fail("fd.add_output() got multiple values for argument 'stride_order'", secondArg.pos);
      keywords.set('stride_order', { value: args[1] as PyValue, pos: secondArg.pos });
      positional = [args[0] as PyValue];
    }
    const [out, second, order] = this.bind('fd.add_output', [{ python: 'output' }, { python: 'alias_input' }, { python: 'stride_order' }], positional, keywords, e);
    const orderPos = keywords.get('stride_order')?.pos ?? e.pos;
    const aliasPos = keywords.get('alias_input')?.pos ?? secondArg?.pos ?? e.pos;
    if (!(out instanceof TensorHandle) && !(out instanceof ScalarHandle)) return fail(`fd.add_output expects a tensor or scalar, got ${describeValue(plain(out ?? null))}`, kwargs.get('output')?.pos ?? e.args[0]?.pos ?? e.pos);
    const alias = second ?? null;
    if (alias !== null && !(alias instanceof TensorHandle)) return fail(`fd.add_output: alias_input must be a tensor, got ${describeValue(plain(alias))}`, aliasPos);
    if (order !== undefined && order !== null) {
      if (alias !== null) return fail("fd.add_output: stride_order can't be dictated for aliased outputs", orderPos);
      if (!(out instanceof TensorHandle)) return fail("fd.add_output: stride_order can't be dictated for scalar outputs", orderPos);
      if (!Array.isArray(order) || !(order as readonly PyValue[]).every((v) => typeof v === 'number' && Number.isSafeInteger(v))) return fail(`fd.add_output: stride_order must be a list of integers, got ${describeValue(plain(order))}`, orderPos);
      const ints = order as readonly number[];
      // nvFuser's binding: empty, or a permutation of 0..rank-1 (no negative entries).
      if (ints.length > 0 && (ints.length !== out.ndim || ints.some((v) => v < 0 || v >= ints.length) || new Set(ints).size !== ints.length)) {
        return fail(`fd.add_output: stride_order [${ints.join(', ')}] must be empty or a permutation of 0..${out.ndim - 1} for a tensor of rank ${out.ndim}`, orderPos);
      }
      at(e.pos, () => this.fd.addOutput(out, { strideOrder: ints }));
      return;
    }
    if (alias !== null) {
      if (!(out instanceof TensorHandle)) return fail('fd.add_output: scalar outputs should not alias inputs', aliasPos);
      at(e.pos, () => this.fd.addOutput(out, { aliasInput: alias }));
      return;
    }
    at(e.pos, () => this.fd.addOutput(out));
  }

  private defineTensor(args: readonly PyValue[], kwargs: ReadonlyMap<string, { value: PyValue; pos: Position }>, e: Expr & { kind: 'call' }): TensorHandle {
    const fd = this.fd;
    const first = args[0];
    /** Where a bad argument was written: its keyword, else its positional slot, else the call. */
    const where = (names: readonly string[], argument: string): Position => kwargs.get(argument)?.pos ?? e.args[names.indexOf(argument)]?.pos ?? e.pos;
    if (typeof first === 'number' || first instanceof PyFloat || kwargs.has('ndims')) {
      const rankNames = ['ndims', 'dtype'];
      const [rank, dtype] = this.bind('fd.define_tensor', rankNames.map((python) => ({ python })), args, kwargs, e);
      const problem = checkDefineTensorArgs({ ndims: rank, dtype });
      if (problem !== null) return fail(`fd.define_tensor: ${problem.message}`, where(rankNames, problem.argument));
      return fd.defineTensor(rank as number, dtypeArgument(dtype) ?? undefined);
    }
    const names = ['shape', 'contiguity', 'dtype', 'is_cpu', 'stride_order', 'symbolic_sizes', 'contiguous', 'sizes', 'strides', 'static_sizes'];
    const raw = this.bind(
      'fd.define_tensor',
      names.map((python) => ({ python })),
      args,
      kwargs,
      e,
    );
    const [shape0, contiguityArg, dtype0, isCpu0, strideOrder0, symbolicSizes0, contiguous0, sizes0, strides0] = raw;
    // nvFuser's define_tensor also takes one bool for every dim (`contiguity=True`, as its
    // tests write it). It goes to defineTensor as is: getContiguityVec gives None to the size-1
    // dims at their allocation positions, which a stride order moves (expanding it here, per
    // logical dim, put the None at the wrong position under a stride order).
    const contiguity0 = contiguityArg;
    const problem = checkDefineTensorArgs({
      shape: shape0,
      contiguity: typeof contiguityArg === 'boolean' ? undefined : contiguityArg,
      dtype: dtype0,
      is_cpu: isCpu0,
      stride_order: strideOrder0,
      symbolic_sizes: symbolicSizes0,
      contiguous: contiguous0,
      sizes: sizes0,
      strides: strides0,
    });
    if (problem !== null) return fail(`fd.define_tensor: ${problem.message}`, where(names, problem.argument));
    // None stands for "not given" in every optional form.
    const [shape, contiguity, dtype, isCpu, strideOrder, symbolicSizes, contiguous, sizes, strides] = [shape0, contiguity0, ...raw.slice(2)].map((v) => (v === undefined || v === null ? undefined : plain(v)));
    const dt = (dtype ?? undefined) as 'Float' | undefined;
    const cpu = isCpu === true;
    let options: TensorOptions;
    if (sizes !== undefined || strides !== undefined) {
      if (sizes === undefined || strides === undefined) fail('fd.define_tensor: sizes and strides go together', e.pos);
      options = { sizes: sizes as number[], strides: strides as number[], dtype: dt, isCpu: cpu };
    } else if (symbolicSizes !== undefined) {
      options = { symbolicSizes: symbolicSizes as number[], contiguous: contiguous as boolean[] | undefined, dtype: dt, isCpu: cpu };
    } else if (shape !== undefined) {
      const so = strideOrder === undefined || strideOrder === null ? undefined : (strideOrder as number[]);
      options = { shape: shape as number[], contiguity: (contiguity ?? undefined) as (boolean | null)[] | boolean | undefined, dtype: dt, isCpu: cpu, strideOrder: so };
    } else {
      return fail('fd.define_tensor: give a rank, shape=/contiguity=, symbolic_sizes=/contiguous= or sizes=/strides=', e.pos);
    }
    if (Array.isArray(options.dtype) || (options.dtype !== undefined && !isDataType(options.dtype))) fail('fd.define_tensor: dtype must be a DataType', e.pos);
    return fd.defineTensor(options);
  }
}

/** The source text of a number literal (`-` included), to show values exactly as written. */
function numberLiteralText(e: Expr): string | undefined {
  if (e.kind === 'number') return e.text;
  if (e.kind === 'unary' && e.operand.kind === 'number') return `${e.op === '-' ? '-' : ''}${e.operand.text}`;
  return undefined;
}

export { PyFloat };

export type { OpSpec };

function asPyComplex(v: PyValue): PyComplex {
  if (v instanceof PyComplex) return v;
  return new PyComplex(v instanceof PyFloat ? v.value : (v as number), 0);
}
