// fd.ops.slice refuses what nvFuser's python frontend refuses (python_direct slice_fn, exercised by
// nvFuser's test_slice_error_checks): a constant negative start, a constant end before its start,
// a stride that is not the constant 1, and mismatched list lengths — with nvFuser's messages, from
// the python importer and from the TypeScript API. What nvFuser accepts still runs and matches a
// host-side slice: starts/ends past the extent clamp (an empty result), run-time starts are left to
// the normalization, strides omitted mean 1.

import { describe, expect, it } from 'vitest';
import { DataType, DefinitionImportError, FusionCache, FusionDefinition, Tensor, importPythonDefinition } from '../src/index.js';
import { Random } from '../src/io/random.js';

const HEADER = 'def nvfuser_fusion_id0(fd : FusionDefinition) -> None :\n';
const T0 = '    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)\n';

function definition(sliceArgs: string, extra = ''): string {
  return `${HEADER}${T0}${extra}    T1 = fd.ops.slice(T0, ${sliceArgs})\n    fd.add_output(T1)\n`;
}

function importMessage(text: string): string {
  try {
    importPythonDefinition(text, { cache: new FusionCache() });
  } catch (e) {
    if (e instanceof DefinitionImportError) return e.message;
    throw e;
  }
  return 'accepted';
}

describe('fd.ops.slice argument checks (nvFuser python frontend)', () => {
  it.each([
    ['a negative start', 'start_indices=[0, -2], end_indices=[3, 3], strides=[1, 1]', /Slice operation start_indices must be greater than or equal to 0\. Start Indices: -2/],
    ['an end before its start', 'start_indices=[3, 1], end_indices=[1, 2], strides=[1, 1]', /Slice operation end_indices must be greater than or equal to start_indices\. Start Indices: 3 End Indices: 1/],
    ['a stride of 2', 'start_indices=[0, 0], end_indices=[4, 4], strides=[1, 2]', /nvFuser Limitation: All slice operation strides must be of const size 1\./],
    ['a negative start checked before the stride (first dim first)', 'start_indices=[-1, 0], end_indices=[5, 5], strides=[3, 1]', /start_indices must be greater than or equal to 0/],
    ['more starts than dims', 'start_indices=[0, 0, 0], end_indices=[1, 1, 1], strides=[1, 1, 1]', /Number of tensor dimensions does not match slice dimensions!/],
    ['more ends than starts', 'start_indices=[0, 0], end_indices=[1, 1, 1], strides=[1, 1]', /Slice indexing attribute dimensions don't match! Start Indices: 2 End Indices: 3/],
    ['strides and starts of other lengths (checked before the rank)', 'start_indices=[0, 0, 0], end_indices=[1, 1], strides=[1, 1]', /Slice start_indices and strides don't match! Start Indices: 3 Strides: 2/],
  ])('refuses %s', (_what, args, message) => {
    expect(importMessage(definition(args))).toMatch(message);
  });

  it('refuses a stride given as a run-time scalar (nvFuser needs the constant 1)', () => {
    const text = definition('start_indices=[0, 0], end_indices=[2, 2], strides=[1, S0]', '    S0 = fd.define_scalar(None, dtype=DataType.Int)\n');
    expect(importMessage(text)).toMatch(/strides must be of const size 1/);
  });

  it('refuses the same from the TypeScript API', () => {
    expect(() =>
      FusionDefinition.build(
        (f) => {
          const t = f.defineTensor(2);
          f.addOutput(f.ops.slice(t, [0, -1], [2, 3]));
        },
        { cache: new FusionCache() },
      ),
    ).toThrow(/start_indices must be greater than or equal to 0/);
  });

  it('runs what nvFuser accepts: random in-range and past-the-end bounds, strides omitted or 1, a run-time start', async () => {
    const seed = Date.now() % 100000;
    const rng = new Random(seed);
    for (let trial = 0; trial < 12; trial++) {
      const rows = rng.int(1, 7);
      const cols = rng.int(1, 9);
      // Starts and ends up to 3 past the extent: nvFuser clamps them (an empty range when start >= extent).
      const s = [rng.int(0, rows + 3), rng.int(0, cols + 3)];
      const e = [s[0] as number + rng.int(0, rows + 2), s[1] as number + rng.int(0, cols + 2)];
      const runtimeStart = trial % 3 === 2;
      const strides = trial % 2 === 0 ? '' : ', strides=[1, 1]';
      const text = runtimeStart
        ? definition(`start_indices=[S0, ${s[1]}], end_indices=[${e[0]}, ${e[1]}]${strides}`, '    S0 = fd.define_scalar(None, dtype=DataType.Int)\n')
        : definition(`start_indices=[${s[0]}, ${s[1]}], end_indices=[${e[0]}, ${e[1]}]${strides}`);
      const fd = importPythonDefinition(text, { cache: new FusionCache() });
      const values = Array.from({ length: rows * cols }, (_, i) => i + 1);
      const inputs: (Tensor | number)[] = [Tensor.from(new Float32Array(values), [rows, cols], DataType.Float)];
      if (runtimeStart) inputs.push(s[0] as number);
      const [out] = await fd.execute(inputs, { backend: 'reference' });
      const clamp = (v: number, n: number): number => Math.min(Math.max(v, 0), n);
      const [r0, r1, c0, c1] = [clamp(s[0] as number, rows), clamp(e[0] as number, rows), clamp(s[1] as number, cols), clamp(e[1] as number, cols)];
      const expected: number[] = [];
      for (let r = r0; r < Math.max(r0, r1); r++) for (let c = c0; c < Math.max(c0, c1); c++) expected.push(values[r * cols + c] as number);
      expect(out?.sizes, `seed ${seed} trial ${trial}: ${text}`).toEqual([Math.max(0, r1 - r0), Math.max(0, c1 - c0)]);
      expect(out?.toArray(), `seed ${seed} trial ${trial}`).toEqual(expected);
    }
  });
});
