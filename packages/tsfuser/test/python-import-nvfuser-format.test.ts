// Definitions written exactly as nvFuser's python frontend prints them (test-fixtures/
// definitions/nvfuser/): they import, run on the reference backend with values checked against
// an independent computation here, and survive printPython → import with the same id and
// bit-identical outputs.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { roundToBFloat16, roundToHalf } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { FusionCache, Tensor, importPythonDefinition, importPythonScript, type FusionDefinition } from '../src/index.js';
import { Random } from '../src/io/random.js';
import { FIXTURES, runCli } from './helpers.js';

const SEED = 4242;

function nvfuserFixture(name: string): string {
  return readFileSync(join(FIXTURES, 'nvfuser', name), 'utf8');
}

async function run(fd: FusionDefinition, inputs: readonly Tensor[]): Promise<number[][]> {
  const outs = await fd.execute(inputs, { backend: 'reference' });
  return outs.map((t) => t.toArray().map(Number));
}

/** Imports `file`, runs it, and checks the printPython round trip gives the same id and outputs. */
async function importRunRoundTrip(file: string, inputs: readonly Tensor[]): Promise<number[][]> {
  const cache = new FusionCache();
  const fd = importPythonDefinition(nvfuserFixture(file), { cache });
  const outs = await run(fd, inputs);
  const again = importPythonDefinition(fd.printPython(), { cache });
  expect(again.id()).toBe(fd.id());
  const outsAgain = await run(again, inputs);
  expect(outsAgain.map((o) => o.map((v) => (Number.isNaN(v) ? 'nan' : v)))).toEqual(outs.map((o) => o.map((v) => (Number.isNaN(v) ? 'nan' : v))));
  return outs;
}

function randn(rng: Random, n: number, round: (v: number) => number = Math.fround): number[] {
  return Array.from({ length: n }, () => round(rng.normal()));
}

describe('definitions in nvFuser printed form (seed 4242)', () => {
  it('masked_softmax.py: float("-inf") masking gives exact zeros and rows summing to 1', async () => {
    const rng = new Random(SEED);
    const [rows, cols] = [4, 8];
    const x = randn(rng, rows * cols);
    // Column 0 is never masked, so every row has a finite max.
    const mask = Array.from({ length: rows * cols }, (_, i) => i % cols === 0 || rng.uniform() < 0.5);
    const [out] = await importRunRoundTrip('masked_softmax.py', [Tensor.from(x, [rows, cols], 'Float'), Tensor.from(mask, [rows, cols], 'Bool')]);
    for (let r = 0; r < rows; r += 1) {
      const kept = x.slice(r * cols, (r + 1) * cols).map((v, c) => (mask[r * cols + c] === true ? v : -Infinity));
      const max = Math.max(...kept);
      const e = kept.map((v) => Math.exp(v - max));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let c = 0; c < cols; c += 1) {
        const got = out?.[r * cols + c] as number;
        if (mask[r * cols + c] !== true) expect(got).toBe(0);
        else expect(got).toBeCloseTo((e[c] as number) / sum, 5);
      }
    }
  });

  it('rotate_half.py: slice/squeeze/cat with nvFuser\'s manual_normalization, squeeze_expanded, manual_padding keywords', async () => {
    const rng = new Random(SEED + 1);
    const s = 6;
    const x = randn(rng, s * 8, roundToBFloat16);
    const [out] = await importRunRoundTrip('rotate_half.py', [Tensor.from(x, [1, s, 8], 'BFloat16')]);
    const expected = x.map((_, i) => {
      const [row, j] = [Math.floor(i / 8), i % 8];
      return j < 4 ? -(x[row * 8 + j + 4] as number) : (x[row * 8 + j - 4] as number);
    });
    expect(out).toEqual(expected);
  });

  it('torch_dtypes_clamp.py: torch.* dtypes, float("-inf")/float("nan") scalars', async () => {
    const rng = new Random(SEED + 2);
    const [rows, cols] = [3, 5];
    const a = randn(rng, rows * cols, roundToHalf).map((v) => roundToHalf(v * 4));
    const b = randn(rng, cols, roundToBFloat16).map((v) => roundToBFloat16(v * 4));
    const [masked, sums] = await importRunRoundTrip('torch_dtypes_clamp.py', [Tensor.from(a, [rows, cols], 'Half'), Tensor.from(b, [cols], 'BFloat16')]);
    const t5 = a.map((v, i) => Math.fround(v + (b[i % cols] as number)));
    expect(t5.some((v) => v > 6)).toBe(true);
    expect(masked?.map((v) => (Number.isNaN(v) ? 'nan' : v))).toEqual(t5.map((v) => (v > 6 ? 'nan' : v)));
    for (let r = 0; r < rows; r += 1) {
      const sum = t5.slice(r * cols, (r + 1) * cols).reduce((acc, v) => acc + Math.min(v, 6), 0);
      expect(sums?.[r]).toBeCloseTo(roundToHalf(sum), 2);
    }
  });

  it.each(['masked_softmax.py', 'rotate_half.py', 'torch_dtypes_clamp.py'])('tsfuser run %s --check runs the script with its own inputs', async (file) => {
    const r = await runCli(['run', join(FIXTURES, 'nvfuser', file), '--check', '--backend', 'reference']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("inputs from the file's inputs");
    expect(r.stdout).toContain('check: nothing independent to compare against');
    // Every masked-softmax row sums to 1 (the script's mask keeps all positions).
    if (file === 'masked_softmax.py') expect(r.stdout).toContain('out0: shape [4, 8] Float sum 4.00000');
  });

  it('reads each script\'s inputs list (torch dtypes and factories)', () => {
    const inputs = (file: string): unknown => importPythonScript(nvfuserFixture(file), { cache: new FusionCache() }).inputs;
    expect(inputs('masked_softmax.py')).toEqual([
      { kind: 'tensor', factory: 'randn', shape: [4, 8], dtype: 'Float' },
      { kind: 'tensor', factory: 'ones', shape: [4, 8], dtype: 'Bool' },
    ]);
    expect(inputs('torch_dtypes_clamp.py')).toEqual([
      { kind: 'tensor', factory: 'randn', shape: [3, 5], dtype: 'Half' },
      { kind: 'tensor', factory: 'randn', shape: [5], dtype: 'BFloat16' },
    ]);
  });
});
