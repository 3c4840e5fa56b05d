// The inputs-line constructors and methods of nvFuser's tests (torch.tensor, clone, reshape/view,
// type, comparisons with a scalar, topk, fp8/complex/uint64 dtypes, torch.from_numpy(numpy.load))
// against CPython + PyTorch: test-fixtures/torch-inputs/constructors.json, made by
// tools/torch-inputs/generate_constructors.py, gives each tensor's sizes, strides, dtype and, for
// deterministic data, its row-major values. numpy.load paths are relative to the script's
// directory (test-fixtures/torch-inputs, where the generator wrote the .npy files).

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Complex, type ElementValue } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { DefinitionImportError, Tensor } from '../src/index.js';
import { materializeInput } from '../src/io/input-generation.js';
import { Random } from '../src/io/random.js';
import { importPythonScript } from '../src/python/import-definition.js';
import { TORCH_DTYPES } from '../src/python/torch-dtypes.js';
import { ONE_INPUT_DEFINITION as DEFINITION } from './helpers.js';

interface Expected {
  sizes: number[];
  strides: number[];
  dtype: string;
  values?: (number | boolean | [number, number])[];
}

interface Case {
  name: string;
  inputs: string;
  expected: Expected[];
}

const DIRECTORY = fileURLToPath(new URL('../../../test-fixtures/torch-inputs', import.meta.url));
const fixture = JSON.parse(readFileSync(`${DIRECTORY}/constructors.json`, 'utf8')) as { torch: string; cases: Case[] };


function plain(v: ElementValue): number | boolean | [number, number] {
  if (v instanceof Complex) return [v.re, v.im];
  return typeof v === 'bigint' ? Number(v) : v;
}

function built(line: string, seed = 1): Expected[] {
  const inputs = importPythonScript(`${DEFINITION}inputs = ${line}\n`, {}, { scriptDirectory: DIRECTORY }).inputs ?? [];
  const rng = new Random(seed);
  return inputs.map((spec) => {
    const t = (materializeInput(spec, rng) as Tensor).toHost();
    return { sizes: [...t.sizes], strides: [...t.strides], dtype: t.dtype, values: Array.from({ length: t.numel }, (_, i) => plain(t.get(i))) };
  });
}

function importError(line: string): string {
  try {
    importPythonScript(`${DEFINITION}inputs = ${line}\n`, {}, { scriptDirectory: DIRECTORY });
  } catch (e) {
    if (e instanceof DefinitionImportError) return e.message;
    throw e;
  }
  throw new Error('expected a DefinitionImportError');
}

describe(`inputs-line constructors and methods, against CPython + PyTorch ${fixture.torch}`, () => {
  it.each(fixture.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const seed = 1 + c.name.length;
    const got = built(c.inputs, seed);
    expect(got.length, `seed ${seed}`).toBe(c.expected.length);
    c.expected.forEach((want, i) => {
      const g = got[i] as Expected;
      expect({ sizes: g.sizes, strides: g.strides, dtype: g.dtype }, `input ${i} (seed ${seed})`).toEqual({ sizes: want.sizes, strides: want.strides, dtype: TORCH_DTYPES[want.dtype] });
      if (want.values !== undefined) expect(g.values, `values of input ${i}`).toEqual(want.values);
    });
  });
});

describe('computed inputs from random factories', () => {
  it('torch.randn(...) * 0.1 + 1 is randn scaled and shifted, element by element, in float32', () => {
    const seed = 11;
    const [raw] = built('[torch.randn(30, 20)]', seed);
    const [t] = built('[torch.randn(30, 20) * 0.1 + 1]', seed);
    if (raw === undefined || t === undefined) throw new Error('no input');
    expect(t.dtype).toBe('Float');
    const f = Math.fround;
    expect(t.values, `seed ${seed}`).toEqual((raw.values as number[]).map((v) => f(f(v * f(0.1)) + 1)));
  });

  it('a comparison of torch.rand with 0.3 is true about 70% of the time (values are not all one)', () => {
    const seed = 7;
    const [t] = built('[torch.rand(50, 40) > 0.3]', seed);
    const trues = (t?.values ?? []).filter((v) => v === true).length;
    expect(trues / 2000, `seed ${seed}`).toBeGreaterThan(0.6);
    expect(trues / 2000, `seed ${seed}`).toBeLessThan(0.8);
  });

  it('topk indices of a random tensor point at the k largest of each row, largest first', () => {
    const seed = 11;
    const script = `x = torch.randn(6, 9)\ninputs = [x, torch.topk(x, 3, dim=1)[1], torch.topk(x, 3, dim=1)[0]]\n`;
    const inputs = importPythonScript(`${DEFINITION}${script}`, {}, { scriptDirectory: DIRECTORY }).inputs ?? [];
    // One generator per tensor spec, as each input is built from its own factory.
    const [x, idx, vals] = inputs.map((spec) => (materializeInput(spec, new Random(seed)) as Tensor).toHost());
    if (x === undefined || idx === undefined || vals === undefined) throw new Error('three inputs expected');
    for (let r = 0; r < 6; r += 1) {
      const row = Array.from({ length: 9 }, (_, j) => x.getNumber(r * 9 + j));
      const sorted = [...row].sort((a, b) => b - a);
      for (let k = 0; k < 3; k += 1) {
        expect(row[Number(idx.get(r * 3 + k))], `seed ${seed} row ${r}`).toBe(sorted[k]);
        expect(vals.getNumber(r * 3 + k)).toBe(sorted[k]);
      }
    }
  });
});

