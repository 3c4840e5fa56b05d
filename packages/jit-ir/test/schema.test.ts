import { describe, expect, it } from 'vitest';
import { BUILTIN_SCHEMAS, ParseError, builtinSchemas, parseIR, parseSchema, printSchema, printType, schemasFor, isMutatingSchema } from '../src/index.js';
import { F4x8 } from './helpers.js';

describe('schema parser', () => {
  it('parses name, overload, arguments, kwarg-only marker, defaults and returns', () => {
    const s = parseSchema('aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor');
    expect(s.name).toBe('aten::add');
    expect(s.overloadName).toBe('Tensor');
    expect(s.arguments.map((a) => [a.name, printType(a.type), a.kwargOnly])).toEqual([
      ['self', 'Tensor', false],
      ['other', 'Tensor', false],
      ['alpha', 'Scalar', true],
    ]);
    expect(s.arguments[2]?.defaultValue).toEqual({ kind: 'int', value: 1n });
    expect(s.returns.map((r) => printType(r.type))).toEqual(['Tensor']);
  });

  it('parses optional types, tuples of returns and list defaults', () => {
    const bn = parseSchema('aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)');
    expect(bn.returns.length).toBe(3);
    expect(bn.arguments[1] && printType(bn.arguments[1].type)).toBe('Tensor?');
    const sum = parseSchema('aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor');
    expect(sum.arguments[1] && printType(sum.arguments[1].type)).toBe('int[1]?');
    expect(sum.arguments[2]?.defaultValue).toEqual({ kind: 'bool', value: false });
    expect(sum.arguments[3]?.defaultValue).toEqual({ kind: 'none' });
    const amax = parseSchema('aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor');
    expect(amax.arguments[1]?.defaultValue).toEqual({ kind: 'list', items: [] });
    const gelu = parseSchema('aten::gelu(Tensor self, *, str approximate="none") -> Tensor');
    expect(gelu.arguments[1]?.defaultValue).toEqual({ kind: 'str', value: 'none' });
  });

  it('parses alias annotations', () => {
    const s = parseSchema('aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)');
    expect(s.arguments[0]?.alias).toEqual({ sets: ['a'], isWrite: true, afterSets: [] });
    expect(s.returns[0]?.alias).toEqual({ sets: ['a'], isWrite: true, afterSets: [] });
    expect(isMutatingSchema(s)).toBe(true);
    const v = parseSchema('aten::view(Tensor(a) self, int[] size) -> Tensor(a)');
    expect(v.arguments[0]?.alias?.isWrite).toBe(false);
    expect(isMutatingSchema(v)).toBe(false);
    const named = parseSchema('aten::foo(Tensor(a -> *) x, ...) -> (Tensor(a!) out, Tensor b)');
    expect(named.isVararg).toBe(true);
    expect(named.returns.map((r) => r.name)).toEqual(['out', 'b']);
  });

  it('printSchema inverts parseSchema for the whole table', () => {
    for (const text of BUILTIN_SCHEMAS) {
      const printed = printSchema(parseSchema(text));
      expect(printSchema(parseSchema(printed))).toBe(printed);
      expect(printed).toBe(text);
    }
  });

  it('table has the ops the fuser needs', () => {
    expect(builtinSchemas().length).toBeGreaterThanOrEqual(60);
    for (const name of ['aten::add', 'aten::mul', 'aten::relu', 'aten::native_batch_norm', 'aten::layer_norm', 'aten::native_layer_norm', 'aten::softmax', 'aten::_softmax', 'aten::log_softmax', 'aten::sum', 'aten::mean', 'aten::var', 'aten::gelu', 'aten::gelu_backward', 'aten::silu', 'aten::sigmoid', 'aten::tanh', 'aten::exp', 'aten::where', 'aten::clamp', 'aten::threshold', 'aten::to', 'aten::type_as', 'aten::reshape', 'aten::view', 'aten::squeeze', 'aten::unsqueeze', 'aten::permute', 'aten::t', 'aten::dropout', 'aten::linear', 'aten::size', 'aten::lt', 'aten::sub', 'aten::div', 'aten::pow']) {
      expect(schemasFor(name).length, name).toBeGreaterThan(0);
    }
  });

  it('rejects malformed schemas with ParseError', () => {
    for (const bad of ['add(Tensor self) -> Tensor', 'aten::add(Tensor self -> Tensor', 'aten::add(Tensor) -> Tensor', 'aten::add(Tensor self) Tensor', 'aten::add(Tensor(a! self) -> Tensor', 'aten::add(Tensor self, *, *, int x) -> Tensor', 'aten::add(Foo self) -> Tensor']) {
      expect(() => parseSchema(bad), bad).toThrow(ParseError);
    }
  });
});

describe('node.matches and node.schema', () => {
  const g = parseIR(`graph(%x : ${F4x8}, %y : Tensor, %i : int, %f : float, %b : bool, %l : int[]):
  %none : NoneType = prim::Constant()
  %k : bool = prim::Constant[value=1]()
  %1 : Tensor = aten::add(%x, %y, %i)
  %2 : Tensor = aten::add(%x, %f, %i)
  %3 : Tensor = aten::mul(%x, %f)
  %4 : Tensor = aten::mul(%x, %b)
  %5 : Tensor = aten::sum(%x, %l, %k, %none)
  %6 : int[] = aten::size(%x)
  %7 : Tensor = aten::relu(%i)
  %8 : Tensor = aten::clamp(%x, %none, %f)
  %9 : bool = aten::lt(%i, %i)
  return (%1)
`);
  const nodes = g.nodes().slice(2);
  const at = (i: number): NonNullable<(typeof nodes)[number]> => {
    const n = nodes[i];
    if (n === undefined) throw new Error('missing node');
    return n;
  };

  it('matches by kind, arity and input subtypes', () => {
    expect(at(0).matches('aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor')).toBe(true);
    expect(at(0).matches('aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor')).toBe(false);
    expect(at(1).matches('aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor')).toBe(true);
    expect(at(2).matches('aten::mul.Scalar(Tensor self, Scalar other) -> Tensor')).toBe(true);
    expect(at(3).matches('aten::mul.Scalar(Tensor self, Scalar other) -> Tensor')).toBe(false);
    expect(at(5).matches('aten::size(Tensor self) -> int[]')).toBe(true);
    expect(at(5).matches('aten::size.int(Tensor self, int dim) -> int')).toBe(false);
    expect(at(0).matches('aten::mul.Tensor(Tensor self, Tensor other) -> Tensor')).toBe(false);
  });

  it('schema() returns the first matching table entry or null', () => {
    expect(at(0).schema()?.overloadName).toBe('Tensor');
    expect(at(1).schema()?.overloadName).toBe('Scalar');
    expect(at(2).schema()?.overloadName).toBe('Scalar');
    expect(at(3).schema()).toBeNull();
    expect(at(4).schema()?.overloadName).toBe('dim_IntList');
    expect(at(6).schema()).toBeNull();
    expect(at(7).schema()?.name).toBe('aten::clamp');
    expect(at(8).schema()?.overloadName).toBe('int');
    expect(g.nodes()[0]?.schema()).toBeNull();
  });
});
