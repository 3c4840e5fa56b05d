import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseIR, parseType, printType } from '../src/index.js';
import { buildGraph, graphRecipeArb, typeArb } from './arbitraries.js';

describe('property: random well-formed graphs round-trip', () => {
  it('print(parse(print(g))) === print(g)', () => {
    fc.assert(
      fc.property(graphRecipeArb, (recipe) => {
        const text = buildGraph(recipe).toString();
        expect(parseIR(text).toString()).toBe(text);
      }),
      { numRuns: 400 },
    );
  });

  it('types round-trip through printType/parseType', () => {
    fc.assert(
      fc.property(typeArb, (t) => {
        const text = printType(t);
        expect(printType(parseType(text))).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('copy() of a random graph prints the same', () => {
    fc.assert(
      fc.property(graphRecipeArb, (recipe) => {
        const g = parseIR(buildGraph(recipe).toString());
        expect(g.copy().toString()).toBe(g.toString());
      }),
      { numRuns: 150 },
    );
  });
});