describe('refusals name the construct', () => {
  const line = DEFINITION.split('\n').length;
  it.each([
    ['ragged torch.tensor data', '[torch.tensor([[1, 2], [3]])]', /expected sequence of length 2 at dim 1 \(got 1\)/],
    ['a view across non-contiguous dims', '[torch.arange(6.).reshape(2, 3).t().view(6)]', /view size is not compatible with input tensor's size and stride/],
    ['a reshape to the wrong count', '[torch.ones(2, 3).reshape(4, -1)]', /shape '\[4, -1\]' is invalid for input of size 6/],
    ['two inferred dims', '[torch.ones(2, 3).reshape(-1, -1)]', /only one dimension can be inferred/],
    ['a tensor-tensor comparison', '[torch.ones(2) > torch.zeros(2)]', /between two tensors is not evaluated/],
    ['complex ordering', '[torch.ones(2, dtype=torch.complex64) > 0]', /not implemented for complex tensors/],
    ['topk without an index', '[torch.topk(torch.ones(4), 2)]', /returns a \(values, indices\) tuple/],
    ['topk with k too large', '[torch.topk(torch.ones(4), 5)[1]]', /k \(5\) is out of range for dim 0 of size 4/],
    ['type() without a dtype', '[torch.ones(2).type()]', /returns the type name \(a string\)/],
    ['a bad tensor-type string', "[torch.ones(2).type('torch.cuda.FooTensor')]", /invalid type/],
    ['an int8 tensor type', "[torch.ones(2).type('torch.CharTensor')]", /torch.int8 has no tsfuser DataType/],
    ['another numpy call', '[torch.from_numpy(numpy.ones(3))]', /the only array it reads here is numpy.load/],
    ['an .npz archive', "[torch.from_numpy(numpy.load('a.npz'))]", /is not a .npy file/],
    ['a missing .npy', "[torch.from_numpy(numpy.load('npy/missing.npy'))]", /cannot read .*missing\.npy \(ENOENT\)/],
    ['numpy.load with a pickle-only keyword', "[torch.from_numpy(numpy.load('npy/b1.npy', encoding='bytes'))]", /unsupported keyword 'encoding'/],
    ['a chained comparison', '[0 < torch.ones(2) < 1]', /chained comparisons/],
    ['tensor-tensor arithmetic', '[torch.ones(2) + torch.zeros(2)]', /'\+' between two tensors is not evaluated/],
    ['bool tensor minus a bool', '[torch.ones(2, dtype=torch.bool) - True]', /Subtraction, the `-` operator, with a bool tensor is not supported/],
    ['complex arithmetic', '[torch.ones(2, dtype=torch.complex64) * 2]', /with a complex tensor is not evaluated/],
    ['a number divided by a tensor', '[1 / torch.ones(2)]', /a Python number divided by a tensor is not evaluated/],
  ])('%s', (_name, text, pattern) => {
    const message = importError(text);
    expect(message).toMatch(new RegExp(`^${line}:\\d+: `));
    expect(message).toMatch(pattern);
  });

  it('a relative numpy.load path without the script directory is refused, not read from the working directory', () => {
    expect(() => importPythonScript(`${DEFINITION}inputs = [torch.from_numpy(numpy.load('npy/b1.npy'))]\n`)).toThrow(/a relative path needs the script's directory/);
  });
});

describe('evaluateInputs: false (tsfuser run --inputs)', () => {
  it('the inputs line is not evaluated, so one tsfuser cannot evaluate does not stop the import', () => {
    const text = `${DEFINITION}inputs = [torch.nonexistent_factory(3), torch.from_numpy(numpy.load('nowhere.npy'))]\n`;
    expect(() => importPythonScript(text)).toThrow(DefinitionImportError);
    const imported = importPythonScript(text, {}, { evaluateInputs: false });
    expect(imported.inputs).toBeNull();
    expect(imported.definition.inputs()).toHaveLength(1);
  });
});
