// PTX of the 2-D slice / pad / cat schedule (scheduler pointwise/resize/two-d.ts), nvcc -ptx
// -arch=sm_90: the bench's pad_bf16 (F.pad(x, (8, 8, 1, 1)) of [8192, 4096] bf16) and the three-way
// cats of [8192, 4096] bf16 along dims 0 and 1 load and store 16 bytes at a time
// (ld/st.global.v4.u32) and their kernels hold no integer division or remainder (the 1-D schedule
// they replace divides and takes the remainder by the run-time row length for every vector:
// checked too, so the test shows what changed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cat, Fusion, makeTensor, pad, slice } from '@tsfuser/fusion-ir';
import { computePointwiseHeuristics, makeRuntimeInfo, schedulePointwise, type PointwiseOverrides } from '@tsfuser/scheduler';
import { generateKernel, runtimeLibrary, withCLinkage } from '../src/index.js';
import { hasNvcc, NVCC } from './nvcc-batch.js';

interface PtxCounts {
  breakPoint: number;
  ldV4: number;
  stV4: number;
  scalarGlobal: number;
  divRem: number;
}

/** Compiles `f`'s pointwise kernel to PTX and counts the instructions of its entry. */
function ptxOf(f: Fusion, sizes: number[][], overrides: PointwiseOverrides = {}): PtxCounts {
  const info = makeRuntimeInfo(f, sizes.map((s) => ({ sizes: s })));
  const params = computePointwiseHeuristics(f, info, overrides);
  const k = generateKernel(schedulePointwise(f.clone().fusion, params), { fusionId: 1 });
  const dir = mkdtempSync(join(tmpdir(), 'tsfuser-resize-2d-'));
  const file = join(dir, 'k.cu');
  writeFileSync(file, `${runtimeLibrary(k.indexType, { fastDivision: k.args.divisors !== null })}\n${withCLinkage(k.dumps.cuda)}`);
  execFileSync(NVCC, ['-ptx', '-arch=sm_90', '-std=c++17', file, '-o', `${file}.ptx`], { stdio: 'pipe' });
  const ptx = readFileSync(`${file}.ptx`, 'utf8');
  const start = ptx.indexOf(`.entry ${k.kernelName}`);
  expect(start).toBeGreaterThanOrEqual(0);
  const body = ptx.slice(start).split('\n').map((l) => l.trim());
  const count = (re: RegExp): number => body.filter((l) => re.test(l)).length;
  return {
    breakPoint: params.breakPoint,
    // (the evict-last loads are inline PTX inside `{ … }`, after a createpolicy)
    ldV4: count(/(^|[;{]\s*)ld\.global(\.[A-Za-z0-9_:]+)*\.v4\.(u|b)32\b/),
    stV4: count(/^st\.global(\.[a-z0-9_:]+)*\.v4\.(u|b)32\b/),
    scalarGlobal: count(/^(ld|st)\.global(\.[a-z0-9_:]+)*\.(u|b|s)16\b/),
    divRem: count(/^(div|rem)\.(u|s)(32|64)\b/),
  };
}

function catOf(dim: number): Fusion {
  const f = new Fusion();
  const ts = [0, 1, 2].map(() => makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' }));
  ts.forEach((t) => f.addInput(t));
  f.addOutput(cat(ts, dim));
  return f;
}

function single(build: (f: Fusion, x: ReturnType<typeof makeTensor>) => void): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype: 'BFloat16' });
  f.addInput(x);
  build(f, x);
  return f;
}

describe.skipIf(!hasNvcc)('PTX of the 2-D slice / pad / cat schedule', () => {
  it('pad_bf16: 16-byte loads and stores, no division; the 1-D schedule divided per vector', () => {
    const f = single((g, x) => g.addOutput(pad(x, [8, 8, 1, 1])));
    const twoD = ptxOf(f, [[8192, 4096]]);
    // A row of 514 vectors: 128 threads × 2 vectors of the row (unroll 2); the PTX holds the two
    // stores twice (the unrolled loop's unpredicated and predicated copies).
    expect(twoD).toEqual({ breakPoint: 1, ldV4: 2, stV4: 4, scalarGlobal: 0, divRem: 0 });
    // (codegen's C divisions: fast division off, as before it existed; with it the 1-D kernel
    // divides through magic numbers, fast-division.test.ts)
    const oneD = ptxOf(f, [[8192, 4096]], { breakPoint: 0, fastDivision: false });
    expect(oneD.breakPoint).toBe(0);
    expect(oneD.divRem).toBeGreaterThan(0);
  }, 120_000);

  it('cat of three along dims 0 and 1, an aligned slice: 16-byte accesses; no division in these nor in a split grid y', () => {
    for (const dim of [0, 1]) {
      // rows of ≥ 256 vectors: unroll 2, so each of the three inputs' predicated loads twice
      // (cat along dim 0: the store twice, in the unrolled loop's unpredicated and predicated copies)
      expect(ptxOf(catOf(dim), [[8192, 4096], [8192, 4096], [8192, 4096]])).toEqual({ breakPoint: 1, ldV4: 6, stV4: dim === 0 ? 4 : 2, scalarGlobal: 0, divRem: 0 });
    }
    const sliced = single((g, x) => g.addOutput(slice(x, [1, 64], [8192, 4096])));
    expect(ptxOf(sliced, [[8192, 4096]])).toMatchObject({ breakPoint: 1, scalarGlobal: 0, divRem: 0 });
    // More rows than gridDim.y holds (the outer side loops), an odd pad (no vectors): still no division.
    const tall = new Fusion();
    const t = makeTensor(tall, { shape: [-1, -1] });
    tall.addInput(t);
    tall.addOutput(pad(t, [1, 0]));
    expect(ptxOf(tall, [[300000, 64]])).toMatchObject({ breakPoint: 1, ldV4: 0, divRem: 0 });
  }, 120_000);
});
