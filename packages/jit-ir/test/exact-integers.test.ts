// Sizes, strides and int constants are exact int64 values: safe integers as numbers, larger ones
// as bigints, printed digit for digit; values outside int64 are a ParseError at the token.
import { describe, expect, it } from 'vitest';
import { ParseError, constantValue, parseIR, parseType, printType, typesEqual, type TensorType } from '../src/index.js';

const INT64_MAX = '9223372036854775807';
const INT64_MIN = '-9223372036854775808';

function tensor(text: string): TensorType {
  const t = parseType(text);
  if (t.kind !== 'Tensor') throw new Error(`not a tensor type: ${text}`);
  return t;
}

function parseError(fn: () => unknown): ParseError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw new Error(`expected ParseError, got ${String(e)}`);
  }
  throw new Error('expected a ParseError, but the text parsed');
}

function roundTrip(text: string): string {
  const first = parseIR(text).toString();
  expect(parseIR(first).toString()).toBe(first);
  return first;
}

describe('tensor sizes and strides', () => {
  it('keeps int64 max exactly (bigint) and small sizes as numbers', () => {
    const t = tensor(`Float(${INT64_MAX}, 3, strides=[3, 1], requires_grad=0, device=cuda:0)`);
    expect(t.sizes).toEqual([9223372036854775807n, 3]);
    expect(typeof t.sizes?.[1]).toBe('number');
    expect(printType(t)).toBe(`Float(${INT64_MAX}, 3, strides=[3, 1], requires_grad=0, device=cuda:0)`);
  });

  it('2^53 + 1 is not rounded', () => {
    const t = tensor('Long(9007199254740993, strides=[9007199254740993])');
    expect(t.sizes).toEqual([9007199254740993n]);
    expect(t.strides).toEqual([9007199254740993n]);
    expect(printType(t)).toBe('Long(9007199254740993, strides=[9007199254740993])');
  });

  it('2^53 - 1 stays a number; equal types compare equal', () => {
    const a = tensor('Float(9007199254740991)');
    expect(a.sizes).toEqual([9007199254740991]);
    expect(typesEqual(a, tensor('Float(9007199254740991)'))).toBe(true);
    expect(typesEqual(tensor(`Float(${INT64_MAX})`), tensor(`Float(${INT64_MAX})`))).toBe(true);
    expect(typesEqual(tensor(`Float(${INT64_MAX})`), tensor('Float(9223372036854775806)'))).toBe(false);
  });

  it('a graph with huge sizes and strides round-trips through print and parse', () => {
    const text = `graph(%x : Float(${INT64_MAX}, 3, strides=[3, 1], requires_grad=0, device=cuda:0)):\n  %y : Float(${INT64_MAX}, 3, strides=[${INT64_MAX}, 1], requires_grad=0, device=cuda:0) = aten::relu(%x)\n  return (%y)\n`;
    expect(roundTrip(text)).toBe(text);
  });

  it.each([
    ['size past int64', `Float(9223372036854775808)`, 'tensor size 9223372036854775808 does not fit in int64', 7],
    ['stride past int64', `Float(2, strides=[99999999999999999999])`, 'stride 99999999999999999999 does not fit in int64', 19],
    ['negative stride past int64', `Float(2, strides=[-9223372036854775809])`, 'stride -9223372036854775809 does not fit in int64', 19],
    ['fixed list size', 'int[99999999999]', 'a fixed list size must be between 0 and 2147483647, found 99999999999', 5],
    ['device index', 'Float(2, device=cuda:300)', 'device index must be between 0 and 127, found 300', 22],
  ])('%s is a ParseError at the number', (_name, text, message, column) => {
    const err = parseError(() => parseType(text));
    expect(err.description).toBe(message);
    expect([err.line, err.column]).toEqual([1, column]);
  });
});

describe('int constants and attributes', () => {
  it('int64 extremes stay exact in constants, lists and boxed tensors', () => {
    const text = [
      'graph():',
      `  %a : int = prim::Constant[value=${INT64_MAX}]()`,
      `  %b : int = prim::Constant[value=${INT64_MIN}]()`,
      `  %c : int[] = prim::Constant[value=[${INT64_MAX}, 1, ${INT64_MIN}]]()`,
      `  %d : Tensor = prim::Constant[value={${INT64_MAX}}]()`,
      '  %e : Tensor = prim::Constant[value={7}]()',
      '  return (%a, %b, %c, %d, %e)',
      '',
    ].join('\n');
    expect(roundTrip(text)).toBe(text);
    const [a, b, c, , e] = parseIR(text).nodes().map(constantValue);
    expect(a).toEqual({ kind: 'int', value: 9223372036854775807n });
    expect(b).toEqual({ kind: 'int', value: -9223372036854775808n });
    expect(c).toEqual({ kind: 'intList', value: [9223372036854775807n, 1, -9223372036854775808n] });
    expect(e).toMatchObject({ kind: 'tensor', value: { kind: 'scalar', value: 7, floating: false } });
  });

  it.each([
    ['constant', 'prim::Constant[value=9223372036854775808]()', 'integer attribute 9223372036854775808 does not fit in int64'],
    ['list element', 'prim::Constant[value=[1, -9223372036854775809]]()', 'integer list element -9223372036854775809 does not fit in int64'],
    ['boxed tensor', 'prim::Constant[value={18446744073709551616}]()', 'integer tensor constant 18446744073709551616 does not fit in int64'],
  ])('an int %s outside int64 is a ParseError', (_name, node, message) => {
    const err = parseError(() => parseIR(`graph():\n  %a : int = ${node}\n  return (%a)\n`));
    expect(err.description).toBe(message);
    expect(err.line).toBe(2);
  });

  it('a float list may hold large integer-looking numbers (they are doubles)', () => {
    const g = parseIR('graph():\n  %a : float[] = prim::Constant[value=[99999999999999999999, 0.5]]()\n  return (%a)\n');
    expect(constantValue(g.nodes()[0] as never)).toEqual({ kind: 'floatList', value: [1e20, 0.5] });
  });
});
