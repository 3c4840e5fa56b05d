// The CUDA Philox helper without a GPU: its host-compilable core (PHILOX_CORE) is built with
// the host compiler into a small program that prints Philox words and the Float/Double
// uniform, uniform-range and normal values for many linear indices; they must equal the
// reference evaluator's bit for bit (normal: within the host libm's last-bit differences).
// Then every RNG fixture kernel (all four dtypes, all ops) and erfcinv compile with nvcc for
// sm_90.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { erfcinv, Fusion, makeTensor, philox, rngValueAt, type DataType, type RngSpec } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { describe, expect, it } from 'vitest';
import { compileFusion, PHILOX_CORE } from '../src/index.js';
import { compileKernelsWithNvcc, hasNvcc } from './nvcc-batch.js';
import { rngCases } from '@tsfuser/test-support';

const run = promisify(execFile);
const CXX = process.env.CXX ?? '/usr/bin/g++';

// Large seed and offset (both words used), subsequences past 2^32.
const SEED = 0x0123456789abcdefn;
const OFFSET = 0x00000003fffffffen;
const INDICES = [...Array.from({ length: 4096 }, (_, i) => i), 2 ** 34 + 5, 2 ** 35 + 2, 123456789012];

const HOST_MAIN = `
#include <cstdio>
#include <cstring>
#include <cmath>
#include <cstdlib>
${PHILOX_CORE}
static unsigned long long bits(double x) { unsigned long long b; std::memcpy(&b, &x, 8); return b; }
static unsigned int fbits(float x) { unsigned int b; std::memcpy(&b, &x, 4); return b; }
int main(int argc, char** argv) {
  const long long seed = std::strtoll(argv[1], nullptr, 10), offset = std::strtoll(argv[2], nullptr, 10);
  NvfRngCache cache;
  nvf_rng_cache_init(cache);
  for (int a = 3; a < argc; ++a) {
    const long long i = std::strtoll(argv[a], nullptr, 10);
    const unsigned int* w4 = nvf_philox_words(cache, seed, offset, i / 4);
    const int c4 = static_cast<int>(i % 4);
    std::printf("%lld %08x %08x %08x %08x %08x %08x %08x", i, w4[0], w4[1], w4[2], w4[3],
                fbits(nvf_rng_uniform_float(w4, c4)), fbits(nvf_rng_uniform_range_float(w4, c4, -2.5, 7.0)),
                fbits(nvf_rng_normal_general_float(w4, c4, 0.5, 3.0)));
    const unsigned int* w2 = nvf_philox_words(cache, seed, offset, i / 2);
    const int c2 = static_cast<int>(i % 2);
    std::printf(" %016llx %016llx %016llx\\n", bits(nvf_rng_uniform_double(w2, c2)), bits(nvf_rng_uniform_range_double(w2, c2, -2.5, 7.0)),
                bits(nvf_rng_normal_standard_double(w2, c2)));
  }
  return 0;
}
`;

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
const floatOf = (hex: string): number => {
  u32[0] = parseInt(hex, 16);
  return f32[0] as number;
};
const doubleOf = (hex: string): number => {
  u64[0] = BigInt(`0x${hex}`);
  return f64[0] as number;
};

const spec = (op: RngSpec['op'], dtype: RngSpec['dtype'], parameters: number[] = []): RngSpec => ({ op, dtype, seed: SEED, offset: OFFSET, parameters });

describe.skipIf(!existsSync(CXX))('the Philox helper compiled for the host', () => {
  it('gives the reference evaluator’s words and numbers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tsfuser-philox-'));
    writeFileSync(join(dir, 'philox.cpp'), HOST_MAIN);
    await run(CXX, ['-O2', '-ffp-contract=off', '-std=c++17', join(dir, 'philox.cpp'), '-o', join(dir, 'philox')]);
    const { stdout } = await run(join(dir, 'philox'), [String(SEED), String(OFFSET), ...INDICES.map(String)], { maxBuffer: 1 << 24 });
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(INDICES.length);
    let normalUlps = 0;
    for (const line of lines) {
      const [index, w0, w1, w2, w3, uf, urf, nf, ud, urd, nd] = line.split(' ') as string[];
      const i = Number(index);
      const where = `index ${i} (seed ${SEED}, offset ${OFFSET})`;
      expect([w0, w1, w2, w3].map((h) => parseInt(h as string, 16)), where).toEqual(philox(SEED, Math.floor(i / 4), OFFSET));
      expect(floatOf(uf as string), where).toBe(rngValueAt(spec('uniform', 'Float'), i));
      expect(floatOf(urf as string), where).toBe(rngValueAt(spec('uniform_range', 'Float', [-2.5, 7]), i));
      expect(doubleOf(ud as string), where).toBe(rngValueAt(spec('uniform', 'Double'), i));
      expect(doubleOf(urd as string), where).toBe(rngValueAt(spec('uniform_range', 'Double', [-2.5, 7]), i));
      // Box–Muller through the host's logf/sinf/cosf: equal up to their last bits.
      const nfWant = rngValueAt(spec('normal_general', 'Float', [0.5, 3]), i);
      const nfGot = floatOf(nf as string);
      if (nfGot !== nfWant) normalUlps += 1;
      expect(Math.abs(nfGot - nfWant), where).toBeLessThanOrEqual(4e-6 * Math.max(1, Math.abs(nfWant)));
      const ndWant = rngValueAt(spec('normal_standard', 'Double'), i);
      expect(Math.abs(doubleOf(nd as string) - ndWant), where).toBeLessThanOrEqual(1e-14 * Math.max(1, Math.abs(ndWant)));
    }
    expect(normalUlps, 'Float normals that differ in the last bits').toBeLessThan(lines.length / 4);
  }, 60_000);
});

function erfcinvFusion(dtype: DataType): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(x);
  f.addOutput(erfcinv(x));
  return f;
}

describe.skipIf(!hasNvcc)('RNG and erfcinv kernels compile with nvcc', () => {
  it('every RNG fixture (four dtypes, every RNG op, dropout) and erfcinv in four dtypes, for sm_90', async () => {
    const kernels = [...rngCases(37, 131), ...rngCases(64, 1024)].map((c, i) =>
      compileFusion(c.fusion, makeRuntimeInfo(c.fusion, c.inputSizes.map((s) => ({ sizes: s }))), { fusionId: 900 + i }),
    );
    (['Float', 'Double', 'Half', 'BFloat16'] as const).forEach((dtype, i) => {
      const f = erfcinvFusion(dtype);
      const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [33, 17] }]), { fusionId: 990 + i });
      expect(k.dumps.cuda).toContain('nvf_erfcinv(');
      kernels.push(k);
    });
    await compileKernelsWithNvcc(kernels, { chunks: 1, label: 'rng' });
  }, 120_000);
});
