// Nesting limits and size scaling of parseIR / parseType / printType: deep types and blocks give
// one ParseError at the token that goes past the limit (never a RangeError from the JS stack),
// text at the limit parses and round-trips, and very wide graphs parse in linear time.
import { describe, expect, it } from 'vitest';
import { Graph, MAX_BLOCK_NESTING, MAX_TYPE_NESTING, ParseError, listType, IntType, parseIR, parseSchema, parseType, printSchema, printType, type JitType } from '../src/index.js';

function parseError(fn: () => unknown): ParseError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ParseError) return e;
    throw new Error(`expected ParseError, got ${String(e)}`);
  }
  throw new Error('expected a ParseError, but the text parsed');
}

/** A graph with one input of type `type` (on line 1, the type starting at column 12). */
const withInputType = (type: string): string => `graph(%x : ${type}):\n  return (%x)\n`;
const TYPE_COLUMN = 12;

/** `n` prim::If nodes nested in each other's first block; the innermost block returns %x. */
function nestedIfs(n: number): string {
  const lines = ['graph(%x : Tensor,', '      %c : bool):'];
  for (let i = 0; i < n; i++) {
    const pad = '  '.repeat(2 * i + 1);
    lines.push(`${pad}%y${i} : Tensor = prim::If(%c)`, `${pad}  block0():`);
  }
  for (let i = n - 1; i >= 0; i--) {
    const pad = '  '.repeat(2 * i + 1);
    lines.push(`${pad}    -> (${i === n - 1 ? '%x' : `%y${i + 1}`})`, `${pad}  block1():`, `${pad}    -> (%x)`);
  }
  lines.push(`  return (${n === 0 ? '%x' : '%y0'})`);
  return lines.join('\n') + '\n';
}

describe('type nesting limit', () => {
  it('is documented as 256', () => {
    expect(MAX_TYPE_NESTING).toBe(256);
  });

  it.each([
    ['Optional[', ']'],
    ['Tuple[', ']'],
    ['List[', ']'],
    ['(', ')'],
  ])('3000 nested %s fail at the constructor that passes the limit', (open, close) => {
    const text = withInputType(`${open.repeat(3000)}int${close.repeat(3000)}`);
    const err = parseError(() => parseIR(text));
    expect(err.description).toBe('type nesting deeper than 256');
    // The 256th constructor (index 255) would need a 257th level for its element.
    expect([err.line, err.column]).toEqual([1, TYPE_COLUMN + 255 * open.length]);
  });

  it('9000 list suffixes (int[][]...) fail at the 256th suffix', () => {
    const err = parseError(() => parseIR(withInputType(`int${'[]'.repeat(9000)}`)));
    expect(err.description).toBe('type nesting deeper than 256');
    expect([err.line, err.column]).toEqual([1, TYPE_COLUMN + 3 + 255 * 2]);
  });

  it('optional suffixes count too (int??...)', () => {
    const err = parseError(() => parseType(`int${'?'.repeat(5000)}`));
    expect(err.description).toBe('type nesting deeper than 256');
  });

  it('a type exactly 256 deep parses, prints and round-trips', () => {
    const suffixes = `int${'[]'.repeat(MAX_TYPE_NESTING - 1)}`;
    expect(printType(parseType(suffixes))).toBe(suffixes);
    const brackets = `${'Optional['.repeat(MAX_TYPE_NESTING - 1)}int${']'.repeat(MAX_TYPE_NESTING - 1)}`;
    const printed = printType(parseType(brackets));
    expect(printed).toBe(`int${'?'.repeat(MAX_TYPE_NESTING - 1)}`);
    const g = parseIR(withInputType(printed));
    expect(parseIR(g.toString()).toString()).toBe(g.toString());
  });

  it('mixing brackets and suffixes is limited by total depth', () => {
    const inner = `int${'[]'.repeat(200)}`;
    expect(() => parseType(`${'Optional['.repeat(55)}${inner}${']'.repeat(55)}`)).not.toThrow();
    expect(parseError(() => parseType(`${'Optional['.repeat(56)}${inner}${']'.repeat(56)}`)).description).toBe('type nesting deeper than 256');
  });

  it('printType of a 9000-deep list type built through the API does not overflow', () => {
    let t: JitType = IntType;
    for (let i = 0; i < 9000; i++) t = listType(t);
    expect(printType(t)).toBe(`int${'[]'.repeat(9000)}`);
  });
});

