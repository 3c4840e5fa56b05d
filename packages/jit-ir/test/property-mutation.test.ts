import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParseError, parseIR, parseSchema, parseType, BUILTIN_SCHEMAS } from '../src/index.js';
import { buildGraph, graphRecipeArb } from './arbitraries.js';
import { fixtureNames, readFixture } from './helpers.js';

const ALPHABET = [...'%()[]{},:=?*!|.<>-#"\'\\\n \t0123456789abcxyz_', '->', '::', 'aten::', 'prim::Constant', 'block0', 'return', 'graph', 'Float(', 'Tensor', 'int[]', 'with ', 'inf', 'nan', '1e-05', '\u00e9', '\u{1F600}'];

type Edit = { kind: 'delete'; at: number; length: number } | { kind: 'insert'; at: number; text: string } | { kind: 'replace'; at: number; length: number; text: string };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 4 }).map((a) => a.join('')) }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 6 }), text: fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 3 }).map((a) => a.join('')) }),
);

function applyEdits(text: string, edits: readonly Edit[]): string {
  let s = text;
  for (const e of edits) {
    const at = s.length === 0 ? 0 : e.at % (s.length + 1);
    switch (e.kind) {
      case 'delete':
        s = s.slice(0, at) + s.slice(at + e.length);
        break;
      case 'insert':
        s = s.slice(0, at) + e.text + s.slice(at);
        break;
      case 'replace':
        s = s.slice(0, at) + e.text + s.slice(at + e.length);
        break;
    }
  }
  return s;
}

/** Parses, and fails the property unless the text parsed or a ParseError was thrown. */
function parsesOrParseError(parse: (t: string) => unknown, text: string): void {
  try {
    parse(text);
  } catch (e) {
    if (!(e instanceof ParseError)) throw new Error(`non-ParseError ${String(e)} for text:\n${text}`);
    expect(e.line).toBeGreaterThanOrEqual(1);
    expect(e.column).toBeGreaterThanOrEqual(1);
  }
}

describe('property: mutated text parses or raises ParseError', () => {
  const sources = fixtureNames()
    .filter((n) => n !== 'many_inputs_sum_chain.ir')
    .map(readFixture);

  it('on fixtures', () => {
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.array(editArb, { minLength: 1, maxLength: 4 }), (src, edits) => {
        parsesOrParseError(parseIR, applyEdits(src, edits));
      }),
      { numRuns: 3000 },
    );
  });

  it('on random graphs', () => {
    fc.assert(
      fc.property(graphRecipeArb, fc.array(editArb, { minLength: 1, maxLength: 3 }), (recipe, edits) => {
        parsesOrParseError(parseIR, applyEdits(buildGraph(recipe).toString(), edits));
      }),
      { numRuns: 500 },
    );
  });

  it('on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        parsesOrParseError(parseIR, s);
        parsesOrParseError(parseType, s);
        parsesOrParseError(parseSchema, s);
      }),
      { numRuns: 1000 },
    );
  });

  it('on schemas and types', () => {
    fc.assert(
      fc.property(fc.constantFrom(...BUILTIN_SCHEMAS), fc.array(editArb, { minLength: 1, maxLength: 3 }), (src, edits) => {
        parsesOrParseError(parseSchema, applyEdits(src, edits));
      }),
      { numRuns: 1000 },
    );
  });
});
