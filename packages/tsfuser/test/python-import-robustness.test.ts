// Hostile and malformed python definitions (issue 21): each gets one DefinitionImportError with
// the right line:col and a message naming the construct — deep nesting past the documented
// limits, CR-only/CRLF/BOM files, definitions without outputs, scalars that do not fit their
// dtype, malformed define_tensor arguments, control characters. Cases the fuzzer found are here
// as regression tests.

import { describe, expect, it } from 'vitest';
import { DefinitionImportError, FusionCache, Tensor, importPythonDefinition } from '../src/index.js';

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';
const T0 = '    T0 = fd.define_tensor(shape=[-1], contiguity=[True], dtype=DataType.Float, is_cpu=False)\n';
const OUT = '    fd.add_output(T0)\n';

function importError(text: string): DefinitionImportError {
  try {
    importPythonDefinition(text, { cache: new FusionCache() });
  } catch (e) {
    if (e instanceof DefinitionImportError) return e;
    throw e;
  }
  throw new Error('expected a DefinitionImportError');
}

function where(text: string): [number, number, string] {
  const e = importError(text);
  return [e.line, e.column, e.description];
}

describe('python importer limits and malformed input', () => {
  it('rejects ~1.2k nested parentheses and ~2k nested lists at the 201st bracket, accepts 200', () => {
    const parens = `${HEADER}${T0}    x = ${'('.repeat(1200)}1${')'.repeat(1200)}\n`;
    expect(where(parens)).toEqual([3, 9 + 200, 'too many nested brackets (limit 200)']);
    const lists = `${HEADER}${T0}    x = ${'['.repeat(2000)}${']'.repeat(2000)}\n`;
    expect(where(lists)).toEqual([3, 9 + 200, 'too many nested brackets (limit 200)']);
    const ok = `${HEADER}    S0 = fd.define_scalar(${'('.repeat(199)}2.5${')'.repeat(199)}, dtype=DataType.Double)\n    fd.add_output(S0)\n`;
    expect(importPythonDefinition(ok, { cache: new FusionCache() }).records()[0]?.args).toEqual([2.5, 'Double']);
  });

  it('rejects long prefix-operator and operator chains before they can overflow the stack', () => {
    expect(where(`${HEADER}${T0}    x = ${'-'.repeat(5000)}1\n`)).toEqual([3, 9 + 200, 'too many prefix operators in a row (limit 200)']);
    const [line, column, message] = where(`${HEADER}${T0}    x = 1${' + 1'.repeat(5000)}\n`);
    expect([line, column]).toEqual([3, 9]);
    expect(message).toMatch(/expression nested too deeply \(limit 1000 levels\)/);
    expect(where(`${HEADER}${T0}    x = T0${'.a'.repeat(3000)}\n`).slice(0, 2)).toEqual([3, 9]);
  });

  it('rejects more than 100 levels of indentation', () => {
    const lines = Array.from({ length: 102 }, (_, d) => `${' '.repeat(d)}with a:`).join('\n');
    const [line, , message] = where(`${lines}\n${' '.repeat(102)}pass\n`);
    expect(line).toBe(102);
    expect(message).toBe('too many levels of indentation (limit 100)');
  });

  it('counts lines in CR-only and CRLF files and skips a UTF-8 BOM', () => {
    const body = `${HEADER}${T0}    T1 = fd.ops.frobnicate(T0)\n`;
    for (const text of [body.replace(/\n/g, '\r'), body.replace(/\n/g, '\r\n'), `\ufeff${body}`, `\ufeff${body.replace(/\n/g, '\r')}`]) {
      expect(where(text)).toEqual([3, 10, "unknown op 'fd.ops.frobnicate': tsfuser does not support it"]);
    }
    const ok = `\ufeff${HEADER}${T0}${OUT}`.replace(/\n/g, '\r');
    expect(importPythonDefinition(ok, { cache: new FusionCache() }).records().map((r) => r.op)).toEqual(['defineTensor', 'addOutput']);
  });

  it('rejects a definition without outputs at its def or with line', () => {
    expect(where(`import torch\n\n${HEADER}${T0}`)).toEqual([3, 1, 'def nvfuser_fusion_id0() defines no output: call fd.add_output(...) at least once']);
    expect(where('with FusionDefinition() as fd:\n    t0 = fd.define_tensor(2)\n')).toEqual([1, 1, 'the `with FusionDefinition()` block defines no output: call fd.add_output(...) at least once']);
  });

  it.each([
    ['1e309', 'Int', 'value 1e309 does not fit DataType.Int'],
    ['float("-inf")', 'Int', 'value -inf does not fit DataType.Int'],
    ['float("nan")', 'Index', 'value nan does not fit DataType.Index'],
    ['2.5', 'Int', 'value 2.5 does not fit DataType.Int'],
    ['2147483648', 'Int32', 'value 2147483648 does not fit DataType.Int32'],
    ['-2147483649', 'Int32', 'value -2147483649 does not fit DataType.Int32'],
    ['7', 'Bool', 'value 7 is not a DataType.Bool'],
    ['9007199254740993', 'Int', 'value 9007199254740993 does not fit DataType.Int'],
    ['-2**60', 'Int', 'value -1152921504606846976 does not fit DataType.Int'],
    ['10**400', 'Double', "integer result of '**' is too large for tsfuser"],
  ])('rejects define_scalar(%s, dtype=DataType.%s) at the value', (value, dtype, message) => {
    const [line, column, description] = where(`${HEADER}    S0 = fd.define_scalar(${value}, dtype=DataType.${dtype})\n    fd.add_output(S0)\n`);
    expect([line, column]).toEqual([2, 27]);
    expect(description).toContain(message);
  });

  it('accepts scalars that fit: infinities and NaN for floating dtypes, the Int32 bounds, 0/1 for Bool', () => {
    const fd = importPythonDefinition(
      `${HEADER}    S0 = fd.define_scalar(float("inf"), dtype=DataType.Double)\n    S1 = fd.define_scalar(-float("inf"), dtype=DataType.Float)\n    S2 = fd.define_scalar(float("NaN"), dtype=DataType.Half)\n    S3 = fd.define_scalar(-2147483648, dtype=DataType.Int32)\n    S4 = fd.define_scalar(1, dtype=DataType.Bool)\n    S5 = fd.define_scalar(2.0, dtype=DataType.Int)\n    fd.add_output(S0)\n`,
      { cache: new FusionCache() },
    );
    expect(fd.records().slice(0, 6).map((r) => r.args)).toEqual([[Infinity, 'Double'], [-Infinity, 'Float'], [NaN, 'Half'], [-2147483648, 'Int32'], [true, 'Bool'], [2, 'Int']]);
  });

  it.each([
    ['shape=None', 27, 'shape must be a list, each entry an integer (-1 for a symbolic size); got None'],
    ['shape="ab"', 27, 'shape must be a list, each entry an integer (-1 for a symbolic size); got "ab"'],
    ['shape=[2], contiguity=[True], stride_order=0', 57, 'stride_order must be a list, each entry an integer; got 0'],
    ['shape=[1e300], contiguity=[True]', 27, 'shape[0] must be an integer (-1 for a symbolic size), got 1e+300'],
    ['shape=[2.0], contiguity=[True]', 27, 'shape[0] must be an integer (-1 for a symbolic size), got 2.0'],
    ['shape=[True], contiguity=[True]', 27, 'shape[0] must be an integer (-1 for a symbolic size), got True'],
    ['shape=[2], contiguity="x"', 38, 'contiguity must be a list, each entry True, False or None; got "x"'],
    ['shape=[2], contiguity=[1]', 38, 'contiguity[0] must be True, False or None, got 1'],
    ['shape=[2], contiguity=[True], dtype=5', 57, 'dtype must be a DataType'],
    ['shape=[2], contiguity=[True], dtype="Float"', 57, 'dtype must be a DataType (DataType.Bool, '],
    ['[2], [True], DataType.Float, 3', 56, 'is_cpu must be True or False, got 3'],
    ['1e9', 27, 'ndims must be an integer in [0, 64], got 1000000000.0'],
    ['-1', 27, 'ndims must be an integer in [0, 64], got -1'],
    ['100', 27, 'ndims must be an integer in [0, 64], got 100'],
  ])('rejects define_tensor(%s) naming the argument', (args, column, message) => {
    const [line, col, description] = where(`${HEADER}    T0 = fd.define_tensor(${args})\n${OUT}`);
    expect([line, col]).toEqual([2, column]);
    expect(description.startsWith(`fd.define_tensor: ${message}`)).toBe(true);
  });

  it('keeps the define_tensor size checks of the definition API (negative sizes, huge int literals)', () => {
    expect(where(`${HEADER}    T0 = fd.define_tensor(shape=[-1, -5], contiguity=[True, True])\n${OUT}`)[2]).toMatch(/shape\[1\] is -5/);
    expect(where(`${HEADER}    T0 = fd.define_tensor(shape=[10**20], contiguity=[True])\n${OUT}`)).toEqual([2, 27, 'fd.define_tensor: shape[0] is 100000000000000000000, beyond ±(2^53 − 1), the largest integer tsfuser holds exactly']);
  });

  it('reads -0 and 0 * -1 as the int 0 (fuzzer regression: shape=[-1, -0] printed as -0.0, which did not import back)', () => {
    const fd = importPythonDefinition(`${HEADER}    T0 = fd.define_tensor(shape=[-1, -0], contiguity=[True, True])\n    T1 = fd.ops.reshape(T0, new_shape=[0 * -1, 3])\n${OUT}`, { cache: new FusionCache() });
    const printed = fd.printPython();
    expect(printed).toContain('shape=[-1, 0]');
    expect(printed).not.toContain('-0');
    expect(importPythonDefinition(printed, { cache: fd.cache }).id()).toBe(fd.id());
  });

  it('keeps an int64-max slice end as nvFuser dumps write it (nearest double; the slice clamps it)', async () => {
    const fd = importPythonDefinition(
      `${HEADER}${T0}    T1 = fd.ops.slice(T0, start_indices=[1], end_indices=[9223372036854775807], strides=[1], manual_normalization=0)\n    fd.add_output(T1)\n`,
      { cache: new FusionCache() },
    );
    expect(importPythonDefinition(fd.printPython(), { cache: fd.cache }).id()).toBe(fd.id());
    const [out] = await fd.execute([Tensor.from([1, 2, 3, 4], [4], 'Float')], { backend: 'reference' });
    expect(out?.toArray()).toEqual([2, 3, 4]);
  });

  it('shows control characters escaped in messages (fuzzer regression: raw NUL/DEL in "unexpected character")', () => {
    expect(where(`${HEADER}${T0}    x = 1\x00\n`)[2]).toBe("unexpected character '\\x00'");
    expect(where(`${HEADER}${T0}    x = 1\x7f\n`)[2]).toBe("unexpected character '\\x7f'");
    expect(where(`${HEADER}${T0}    x = 1\u2028\n`)[2]).toBe("unexpected character '\\u2028'");
    expect(where(`${HEADER}    S0 = fd.define_scalar(float("\x01\u2028"))\n`)[2]).toBe('could not convert string to float: "\\x01\\u2028"');
    expect(where(`${HEADER}${T0}    x = 1ab\x01c\n`)[2]).toBe("invalid number literal '1ab\\x01c'");
    expect(where(`${HEADER}${T0}    x = (1 "a\x7f")\n`)[2]).toBe('expected \')\', found "a\\x7f"');
  });

  it('rejects python floats where fd.ops takes integers (fuzzer regression: dims=[-0.0] changed the id on re-import)', () => {
    expect(where(`${HEADER}${T0}    T1 = fd.ops.sum(T0, dims=[-0.0])\n${OUT}`)).toEqual([3, 25, 'fd.ops.sum(): dims takes integers, got the float -0.0']);
    expect(where(`${HEADER}${T0}    T1 = fd.ops.reshape(T0, [2.0, 3])\n${OUT}`)).toEqual([3, 29, 'fd.ops.reshape(): new_shape takes integers, got the float 2.0']);
    expect(where(`${HEADER}${T0}    S1 = fd.ops.size(T0, 0.0)\n${OUT}`)).toEqual([3, 26, 'fd.ops.size(): dim takes integers, got the float 0.0']);
  });

  it('rejects an int operand beyond 2^53 (fuzzer regression: fd.ops.mul(T0, 2**63) printed a define_scalar that did not import back)', () => {
    expect(where(`${HEADER}${T0}    T1 = fd.ops.mul(T0, 0x7fffffffffffffff)\n${OUT}`)).toEqual([3, 25, 'fd.ops.mul(): arg2 = 0x7fffffffffffffff does not fit DataType.Int (an integer; tsfuser holds at most ±(2^53 − 1) exactly)']);
    expect(where(`${HEADER}${T0}    T1 = fd.ops.add(T0, arg2=2**63)\n${OUT}`)[2]).toBe('fd.ops.add(): arg2 = 9223372036854775808 does not fit DataType.Int (an integer; tsfuser holds at most ±(2^53 − 1) exactly)');
  });

  it('reads 0/1 as False/True for bool parameters, as nvFuser\'s binding and printer do', () => {
    const spelled = (keepdim: string): unknown =>
      importPythonDefinition(`${HEADER}${T0}    T1 = fd.ops.sum(T0, dims=[0], keepdim=${keepdim}, dtype=DataType.Null)\n    fd.add_output(T1)\n`, { cache: new FusionCache() }).records();
    expect(spelled('1')).toEqual(spelled('True'));
    expect(spelled('0')).toEqual(spelled('False'));
    expect(spelled('1')).not.toEqual(spelled('0'));
    expect(where(`${HEADER}${T0}    T1 = fd.ops.sum(T0, dims=[0], keepdim=2)\n${OUT}`)).toEqual([3, 35, 'fd.ops.sum(): keepdim takes True/False (or 1/0), got 2']);
  });

  it('takes dtypes only as DataType.X / torch.x, not as strings (dtype="Half" is a python string)', () => {
    expect(where(`${HEADER}${T0}    T1 = fd.ops.cast(T0, dtype="Half")\n${OUT}`)).toEqual([3, 26, 'fd.ops.cast(): dtype takes a DataType (DataType.X or torch.x) or None, got "Half"']);
    expect(where(`${HEADER}    S0 = fd.define_scalar(2, dtype="Int")\n`)).toEqual([2, 30, 'fd.define_scalar: dtype must be a DataType (DataType.X or torch.x), got "Int"']);
  });

  it('rejects a define_vector dtype that is not a DataType at the keyword', () => {
    expect(where(`${HEADER}    V0 = fd.define_vector([2, 3], dtype=5)\n`)).toEqual([2, 35, 'fd.define_vector: dtype must be a DataType, got 5']);
  });

  it('reports float() misuse, division by zero and unknown torch dtypes', () => {
    expect(where(`${HEADER}    S0 = fd.define_scalar(float("abc"))\n`)).toEqual([2, 33, 'could not convert string to float: "abc"']);
    expect(where(`${HEADER}    S0 = fd.define_scalar(float(1, 2))\n`)).toEqual([2, 27, 'float() takes at most one positional argument']);
    expect(where(`${HEADER}    S0 = fd.define_scalar(1 // 0)\n`)).toEqual([2, 27, "division by zero in '//'"]);
    expect(where(`${HEADER}    S0 = fd.define_scalar(1${'0'.repeat(400)})\n`)).toEqual([2, 27, `integer 1${'0'.repeat(29)}… is too large for tsfuser (ints beyond ±(2^53 − 1) are held as doubles, at most ~1.8e308)`]);
    expect(where(`${HEADER}    T0 = fd.define_tensor(shape=[2], contiguity=[True], dtype=torch.uint8)\n`)[2]).toMatch(/^torch.uint8 has no tsfuser DataType \(supported: torch.bool, /);
    expect(where(`${HEADER}    T0 = fd.define_tensor(shape=[2], contiguity=[True], dtype=torch.flaot16)\n`)[2]).toMatch(/^unsupported attribute 'torch.flaot16'/);
  });
});
