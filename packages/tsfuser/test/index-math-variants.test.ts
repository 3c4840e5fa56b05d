// gpu/index-math-variants.ts (tsfuser-resize-variants' fast-division and constant-extent
// rewrites of a kernel): the IntDivider magic divides exactly, and both rewrites of the RoPE bench
// kernel replace every extent declaration and still compile for sm_90 (nvcc, where installed).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportKernels } from '../gpu/export-kernels.js';
import { divisorMagic, extentDeclarations, fastDivide, kernelParamNames, patchConstantExtents, patchFastDivision } from '../gpu/index-math-variants.js';
import { ropeBoundKernels } from '../gpu/rope-bound-kernels.js';
import { findNvcc } from '../src/dumps/nvcc.js';

const nvcc = findNvcc();
if (nvcc === null) console.log('index-math-variants: nvcc compile checks skipped: nvcc is not installed');

describe('divisorMagic', () => {
  it('n / d for random d in [1, 2^31) and n in [0, 2^31), and at the edges', () => {
    const seed = (Date.now() % 100000) + 1;
    console.log(`index-math-variants seed ${seed}`);
    let state = seed;
    const next = (): number => {
      state = (state * 48271) % 2147483647; // Park-Miller
      return state;
    };
    const cases: [number, number][] = [];
    for (const d of [1, 2, 3, 7, 128, 4096, 4112, 65535, 2 ** 30, 2 ** 31 - 1]) {
      for (const n of [0, 1, d - 1, d, d + 1, 2 ** 31 - 1, 2 ** 31 - 2]) cases.push([n, d]);
    }
    for (let k = 0; k < 2000; k += 1) {
      const d = k % 2 === 0 ? (next() % 5000) + 1 : next();
      cases.push([next(), d]);
    }
    for (const [n, d] of cases) expect(fastDivide(n, divisorMagic(d)), `seed ${seed}: ${n} / ${d}`).toBe(Math.floor(n / d));
  });

  it('refuses divisors outside [1, 2^31)', () => {
    expect(() => divisorMagic(0)).toThrow(/divisor 0 is not in/);
    expect(() => divisorMagic(2 ** 31)).toThrow(/not in/);
  });
});

describe('index-math rewrites of the RoPE bench kernel', () => {
  // The rewrites apply to the kernel with codegen's fast division off (as resize-variants.ts
  // applies them): the heuristic's own kernel already divides by NvfDivisor parameters.
  const kernel = exportKernels(['rope_bf16'], { divide: { pointwise: { fastDivision: false } } }).find((k) => k.kernel.variant === 'divide');
  if (kernel === undefined) throw new Error('rope_bf16 exported no kernel with fast division off');
  const { source } = kernel;
  const names = kernelParamNames(source);
  const sizes = [...kernel.kernel.inputs.map((i) => i.sizes), kernel.kernel.inputs[0]?.sizes ?? []];
  const extent = (param: string, dim: number): number => sizes[names.indexOf(param)]?.[dim] ?? Number.NaN;

  it('the heuristic kernel divides by fast divisors; with fastDivision off it takes none', () => {
    const heuristic = exportKernels(['rope_bf16'], {}).find((k) => k.kernel.variant === 'heuristic');
    expect(heuristic?.kernel.divisors).not.toBeNull();
    expect(kernel.kernel.divisors).toBeNull();
  });

  it('reads the parameters and the extents the kernel divides by', () => {
    expect(names).toEqual(['T0', 'T1', 'T2', expect.stringMatching(/^T\d+$/)]);
    const decls = extentDeclarations(source);
    expect(decls.map((e) => `${e.param}[${e.dim}]`)).toContain('T0[3]');
    expect(source).toMatch(/ \/ i\d+/); // the flat index divided by a run-time extent
  });

  it('fast division: every extent an NvfDivisor with its magic in __constant__ memory', () => {
    const out = patchFastDivision(source, extent);
    expect(extentDeclarations(out)).toEqual([]);
    const decls = extentDeclarations(source);
    expect(out).toContain(`__constant__ unsigned nvf_divisor_magic[${2 * decls.length}]`);
    // T0[3] = 128: shift 7, magic 1 (a power of two)
    const k = decls.findIndex((e) => e.param === 'T0' && e.dim === 3);
    expect(out).toContain(`NvfDivisor ${decls[k]?.name} = {T0.logical_size[3], nvf_divisor_magic[${2 * k}], nvf_divisor_magic[${2 * k + 1}]};`);
    expect(divisorMagic(128)).toEqual({ magic: 1, shift: 7 });
  });

  it('constant extents: every extent a literal of the launch sizes', () => {
    const out = patchConstantExtents(source, extent);
    expect(extentDeclarations(out)).toEqual([]);
    expect(out).toMatch(/const nvfuser_index_t i\d+ = 128;/);
    expect(out).toMatch(/const nvfuser_index_t i\d+ = 4096;/);
  });

  it('the hand-written RoPE kernels keep the generated name and parameters; their index forms differ only in the extents', () => {
    const bound = ropeBoundKernels(source, kernel.kernel.kernel, extent);
    expect(bound.map((b) => b.name)).toEqual(['hand-written: one partner load', 'hand-written: one partner load + fast division', 'hand-written: one partner load + constant extents (bound)']);
    for (const b of bound) expect(b.source).toContain(`void __launch_bounds__(256) ${kernel.kernel.kernel}(Tensor<__bfloat, 4, 4> T0, Tensor<__bfloat, 4, 4> T1, Tensor<__bfloat, 4, 4> T2, Tensor<__bfloat, 4, 4> T3)`);
    expect(extentDeclarations(bound[0]?.source ?? '').map((e) => e.name)).toEqual(['i1', 'i2', 'i3']);
    expect(bound[2]?.source).toContain('const nvfuser_index_t i3 = 128;');
  });

  it.skipIf(nvcc === null)('both rewrites and the hand-written kernels compile for sm_90', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-index-math-'));
    const bound = ropeBoundKernels(source, kernel.kernel.kernel, extent).map((b, k) => [`bound${k}`, b.source] as const);
    for (const [name, text] of [['fast', patchFastDivision(source, extent)], ['const', patchConstantExtents(source, extent)], ...bound] as const) {
      const file = join(dir, `${name}.cu`);
      writeFileSync(file, text);
      execFileSync(nvcc as string, ['-arch=sm_90', '-cubin', '-w', file, '-o', join(dir, `${name}.cubin`)], { stdio: 'pipe' });
    }
  }, 120000);
});
