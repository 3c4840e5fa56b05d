// Crashes the parseIR fuzzer (test/parse-ir-fuzz.test.ts) found, each minimized to a named case.
// Before the fixes these threw RangeError (stack overflow), IRError from Graph.copy, or a
// ParseError whose message printed a raw control character.
import { describe, expect, it } from 'vitest';
import { ParseError, constantPooling, parseIR } from '../src/index.js';
import { checkParseIR } from './fuzz/parse-ir-oracle.js';

function parseError(text: string): ParseError {
  try {
    parseIR(text);
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw new Error(`expected ParseError, got ${String(e)}`);
  }
  throw new Error('expected a ParseError, but the text parsed');
}

const T = 'Float(16, 32, strides=[32, 1], requires_grad=0, device=cuda:0)';

describe('fuzzer regressions', () => {
  it('a block that uses its own node\'s output parses, copies and round-trips (swapped block header; IRError in copy())', () => {
    // PyTorch's parser names a node's outputs before parsing its blocks, so this text is accepted
    // there too; Graph.copy() used to throw "no mapping for value %out.1".
    const text = [
      `graph(%x.1 : ${T},`,
      '      %flag.1 : bool):',
      `  %out : ${T} = prim::If(%flag.1)`,
      `      %out.1 : ${T} = aten::relu(%x.1)`,
      '    block0():',
      `      %7 : ${T} = aten::sigmoid(%out.1)`,
      '      -> (%7)',
      '    block1():',
      '      -> (%x.1)',
      '  return (%out)',
      '',
    ].join('\n');
    expect(checkParseIR(text).kind).toBe('parsed');
    const g = parseIR(text);
    const relu = g.nodes()[1];
    expect(relu?.kind).toBe('aten::relu');
    expect(relu?.blocks.length).toBe(2);
    const copy = g.copy();
    const copiedRelu = copy.nodes()[1];
    // The sigmoid inside the copied block uses the copied relu's output, not the original's.
    expect(copiedRelu?.blocks[0]?.nodes()[0]?.input()).toBe(copiedRelu?.output());
    expect(copy.toString()).toBe(g.toString());
  });

  it('a constant whose block uses the constant (swapped lines; IRError in copy())', () => {
    const text = `graph(%x : Tensor):\n  %2 : int = prim::Constant[value=1]()\n    block0():\n      %y : Tensor = aten::add(%x, %x, %2)\n      -> (%y)\n  return (%x)\n`;
    expect(checkParseIR(text).kind).toBe('parsed');
  });

  it('a tensor type cut off at the end of the text names the end of line, not a raw newline', () => {
    const err = parseError(`graph(%x.1 : Float(8, 1024, strides=[1024, 1], requires_grad=0, device=cuda:0)):\n  %7 : Float(8, 16, 64,`);
    expect(err.description).toBe("expected a size, '*', strides=, requires_grad= or device= in tensor type but found end of line");
    expect(err.message).not.toMatch(/\n/);
  });

  it('a non-breaking space or NUL in a type is an escaped unexpected character', () => {
    for (const [ch, shown] of [
      ['\u00a0', '\\u00a0'],
      ['\0', '\\u0000'],
    ] as const) {
      const err = parseError(`graph(%a.1 : Float(64,${ch} 64)):\n  return (%a.1)\n`);
      expect(err.description).toBe(`unexpected character '${shown}'`);
      expect([err.line, err.column]).toEqual([1, 23]);
    }
  });

  it('deep blocks inserted before return (1400 levels) are one ParseError', () => {
    const depth = 1400;
    const lines = ['graph(%x : Tensor, %c : bool):'];
    for (let i = 0; i < depth; i++) lines.push(' = prim::If(%c)', '  block0():');
    for (let i = 0; i < depth; i++) lines.push('    -> ()');
    lines.push('  return (%x)', '');
    const verdict = checkParseIR(lines.join('\n'));
    expect(verdict.kind === 'rejected' ? verdict.error.description : verdict.kind).toBe('block nesting deeper than 256');
  });

  it('a 3000-deep tuple type replacing an input type is one ParseError', () => {
    const verdict = checkParseIR(`graph(%x : ${'('.repeat(3000)}int${')'.repeat(3000)}):\n  return (%x)\n`);
    expect(verdict.kind === 'rejected' ? verdict.error.description : verdict.kind).toBe('type nesting deeper than 256');
  });
});

describe('fuzzer regressions in the passes', () => {
  // FUZZ_SEED=4 cases 225 and 459: a spliced constant line took the next `block1():` as its own
  // block; constant pooling hoisted the constant with that block above values the block uses.
  it('constant pooling leaves a prim::Constant that owns a block in place', () => {
    const text = [
      'graph(%x : Tensor):',
      '  %y : Tensor = aten::relu(%x)',
      '  %c : int = prim::Constant[value=1]()',
      '    block0():',
      '      %z : Tensor = aten::neg(%y)',
      '      -> (%z)',
      '  %d : int = prim::Constant[value=2]()',
      '  return (%y, %c, %d)',
      '',
    ].join('\n');
    const g = parseIR(text);
    constantPooling(g);
    expect(g.nodes().map((n) => n.kind)).toEqual(['prim::Constant', 'aten::relu', 'prim::Constant']);
    expect(g.nodes()[2]?.blocks.length).toBe(1);
    expect(() => parseIR(g.toString())).not.toThrow();
    expect(checkParseIR(text).kind).toBe('parsed');
  });
});
