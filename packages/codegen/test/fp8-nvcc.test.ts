// The fp8 runtime helpers (emit/runtime/fp8.ts) checked without a GPU: (1) compiled as host
// C++ with g++ (the few CUDA intrinsics they use given host definitions) and run on every input
// of the PyTorch fixture (test-fixtures/torch-values/float8.json), byte for byte, plus all 256
// decodes of each format; (2) every fp8 fixture kernel compiled by nvcc -cubin for sm_90.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { fp8Cases, fp8DirectReductionCases } from '@tsfuser/test-support';
import { describe, expect, it } from 'vitest';
import { compileFusion, FP8_RUNTIME, type CompiledKernel } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';

const GXX = process.env.CXX ?? '/usr/bin/g++';

interface Fixture {
  float32Bits: string;
  encoded: Record<string, string>;
  decoded: Record<string, string>;
}
const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/float8.json', import.meta.url)), 'utf8')) as Fixture;

const HOST_PRELUDE = `#include <cmath>
#include <cstdio>
#include <cstring>
#define __device__
#define __forceinline__ inline
static inline unsigned __float_as_uint(float f) { unsigned u; std::memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; std::memcpy(&f, &u, 4); return f; }
static inline unsigned __float2uint_rn(float f) { return static_cast<unsigned>(std::nearbyint(f)); }
static inline float __double2float_rn(double d) { return static_cast<float>(d); }
`;

const HOST_MAIN = `
int main() {
  unsigned bits;
  while (std::scanf("%x", &bits) == 1) {
    const float f = __uint_as_float(bits);
    std::printf("%02x%02x%02x\\n", __float2e4m3(f).x, __float2e5m2(f).x, __float2e8m0(f).x);
  }
  for (unsigned b = 0; b < 256; ++b) {
    __e4m3 a; a.x = b; __e5m2 c; c.x = b; __e8m0 d; d.x = b;
    std::printf("%08x %08x %08x\\n", __float_as_uint(__e4m32float(a)), __float_as_uint(__e5m22float(c)), __float_as_uint(__e8m02float(d)));
  }
  return 0;
}
`;

function chunks(hex: string, width: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < hex.length; i += width) out.push(hex.slice(i, i + width));
  return out;
}

function isNanBits(hex: string): boolean {
  const u = parseInt(hex, 16);
  return (u & 0x7f800000) === 0x7f800000 && (u & 0x7fffff) !== 0;
}

describe.skipIf(!existsSync(GXX))('fp8 runtime helpers on the host (g++) against PyTorch', () => {
  it('encodes every fixture input and decodes all 256 patterns as PyTorch', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-fp8-host-'));
    const src = join(dir, 'fp8.cpp');
    writeFileSync(src, `${HOST_PRELUDE}${FP8_RUNTIME}${HOST_MAIN}`);
    execFileSync(GXX, ['-O2', '-std=c++17', src, '-o', join(dir, 'fp8')]);
    const inputs = chunks(fixture.float32Bits, 8);
    const lines = execFileSync(join(dir, 'fp8'), { input: inputs.join('\n'), maxBuffer: 1 << 24 }).toString().trim().split('\n');
    expect(lines.length).toBe(inputs.length + 256);
    const formats = ['Float8_e4m3fn', 'Float8_e5m2', 'Float8_e8m0fnu'] as const;
    formats.forEach((name, k) => {
      const want = chunks(fixture.encoded[name] ?? '', 2);
      const bad: string[] = [];
      inputs.forEach((bits, i) => {
        let got = (lines[i] as string).slice(2 * k, 2 * k + 2);
        let expected = want[i] as string;
        // NaN inputs: tsfuser writes the positive NaN (PyTorch keeps the sign bit).
        if (isNanBits(bits)) {
          got = (parseInt(got, 16) & 0x7f).toString(16);
          expected = (parseInt(expected, 16) & 0x7f).toString(16);
        }
        if (got !== expected) bad.push(`${name} ${bits}: ${got} vs torch ${expected}`);
      });
      expect(bad.slice(0, 10)).toEqual([]);
      const decoded = chunks(fixture.decoded[name] ?? '', 8);
      for (let b = 0; b < 256; b += 1) {
        const got = (lines[inputs.length + b] as string).split(' ')[k] as string;
        const expected = decoded[b] as string;
        if (isNanBits(expected)) expect(got).toBe('7fc00000');
        else expect(`${name} ${b}: ${got}`).toBe(`${name} ${b}: ${expected}`);
      }
    });
  }, 120_000);
});

describe.skipIf(!hasNvcc)('fp8 kernels compile with nvcc', () => {
  it('every fp8 fixture kernel at three shapes, cubin for sm_90', async () => {
    const kernels: CompiledKernel[] = [];
    // Block reductions, grid reductions over long rows, short rows.
    for (const sizes of [[4096, 1024], [4, 1 << 22], [1 << 20, 6]]) {
      // A 4M-element row does not fit one persistent kernel (the segmenter splits that fusion).
      const cases = [...fp8Cases(), ...fp8DirectReductionCases()].filter((c) => !(c.scheduler === 'inner_persistent' && (sizes[1] as number) > 1 << 16));
      for (const c of cases) kernels.push(compileFusion(c.fusion, makeRuntimeInfo(c.fusion, c.fusion.inputs.map(() => ({ sizes }))), { fusionId: 31000 + kernels.length }));
    }
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'fp8', cubin: true });
  }, 300_000);
});
