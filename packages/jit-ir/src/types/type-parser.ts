// Parses the type syntax of graph dumps and operator schemas: tensor types with sizes, strides,
// requires_grad and device; scalars; `T[]`, `T[N]`, `T?`, `(T, U)`, `List[T]`, `Optional[T]`,
// `Tuple[T, U]`. In schema mode `Tensor(a!)` is an alias annotation, returned beside the type.
// Invariants: malformed input raises ParseError at the offending token; sizes and strides are
// exact (see text/integers.ts); no accepted type nests deeper than MAX_TYPE_NESTING, so the
// recursive parser, printer and comparisons stay far from the JS stack limit.

import { ParseError } from '../errors.js';
import { boundedIntFromToken, exactIntegerFromToken, type ExactInteger } from '../text/integers.js';
import { describeToken, tokenize, type Token } from '../text/lexer.js';
import { TokenCursor } from '../text/cursor.js';
import { isScalarType, type ScalarType } from './scalar-type.js';
import { DynamicTensorType, listType, optionalType, simpleType, tupleType, type Device, type JitType, type TensorType } from './jit-type.js';
import { SIMPLE_TYPE_NAMES, formatTensorType } from './type-printer.js';

/** `(a!)`-style alias annotation of a schema argument: the alias sets and whether it is written. */
export interface AliasAnnotation {
  readonly sets: readonly string[];
  readonly isWrite: boolean;
  /** Sets after `->`, e.g. `(a -> *)`. */
  readonly afterSets: readonly string[];
}

export interface SchemaTypeResult {
  readonly type: JitType;
  readonly alias: AliasAnnotation | null;
}

/**
 * The deepest type nesting accepted: `int[][]` and `Optional[Tuple[int]]` nest 3 deep. Real graphs
 * stay below 10; deeper text raises "type nesting deeper than 256" at the token that goes past.
 */
export const MAX_TYPE_NESTING = 256;

/** The largest `N` of a fixed-size list type `T[N]`. */
const MAX_FIXED_LIST_SIZE = 2 ** 31 - 1;

interface NestedType {
  readonly type: JitType;
  /** 1 for a leaf type, 1 + the deepest element for List/Optional/Tuple. */
  readonly depth: number;
}

/** Parses one type from a cursor. `schemaMode` turns `Tensor(...)` into an alias annotation. */
export function parseTypeAt(cur: TokenCursor, schemaMode = false): SchemaTypeResult {
  let alias: AliasAnnotation | null = null;
  const { type } = parseNestedType(cur, schemaMode, 0, (a) => {
    alias = a;
  });
  return { type, alias };
}

function nestingError(t: Token): ParseError {
  return new ParseError(`type nesting deeper than ${MAX_TYPE_NESTING}`, t.line, t.column);
}

/**
 * One type whose `enclosing` constructors are already open. Keeps `enclosing + depth <=
 * MAX_TYPE_NESTING` for every type it returns, so recursion depth is bounded by the limit.
 */
function parseNestedType(cur: TokenCursor, schemaMode: boolean, enclosing: number, setAlias: (a: AliasAnnotation) => void): NestedType {
  let { type, depth } = parseBaseType(cur, schemaMode, enclosing, setAlias);
  for (;;) {
    const t = cur.peek();
    if (t.kind === 'punct' && t.text === '[') {
      if (enclosing + depth + 1 > MAX_TYPE_NESTING) throw nestingError(t);
      cur.next();
      let fixedSize: number | null = null;
      const n = cur.peek();
      if (n.kind === 'int') {
        cur.next();
        fixedSize = boundedIntFromToken(n, 'a fixed list size', MAX_FIXED_LIST_SIZE);
      }
      cur.expectPunct(']', 'to close a list type');
      type = listType(type, fixedSize);
      depth++;
      if (schemaMode && cur.isPunct('(')) setAlias(parseAliasAnnotation(cur));
    } else if (t.kind === 'punct' && t.text === '?') {
      if (enclosing + depth + 1 > MAX_TYPE_NESTING) throw nestingError(t);
      cur.next();
      type = optionalType(type);
      depth++;
    } else {
      return { type, depth };
    }
  }
}

/** Elements of a tuple / `List[...]` / `Optional[...]` up to `close`, one level deeper. */
function parseElements(cur: TokenCursor, schemaMode: boolean, enclosing: number, close: ')' | ']'): { elems: JitType[]; depth: number } {
  const elems: JitType[] = [];
  let deepest = 0;
  if (!cur.isPunct(close)) {
    do {
      const e = parseNestedType(cur, schemaMode, enclosing + 1, () => undefined);
      elems.push(e.type);
      deepest = Math.max(deepest, e.depth);
    } while (cur.acceptPunct(','));
  }
  return { elems, depth: deepest + 1 };
}

