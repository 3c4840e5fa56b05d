// The CUDA complex helpers without a GPU: their host-compilable core (COMPLEX_CORE) is built with
// the host compiler into a program that applies every complex op of the runtime to the inputs of
// the PyTorch fixture (test-fixtures/torch-values/complex.json, special values included) in
// nvf_cfloat and nvf_cdouble; the results must match PyTorch's within the dtype tolerance (the
// same check the reference evaluator passes). Then complex kernels (pointwise with every op,
// casts, complex(), and sum reductions) compile with nvcc for sm_90 (-cubin: ptxas included).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Fusion, makeTensor, sum } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { COMPLEX_CORE, compileFusion } from '../src/index.js';
import { complexKernels } from './complex-kernels.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

const run = promisify(execFile);
const CXX = process.env.CXX ?? '/usr/bin/g++';

type FixtureNumber = number | boolean | 'inf' | '-inf' | 'nan';
interface FixtureTensor {
  dtype: string;
  values: FixtureNumber[];
}
interface FixtureCase {
  op: string;
  inputs: FixtureTensor[];
  output: FixtureTensor;
}

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/complex.json', import.meta.url)), 'utf8'),
) as { cases: FixtureCase[] };

const UNARY = ['abs', 'neg', 'reciprocal', 'exp', 'log', 'sqrt', 'sin', 'cos', 'tanh', 'real', 'imag', 'isfinite', 'isnan', 'isinf'];
const BINARY: Record<string, string> = { add: '+', sub: '-', mul: '*', div: '/', eq: '==', ne: '!=' };

function decode(v: FixtureNumber): number {
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (v === 'nan') return NaN;
  return typeof v === 'boolean' ? Number(v) : v;
}

function cLiteral(x: number): string {
  if (Number.isNaN(x)) return 'NAN';
  if (x === Infinity) return 'INFINITY';
  if (x === -Infinity) return '(-INFINITY)';
  return Object.is(x, -0) ? '-0.0' : x.toExponential(17);
}

/** A C++ statement block printing the case's result values, one per line. */
function caseCode(c: FixtureCase, k: number): string | null {
  const cdtype = c.inputs[0]?.dtype;
  if (cdtype !== 'ComplexFloat' && cdtype !== 'ComplexDouble') return null;
  const ct = cdtype === 'ComplexFloat' ? 'nvf_cfloat' : 'nvf_cdouble';
  const rt = cdtype === 'ComplexFloat' ? 'float' : 'double';
  const isUnary = UNARY.includes(c.op);
  const infix = BINARY[c.op];
  if (!isUnary && infix === undefined) return null;
  if (!isUnary && c.inputs[1]?.dtype !== cdtype) return null;
  const arrays = c.inputs.map((t, i) => `static const ${rt} in${k}_${i}[] = {${t.values.map((v) => cLiteral(decode(v))).join(', ')}};`);
  const n = (c.inputs[0]?.values.length ?? 0) / 2;
  const a = `${ct}_make(in${k}_0[2 * i], in${k}_0[2 * i + 1])`;
  const b = `${ct}_make(in${k}_1[2 * i], in${k}_1[2 * i + 1])`;
  const expr = isUnary ? `nvf_${c.op}(${a})` : `(${a} ${infix as string} ${b})`;
  return `  {\n  ${arrays.join('\n  ')}\n  std::printf("case ${k}\\n");\n  for (int i = 0; i < ${n}; ++i) emit(${expr});\n  }`;
}

const HOST_MAIN = (blocks: readonly string[]): string => `
#include <cmath>
#include <cstdio>
using std::signbit;
#define NVF_HD inline
#define NVF_INFINITY INFINITY
#define NVF_NAN NAN
${COMPLEX_CORE}
static void emit(nvf_cfloat z) { std::printf("%.9g %.9g\\n", z.re, z.im); }
static void emit(nvf_cdouble z) { std::printf("%.17g %.17g\\n", z.re, z.im); }
static void emit(double x) { std::printf("%.17g\\n", x); }
static void emit(float x) { std::printf("%.9g\\n", x); }
static void emit(bool x) { std::printf("%d\\n", x ? 1 : 0); }
int main() {
${blocks.join('\n')}
  return 0;
}
`;

