// The inputs line of a repro script as straight-line Python (python/straight-line.ts): scripts
// that rebind names, run by CPython with PyTorch (test-fixtures/torch-inputs/straight-line.json,
// made by tools/torch-inputs/generate_straight_line.py), give the sizes, strides and dtypes
// fd.execute received there. Rebinding used to overflow the stack, and a later binding changed
// an earlier use. Names defined only later, or in terms of each other, are one error.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DefinitionImportError, Tensor } from '../src/index.js';
import { materializeInput } from '../src/io/input-generation.js';
import { Random } from '../src/io/random.js';
import { importPythonScript } from '../src/python/import-definition.js';
import { ONE_INPUT_DEFINITION as DEFINITION } from './helpers.js';

interface Case {
  name: string;
  script: string;
  inputs: { sizes: number[]; strides: number[]; dtype: string }[];
}

const FIXTURE = fileURLToPath(new URL('../../../test-fixtures/torch-inputs/straight-line.json', import.meta.url));
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { torch: string; cases: Case[] };


function layouts(script: string): { sizes: number[]; strides: number[] }[] {
  const inputs = importPythonScript(`${DEFINITION}${script}\n`).inputs ?? [];
  const rng = new Random(1);
  return inputs.map((spec) => {
    const t = materializeInput(spec, rng) as Tensor;
    return { sizes: [...t.sizes], strides: [...t.strides] };
  });
}

function importError(script: string): string {
  try {
    importPythonScript(`${DEFINITION}${script}\n`);
  } catch (e) {
    if (e instanceof DefinitionImportError) return e.message;
    throw e;
  }
  throw new Error('expected a DefinitionImportError');
}

describe(`straight-line inputs, against CPython + PyTorch ${fixture.torch}`, () => {
  it.each(fixture.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(layouts(c.script)).toEqual(c.inputs.map(({ sizes, strides }) => ({ sizes, strides })));
  });
});

describe('names Python could not read at that point', () => {
  const line = DEFINITION.split('\n').length;
  it('a name used before any binding (x = x.t() first) is one error at its position', () => {
    expect(importError('x = x.t()\ninputs = [x]')).toBe(`${line}:5: name 'x' is not defined`);
  });

  it('mutually defined names are an undefined name, not a stack overflow', () => {
    expect(importError('a = b\nb = a\ninputs = [a]')).toBe(`${line}:5: name 'b' is not defined`);
  });

  it('a thousand rebindings of one name resolve in order', () => {
    const script = ['x = torch.randn(3, 4)', ...Array.from({ length: 1000 }, () => 'x = x.t()'), 'inputs = [x]'].join('\n');
    expect(layouts(script)).toEqual([{ sizes: [3, 4], strides: [4, 1] }]);
  });
});

describe('numbers the inputs line computes as Python does', () => {
  const line = DEFINITION.split('\n').length;
  it('an undefined name used as a size is NameError at the name (was "torch.ones: expected an integer")', () => {
    expect(importError('a = b\nb = a\ninputs = [torch.ones(2, a)]')).toBe(`${line}:5: name 'b' is not defined`);
    expect(importError('inputs = [torch.ones(2, n)]')).toBe(`${line}:25: name 'n' is not defined`);
  });

  it('integer arithmetic in sizes: +, -, *, //, % (floored as Python), ** (was "expected an integer")', () => {
    expect(layouts('n = 3\ninputs = [torch.randn(n * 2, 2**2 + 1)]')).toEqual([{ sizes: [6, 5], strides: [5, 1] }]);
    expect(layouts('inputs = [torch.randn(7 // 2, -7 % 3 + 1)]')).toEqual([{ sizes: [3, 3], strides: [3, 1] }]);
  });

  it('a computed size too large to be exact says so, and a zero divisor is ZeroDivisionError', () => {
    expect(importError('inputs = [torch.ones(2**60)]')).toBe(`${line}:22: torch.ones: 1152921504606846976 is too large (sizes and integers of the inputs line must be below 2^53)`);
    expect(importError('inputs = [torch.ones(4 // 0)]')).toBe(`${line}:22: ZeroDivisionError: integer division by zero`);
    expect(importError('inputs = [torch.ones(3 / 1)]')).toBe(`${line}:22: torch.ones: expected an integer`);
  });
});