function parseBaseType(cur: TokenCursor, schemaMode: boolean, enclosing: number, setAlias: (a: AliasAnnotation) => void): NestedType {
  const t = cur.peek();
  if (t.kind === 'punct' && t.text === '(') {
    if (enclosing + 1 >= MAX_TYPE_NESTING) throw nestingError(t);
    cur.next();
    const { elems, depth } = parseElements(cur, schemaMode, enclosing, ')');
    cur.expectPunct(')', 'to close a tuple type');
    return { type: tupleType(elems), depth };
  }
  if (t.kind !== 'ident') return cur.fail(`expected a type but found ${describeToken(t)}`, t);
  cur.next();
  const name = t.text;
  if (name === 'List' || name === 'Optional' || name === 'Tuple') {
    if (enclosing + 1 >= MAX_TYPE_NESTING) throw nestingError(t);
    cur.expectPunct('[', `after '${name}'`);
    const { elems, depth } = parseElements(cur, schemaMode, enclosing, ']');
    cur.expectPunct(']', `to close '${name}['`);
    if (name === 'Tuple') return { type: tupleType(elems), depth };
    const [elem] = elems;
    if (elem === undefined || elems.length !== 1) return cur.fail(`'${name}[...]' takes exactly one type`, t);
    return { type: name === 'List' ? listType(elem) : optionalType(elem), depth };
  }
  return { type: parseLeafType(cur, schemaMode, t, setAlias), depth: 1 };
}

/** A type without elements: a scalar type name or a (refined) tensor type; `t` is consumed. */
function parseLeafType(cur: TokenCursor, schemaMode: boolean, t: Token, setAlias: (a: AliasAnnotation) => void): JitType {
  const name = t.text;
  const simple = SIMPLE_TYPE_NAMES.get(name);
  if (simple !== undefined) return simpleType(simple);
  if (name === 'Tensor') {
    if (cur.isPunct('(')) {
      if (schemaMode) {
        setAlias(parseAliasAnnotation(cur));
        return DynamicTensorType;
      }
      return parseTensorDetails(cur, null);
    }
    return DynamicTensorType;
  }
  if (isScalarType(name)) {
    if (!cur.isPunct('(')) return cur.fail(`expected '(' after tensor element type '${name}'`, cur.peek());
    return parseTensorDetails(cur, name);
  }
  if (name.endsWith('Tensor')) {
    const st = name.slice(0, -'Tensor'.length);
    if (isScalarType(st)) {
      const base: TensorType = { ...DynamicTensorType, scalarType: st };
      return cur.isPunct('(') ? parseTensorDetails(cur, st, base) : base;
    }
  }
  return cur.fail(`unknown type '${name}'`, t);
}

/** `(8, *, strides=[...], requires_grad=0, device=cuda:0)` after `Float`/`Tensor`. */
function parseTensorDetails(cur: TokenCursor, scalarType: ScalarType | null, base?: TensorType): TensorType {
  cur.expectPunct('(');
  const sizes: (ExactInteger | null)[] = [];
  let strides: ExactInteger[] | null = null;
  let requiresGrad: boolean | null = null;
  let device: Device | null = null;
  let sawKeyword = false;
  if (!cur.isPunct(')')) {
    do {
      const t = cur.peek();
      if (t.kind === 'int' && !sawKeyword) {
        cur.next();
        const size = exactIntegerFromToken(t, 'tensor size');
        if (size < 0) cur.fail('tensor sizes must be non-negative', t);
        sizes.push(size);
      } else if (t.kind === 'punct' && t.text === '*' && !sawKeyword) {
        cur.next();
        sizes.push(null);
      } else if (t.kind === 'ident' && cur.isPunct('=', 1)) {
        sawKeyword = true;
        cur.next();
        cur.next();
        if (t.text === 'strides') {
          cur.expectPunct('[', "after 'strides='");
          strides = [];
          if (!cur.isPunct(']')) {
            do {
              strides.push(exactIntegerFromToken(cur.expectKind('int', 'an integer stride'), 'stride'));
            } while (cur.acceptPunct(','));
          }
          cur.expectPunct(']', 'to close the strides list');
        } else if (t.text === 'requires_grad') {
          const v = cur.expectKind('int', "0 or 1 after 'requires_grad='");
          if (v.text !== '0' && v.text !== '1') cur.fail('requires_grad must be 0 or 1', v);
          requiresGrad = v.text === '1';
        } else if (t.text === 'device') {
          device = parseDevice(cur);
        } else {
          cur.fail(`unknown tensor type field '${t.text}' (expected strides, requires_grad or device)`, t);
        }
      } else {
        cur.fail(`expected a size, '*', strides=, requires_grad= or device= in tensor type but found ${describeToken(t)}`, t);
      }
    } while (cur.acceptPunct(','));
  }
  const close = cur.expectPunct(')', 'to close the tensor type');
  if (base !== undefined && sizes.length > 0) cur.fail('a <Type>Tensor type cannot list sizes', close);
  if (strides !== null && strides.length !== sizes.length) cur.fail(`strides has ${strides.length} entries but the tensor has ${sizes.length} dimensions`, close);
  if (strides !== null && sizes.some((s) => s === null)) cur.fail('strides given for a tensor with unknown sizes', close);
  return internTensorType({
    kind: 'Tensor',
    scalarType,
    // `Tensor(requires_grad=0, device=cuda:0)` is how PyTorch prints an unknown-rank tensor.
    sizes: base !== undefined || (scalarType === null && sizes.length === 0 && sawKeyword) ? null : sizes,
    strides,
    requiresGrad,
    device,
  });
}

