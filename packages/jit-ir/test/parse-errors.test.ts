import { describe, expect, it } from 'vitest';
import { ParseError, formatParseError, parseIR } from '../src/index.js';

function errorOf(text: string): ParseError {
  try {
    parseIR(text);
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw new Error(`expected ParseError, got ${String(e)}`);
  }
  throw new Error('expected a ParseError, but the text parsed');
}

const OK_HEAD = 'graph(%x : Tensor):\n';

describe('malformed IR raises ParseError with line:column', () => {
  const cases: [string, string, number, number, RegExp][] = [
    ['unknown type', 'graph(%x : Flaot(2)):\n  return (%x)\n', 1, 12, /unknown type 'Flaot'/],
    ['bad token', `${OK_HEAD}  %y : Tensor = aten::relu(%x) $\n  return (%y)\n`, 2, 32, /unexpected character '\$'/],
    ['undefined value', `${OK_HEAD}  %y : Tensor = aten::relu(%z)\n  return (%y)\n`, 2, 28, /undefined value %z/],
    ['duplicate definition', `${OK_HEAD}  %x : Tensor = aten::relu(%x)\n  return (%x)\n`, 2, 3, /redefinition of %x/],
    ['unbalanced brackets', `${OK_HEAD}  %y : Tensor = aten::relu(%x\n  return (%y)\n`, 3, 3, /expected '\)' to close the inputs of aten::relu/],
    ['unbalanced type brackets', 'graph(%x : Float(2, 3):\n  return (%x)\n', 1, 23, /expected '\)'|expected a size/],
    ['wrong output count', `${OK_HEAD}  %a : Tensor, %b : Tensor = aten::relu(%x)\n  return (%a)\n`, 2, 30, /aten::relu returns 1 value\(s\) according to its schema, but the node has 2 output\(s\)/],
    ['missing return', `${OK_HEAD}  %y : Tensor = aten::relu(%x)\n`, 3, 1, /unexpected end of input: expected a node or 'return/],
    ['missing kind', `${OK_HEAD}  %y : Tensor = relu(%x)\n  return (%y)\n`, 2, 17, /expected an operator kind/],
    ['bad attribute', `${OK_HEAD}  %y : int = prim::Constant[value=]()\n  return (%y)\n`, 2, 35, /expected an attribute value/],
    ['unterminated string', `${OK_HEAD}  %y : str = prim::Constant[value="abc]()\n  return (%y)\n`, 2, 35, /unterminated string/],
    ['block without arrow', `${OK_HEAD}  %y : Tensor = prim::If(%x)\n    block0():\n  return (%x)\n`, 4, 3, /expected a node or '-> \(\.\.\.\)'/],
    ['use outside its block', `${OK_HEAD}  %y : Tensor = prim::If(%x)\n    block0():\n      %z : Tensor = aten::relu(%x)\n      -> (%z)\n  return (%z)\n`, 6, 11, /undefined value %z/],
    ['trailing garbage', `${OK_HEAD}  return (%x)\nfoo\n`, 3, 1, /expected end of input/],
    ['missing graph keyword', 'grph(%x : Tensor):\n  return (%x)\n', 1, 1, /expected 'graph'/],
    ['bad number', `${OK_HEAD}  %y : int = prim::Constant[value=12abc]()\n  return (%y)\n`, 2, 35, /malformed number/],
    ['constant with two outputs', `${OK_HEAD}  %y : int, %z : int = prim::Constant[value=1]()\n  return (%y)\n`, 2, 24, /prim::Constant must have exactly one output/],
  ];

  it.each(cases)('%s', (_name, text, line, column, message) => {
    const err = errorOf(text);
    expect(err.description).toMatch(message);
    expect([err.line, err.column]).toEqual([line, column]);
    expect(err.message).toBe(`${line}:${column}: ${err.description}`);
  });

  it('formatParseError gives file:line:col: message', () => {
    const err = errorOf(`${OK_HEAD}  %y : Tensor = aten::relu(%z)\n  return (%y)\n`);
    expect(formatParseError('model.ir', err)).toBe('model.ir:2:28: undefined value %z');
  });
});