describe('schema nesting limits', () => {
  it('5000 nested default lists fail with one ParseError at the list that passes the limit', () => {
    const err = parseError(() => parseSchema(`aten::f(int[] x=${'['.repeat(5000)}1${']'.repeat(5000)}) -> int`));
    expect(err.description).toBe('default list nesting deeper than 256');
    expect([err.line, err.column]).toEqual([1, 'aten::f(int[] x='.length + 255 + 1]);
  });

  it('a default list 255 deep and a return type 256 deep still parse and print', () => {
    const text = `aten::f(int[] x=${'['.repeat(255)}1${']'.repeat(255)}) -> int${'[]'.repeat(255)}`;
    expect(printSchema(parseSchema(text))).toBe(text);
  });

  it('a 3000-deep argument type fails like in graphs', () => {
    expect(parseError(() => parseSchema(`aten::f(${'Optional['.repeat(3000)}int${']'.repeat(3000)} x) -> int`)).description).toBe('type nesting deeper than 256');
  });
});

describe('block nesting limit', () => {
  it('is documented as 256', () => {
    expect(MAX_BLOCK_NESTING).toBe(256);
  });

  it('1400 nested prim::If blocks fail with one ParseError at the block that passes the limit', () => {
    const err = parseError(() => parseIR(nestedIfs(1400)));
    expect(err.description).toBe('block nesting deeper than 256');
    // Lines 1-2 are the graph header; node i is on line 3 + 2i and its block0 on the next line.
    expect([err.line, err.column]).toEqual([3 + 2 * 256 + 1, 2 * (2 * 256 + 1) + 3]);
  });

  it('256 nested blocks parse, print, copy and round-trip', () => {
    const g = parseIR(nestedIfs(MAX_BLOCK_NESTING));
    const printed = g.toString();
    expect(printed).toBe(nestedIfs(MAX_BLOCK_NESTING));
    expect(parseIR(printed).toString()).toBe(printed);
    expect(g.copy().toString()).toBe(printed);
  });

  it('nested `with` subgraphs count as nesting', () => {
    const root = new Graph();
    let g = root;
    for (let i = 0; i < MAX_BLOCK_NESTING + 1; i++) {
      const x = g.addInput('x');
      const group = g.createWithSubgraph('prim::FusionGroup');
      group.addInput(x);
      g.appendNode(group);
      g.registerOutput(group.addOutput());
      const sub = group.attribute('Subgraph');
      if (sub?.kind !== 'g') throw new Error('no subgraph');
      g = sub.value;
    }
    g.registerOutput(g.addInput('x'));
    const err = parseError(() => parseIR(root.toString()));
    expect(err.description).toBe('subgraph nesting deeper than 256');
  });
});

describe('parseIR scales linearly', () => {
  // Appending an output used to renumber every earlier output (50,000 inputs: ~6 s). 100,000
  // inputs and outputs take about a second now; quadratic work would run past the timeout.
  it('parses and prints a graph with 100,000 inputs and outputs', { timeout: 20_000 }, () => {
    const n = 100_000;
    const names = Array.from({ length: n }, (_, i) => `%x${i}`);
    const text = `graph(${names.map((v) => `${v} : Float(4, strides=[1], requires_grad=0, device=cuda:0)`).join(',\n      ')}):\n  return (${names.join(', ')})\n`;
    const g = parseIR(text);
    expect(g.inputs.length).toBe(n);
    expect(g.inputs.every((v, i) => v.offset === i)).toBe(true);
    expect(g.outputs.every((v, i) => v === g.inputs[i])).toBe(true);
    expect(g.toString()).toBe(text);
  });

  it('inserting an output in the middle keeps offsets consecutive', () => {
    const g = new Graph();
    for (let i = 0; i < 5; i++) g.addInput(`x${i}`);
    g.insertInput(2, 'mid');
    g.eraseInput(0);
    expect(g.inputs.map((v) => [v.debugName(), v.offset])).toEqual([
      ['x1', 0],
      ['mid', 1],
      ['x2', 2],
      ['x3', 3],
      ['x4', 4],
    ]);
  });
});
