// Repro-script input constructors (torch-inputs.ts) against PyTorch: sizes, strides, dtypes and the
// values of deterministic constructors as PyTorch 2.13 computes them (test-fixtures/torch-inputs),
// and one DefinitionImportError with line:col for every construct PyTorch rejects or tsfuser lacks.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { DataType } from '@tsfuser/fusion-ir';
import { DefinitionImportError, Tensor } from '../src/index.js';
import { materializeInput } from '../src/io/input-generation.js';
import { Random } from '../src/io/random.js';
import { parsePython } from '../src/python/parser.js';
import { evalInputList } from '../src/python/torch-inputs.js';
import type { InputSpec } from '../src/io/input-spec.js';

interface LayoutCase {
  expr: string;
  sizes: number[];
  strides: number[];
  dtype: string;
  values?: (number | boolean)[];
}

const FIXTURE = fileURLToPath(new URL('../../../test-fixtures/torch-inputs/pytorch-layouts.json', import.meta.url));
const CASES = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: LayoutCase[] }).cases;

const TORCH_NAMES: Readonly<Record<string, DataType>> = { float32: 'Float', float16: 'Half', float64: 'Double', bfloat16: 'BFloat16', int32: 'Int32', int64: 'Int', bool: 'Bool' };

function specsOf(source: string): InputSpec[] {
  const stmts = parsePython(source);
  const last = stmts[stmts.length - 1];
  if (last?.kind !== 'assign') throw new Error('test script must end with an assignment');
  const names = new Map<string, (typeof last)['value']>();
  for (const s of stmts) if (s.kind === 'assign' && s.target.kind === 'name') names.set(s.target.id, s.value);
  return evalInputList(last.value, (n) => names.get(n));
}

function importError(source: string): DefinitionImportError {
  try {
    specsOf(source);
  } catch (e) {
    if (e instanceof DefinitionImportError) return e;
    throw e;
  }
  throw new Error(`expected a DefinitionImportError for ${source}`);
}

describe('repro-script input constructors match PyTorch', () => {
  it.each(CASES.map((c) => [c.expr, c] as const))('%s', (_expr, c) => {
    const [spec] = specsOf(`inputs = [${c.expr}]\n`);
    if (spec === undefined) throw new Error('no spec');
    const t = materializeInput(spec, new Random(7));
    if (!(t instanceof Tensor)) throw new Error('expected a tensor');
    const host = t.toHost();
    expect(host.dtype).toBe(TORCH_NAMES[c.dtype]);
    expect([...host.sizes]).toEqual(c.sizes);
    // PyTorch's strides, except on size-1 dims where no stride matters.
    expect(host.strides.map((s, d) => (c.sizes[d] === 1 ? null : s))).toEqual(c.strides.map((s, d) => (c.sizes[d] === 1 ? null : s)));
    if (c.values !== undefined) {
      const values = Array.from({ length: host.numel }, (_, i) => {
        const v = host.get(i);
        return typeof v === 'bigint' ? Number(v) : v;
      });
      if (host.dtype === 'Half') expect(values).toEqual(c.values.map((v) => Number(v)));
      else expect(values).toEqual(c.values);
    }
  });

  it('resolves names bound at the top level and float("inf") scalars', () => {
    const specs = specsOf('n = 3\nx = torch.ones(n, 2)\ninputs = [x.t(), float("-inf"), float("nan"), -2, True]\n');
    expect(specs[0]).toMatchObject({ kind: 'tensor', factory: 'ones', shape: [3, 2], views: [{ kind: 'transpose', dim0: 0, dim1: 1 }] });
    expect(specs.slice(1)).toEqual([
      { kind: 'scalar', value: -Infinity, isFloat: true },
      { kind: 'scalar', value: NaN, isFloat: true },
      { kind: 'scalar', value: -2, isFloat: false },
      { kind: 'scalar', value: true, isFloat: false },
    ]);
  });
});

describe('repro-script input errors name the construct and its line', () => {
  const cases: [string, string, number, number, RegExp][] = [
    ['negative size', 'inputs = [\n  torch.randn(-1),\n]\n', 2, 3, /torch.randn: size -1 of dim 0 is negative/],
    ['non-integer size', 'inputs = [torch.zeros(2.5)]\n', 1, 23, /torch.zeros: expected an integer/],
    ['size past 2^53', 'inputs = [torch.ones(100000000000000000000)]\n', 1, 22, /100000000000000000000 is too large/],
    ['t() of rank 3', 'inputs = [torch.ones(2, 3, 4).t()]\n', 1, 11, /\.t\(\) expects a tensor with <= 2 dimensions, got 3/],
    ['transpose dim out of range', 'inputs = [torch.ones(2, 3).transpose(0, 5)]\n', 1, 11, /dim 5 is out of range for rank 2/],
    ['as_strided outside storage', 'inputs = [torch.ones(2, 3).as_strided((3, 3), (3, 1))]\n', 1, 11, /needs 9 elements of storage, the tensor has 6/],
    ['expand of a non-1 dim', 'inputs = [torch.ones(2, 3).expand(4, 3)]\n', 1, 11, /the size 2 of dim 0 must match 4 or be 1/],
    ['too many indices', 'inputs = [torch.ones(2, 3)[0, 1, 2]]\n', 1, 11, /too many indices for a tensor of dimension 2/],
    ['index out of bounds', 'inputs = [torch.ones(2, 3)[:, 3]]\n', 1, 31, /index 3 is out of bounds for dim 1 of size 3/],
    ['negative slice step', 'inputs = [torch.ones(4)[::-1]]\n', 1, 25, /step -1 must be a positive integer/],
    ['unsupported method', 'inputs = [\n  torch.ones(2, 3).numpy(),\n]\n', 2, 3, /unsupported tensor method '\.numpy\(\)'/],
    ['unsupported factory', 'inputs = [torch.eye(2)]\n', 1, 11, /unsupported input expression 'torch.eye'/],
    ['uint8 dtype', 'inputs = [torch.zeros(2, dtype=torch.uint8)]\n', 1, 32, /torch.uint8 has no tsfuser DataType/],
    ['unknown keyword', 'inputs = [torch.randn(2, 3, out=y)]\n', 1, 29, /torch.randn: unsupported keyword 'out'/],
    ['randint bounds', 'inputs = [torch.randint(5, 5, (2,))]\n', 1, 28, /high \(5\) must be greater than low \(5\)/],
    ['arange bounds', 'inputs = [torch.arange(0, 10, -1)]\n', 1, 11, /inconsistent with step -1/],
    ['make_tensor without dtype', "inputs = [torch.testing.make_tensor((2, 3), device='cuda')]\n", 1, 11, /missing dtype=/],
    ['unbound name', 'inputs = [x]\n', 1, 11, /name 'x' is not defined/],
  ];
  it.each(cases)('%s', (_what, source, line, column, message) => {
    const e = importError(source);
    expect(e.description).toMatch(message);
    expect([e.line, e.column]).toEqual([line, column]);
  });

  it('imports inputs too large to build (the CLI refuses them with the input index)', () => {
    const [spec] = specsOf('inputs = [torch.randn(65536, 65536)]\n');
    expect(spec).toEqual({ kind: 'tensor', factory: 'randn', shape: [65536, 65536], dtype: 'Float' });
  });
});