/** Parsed tensor types by printed text; cleared when it grows past INTERNED_TYPES_LIMIT. */
const internedTensorTypes = new Map<string, TensorType>();
const INTERNED_TYPES_LIMIT = 4096;

/**
 * One shared object per distinct tensor type. Types are immutable and two types that print alike
 * are structurally equal (the printer's invariant), so a 20,000-node graph whose values all have
 * `Float(4, 8, strides=[8, 1], …)` holds one type object instead of 20,000 (with their size,
 * stride and device objects), and printing it prints the type once (printType caches by object).
 */
function internTensorType(t: TensorType): TensorType {
  const key = formatTensorType(t);
  const known = internedTensorTypes.get(key);
  if (known !== undefined) return known;
  if (internedTensorTypes.size >= INTERNED_TYPES_LIMIT) internedTensorTypes.clear();
  internedTensorTypes.set(key, t);
  return t;
}

const DEVICE_TYPES = new Set(['cpu', 'cuda', 'meta', 'mps', 'xpu', 'hip', 'xla', 'lazy', 'ipu', 'mkldnn', 'opengl', 'opencl', 'ideep', 've', 'fpga', 'ort', 'vulkan', 'metal', 'hpu', 'mtia', 'privateuseone']);

/** c10::DeviceIndex is an int8. */
const MAX_DEVICE_INDEX = 127;

export function parseDevice(cur: TokenCursor): Device {
  const t = cur.expectKind('ident', 'a device such as cuda:0');
  if (!DEVICE_TYPES.has(t.text)) cur.fail(`unknown device type '${t.text}'`, t);
  if (cur.acceptPunct(':')) {
    const idx = cur.expectKind('int', 'a device index');
    return { type: t.text, index: boundedIntFromToken(idx, 'device index', MAX_DEVICE_INDEX) };
  }
  return { type: t.text, index: null };
}

/** Parses `cuda:0` / `cpu` from a string, as stored in Device constants. */
export function parseDeviceString(text: string): Device {
  const cur = new TokenCursor(tokenize(text));
  const d = parseDevice(cur);
  const rest = cur.peek();
  if (rest.kind !== 'newline' && rest.kind !== 'eof') cur.fail(`unexpected ${describeToken(rest)} after device`, rest);
  return d;
}

function parseAliasAnnotation(cur: TokenCursor): AliasAnnotation {
  cur.expectPunct('(', 'to start an alias annotation');
  const sets: string[] = [];
  const afterSets: string[] = [];
  let isWrite = false;
  const readSet = (into: string[]): void => {
    do {
      const t = cur.peek();
      if (t.kind === 'punct' && t.text === '*') {
        cur.next();
        into.push('*');
      } else {
        into.push(cur.expectKind('ident', 'an alias set name').text);
      }
    } while (cur.acceptPunct('|'));
  };
  readSet(sets);
  if (cur.acceptPunct('!')) isWrite = true;
  if (cur.acceptPunct('->')) {
    readSet(afterSets);
    if (cur.acceptPunct('!')) isWrite = true;
  }
  cur.expectPunct(')', 'to close the alias annotation');
  return { sets, isWrite, afterSets };
}

/** Parses a whole string as one type (IR syntax). Throws ParseError. */
export function parseType(text: string): JitType {
  const cur = new TokenCursor(tokenize(text));
  const { type } = parseTypeAt(cur, false);
  const rest = cur.peek();
  if (rest.kind !== 'newline' && rest.kind !== 'eof') {
    throw new ParseError(`unexpected ${describeToken(rest)} after type`, rest.line, rest.column);
  }
  return type;
}