function parseNumber(s: string): number {
  if (/^-?nan$/.test(s)) return NaN;
  if (s === 'inf') return Infinity;
  if (s === '-inf') return -Infinity;
  return Number(s);
}

function close(actual: number, expected: number, magnitude: number, tol: number): boolean {
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!Number.isFinite(expected)) return actual === expected;
  return Math.abs(actual - expected) <= tol * Math.max(1, magnitude);
}

describe.skipIf(!existsSync(CXX))('the complex helpers compiled for the host', () => {
  it('match the values PyTorch computed (both complex dtypes, special values included)', async () => {
    const cases = fixture.cases.map((c, k) => ({ c, k, code: caseCode(c, k) })).filter((x): x is { c: FixtureCase; k: number; code: string } => x.code !== null);
    expect(cases.length).toBeGreaterThan(35);
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-complex-'));
    writeFileSync(join(dir, 'complex.cpp'), HOST_MAIN(cases.map((x) => x.code)));
    await run(CXX, ['-O2', '-ffp-contract=off', '-std=c++17', join(dir, 'complex.cpp'), '-o', join(dir, 'complex')]);
    const { stdout } = await run(join(dir, 'complex'), [], { maxBuffer: 1 << 24 });
    const blocks = stdout.split('case ').slice(1);
    expect(blocks).toHaveLength(cases.length);
    const bad: string[] = [];
    blocks.forEach((block, j) => {
      const { c, k } = cases[j] as { c: FixtureCase; k: number };
      const lines = block.trim().split('\n').slice(1);
      const want = c.output.values.map(decode);
      const tol = c.inputs[0]?.dtype === 'ComplexFloat' ? 2e-6 : 1e-13;
      const complexOut = c.output.dtype.startsWith('Complex');
      lines.forEach((line, i) => {
        const got = line.split(' ').map(parseNumber);
        const exp = complexOut ? [want[2 * i] as number, want[2 * i + 1] as number] : [want[i] as number];
        const mag = Math.hypot(...exp.map((x) => (Number.isFinite(x) ? x : 0)));
        if (got.some((g, p) => !close(g, exp[p] as number, mag, tol))) bad.push(`#${k} ${c.op} (${c.inputs[0]?.dtype}) [${i}]: got ${line}, torch ${exp.join(' ')}`);
      });
    });
    expect(bad).toEqual([]);
  }, 120_000);
});

describe.skipIf(!hasNvcc)('complex kernels compile with nvcc', () => {
  it('pointwise (every complex op, casts, complex(), real/imag) and sum reductions, both dtypes, for sm_90', async () => {
    const kernels = complexKernels();
    expect(kernels.length).toBeGreaterThanOrEqual(8);
    for (const k of kernels) expect(k.dumps.cuda).toMatch(/nvf_c(float|double)/);
    await compileKernelsWithNvcc(kernels, { cubin: true, label: 'complex' });
  }, 300_000);

  it('sums across the grid (grid reduction partials read through nvf_load_l2: a volatile struct has no copy constructor)', async () => {
    // The H100 suite's complex_sum_dim0_ComplexFloat_16384x1024 once failed NVRTC here.
    const kernels = (['ComplexFloat', 'ComplexDouble'] as const).map((dtype, i) => {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype });
      f.addInput(x);
      f.addOutput(sum(x, [0]));
      const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [16384, 1024], strides: [1024, 1] }]), { fusionId: 900 + i });
      expect(k.dumps.cuda, dtype).toContain('gridReduce');
      // The work buffer counts 8-byte words: a ComplexDouble partial takes two (it once took one: NaN sums on the H100).
      const slots = k.params.schedulerType === 'reduction' ? k.params.gridReductionWorkSlots : 0;
      const work = k.deviceGlobals.find((g) => g.ctype === 'double');
      expect(work?.size, dtype).toBe(slots * (dtype === 'ComplexDouble' ? 2 : 1));
      return k;
    });
    await compileKernelsWithNvcc(kernels, { cubin: true, label: 'complex-grid' });
  }, 300_000);
});
