// The attention generators without a GPU: tiling and launch math (grids cover every output
// row, shared memory as laid out, limits respected), the kernels' parameter lists against the
// generated signatures, argument ordering, and the input checks' errors.
import { describe, expect, it } from 'vitest';
import { seededRandom, testSeed } from '@tsfuser/test-support';
import {
  backwardSharedBytes,
  backwardTiling,
  checkAttentionInputs,
  CodegenError,
  customTiling,
  dropoutConstants,
  forwardSharedBytes,
  forwardTiling,
  generateAttentionBackward,
  generateAttentionBackwardConvert,
  generateAttentionBackwardPreprocess,
  generateAttentionForward,
  MAX_SHARED_BYTES,
  orderArguments,
  type AttentionKernel,
  type AttentionVariant,
} from '../src/index.js';

const base: AttentionVariant = { dtype: 'BFloat16', headDim: 128, causal: false, bias: 'none', dropout: false };

/** The parameter list of the kernel's `extern "C"` signature, as (C type, name) pairs. */
function signature(kernel: AttentionKernel): { type: string; name: string }[] {
  const start = kernel.source.indexOf(`${kernel.name}(`);
  const end = kernel.source.indexOf(')', start);
  return kernel.source
    .slice(start + kernel.name.length + 1, end)
    .split(',')
    .map((p) => p.trim())
    .map((p) => {
      const name = p.split(/\s+/).at(-1) ?? '';
      return { type: p.slice(0, p.length - name.length).trim(), name };
    });
}

describe('attention tiling and launch math', () => {
  it('every head dim 8…256: padded to 16, 16 rows a warp, shared memory as laid out and under the limit', () => {
    for (let e = 8; e <= 256; e += 1) {
      const f = forwardTiling({ ...base, headDim: e });
      expect(f.headDimPadded % 16).toBe(0);
      expect(f.headDimPadded).toBeGreaterThanOrEqual(e);
      expect(f.headDimPadded - e).toBeLessThan(16);
      expect(f.blockM).toBe(16 * f.warps * f.rowTiles);
      expect(f.rowStride).toBe(f.headDimPadded + 8);
      // Q, then K and V: two stages each, one each with the split1 pipeline.
      expect(forwardSharedBytes(f)).toBe(2 * f.rowStride * f.blockM + 2 * (f.pipeline === 'split1' ? 1 : 2) * 2 * f.rowStride * f.blockN);
      expect(forwardSharedBytes(f)).toBeLessThanOrEqual(MAX_SHARED_BYTES);
      const b = backwardTiling({ ...base, headDim: e });
      expect(b.rowTiles).toBe(1);
      expect(b.blockN).toBe(16 * b.warps);
      expect(b.warps % (b.blockM / 16)).toBe(0);
      const bytes = 2 * b.rowStride * 2 * b.blockN + 2 * 2 * 2 * b.rowStride * b.blockM + 2 * b.blockN * (b.blockM + 8) + 2 * 2 * 4 * b.blockM;
      expect(backwardSharedBytes(b)).toBe(bytes);
      expect(bytes).toBeLessThanOrEqual(MAX_SHARED_BYTES);
    }
  });

  it('the tuned E 64 / 128 tilings: 128 query rows × 128 keys at E 64; at E 128, causal or not, 4 warps × two 16-row tiles × 64 keys, 2 CTAs an SM, split1 with the mask split, folded scale, warp skip and heavy-first grid; with a mask / bias / dropout 128 × 64 with Q in registers; 128-row K/V tiles in the backward', () => {
    expect(forwardTiling({ ...base, headDim: 64 })).toMatchObject({ warps: 8, rowTiles: 1, blockM: 128, blockN: 128 });
    const tuned = { warps: 4, rowTiles: 2, blockM: 128, blockN: 64, minBlocksPerSm: 2, qInRegisters: false, pipeline: 'split1', maskSplit: true, foldScale: true, warpSkip: true, heavyFirst: true, lazyRescale: false };
    expect(forwardTiling({ ...base, headDim: 128 })).toMatchObject(tuned);
    expect(forwardTiling({ ...base, headDim: 128, causal: true })).toMatchObject(tuned);
    expect(forwardTiling({ ...base, headDim: 120 })).toMatchObject({ ...tuned, headDimPadded: 128 });
    expect(forwardTiling({ ...base, headDim: 96 })).toMatchObject({ warps: 8, rowTiles: 2, blockM: 256, blockN: 32, pipeline: 'joint2' });
    expect(forwardTiling({ ...base, headDim: 96, causal: true })).toMatchObject({ warps: 8, rowTiles: 1, blockM: 128, blockN: 64, qInRegisters: true });
    for (const masked of [{ causal: true, bias: 'additive' as const, biasDtype: 'BFloat16' as const }, { bias: 'bool' as const }, { dropout: true }]) {
      expect(forwardTiling({ ...base, headDim: 128, ...masked })).toMatchObject({ warps: 8, rowTiles: 1, blockM: 128, blockN: 64, qInRegisters: true });
    }
    expect(backwardTiling({ ...base, headDim: 64 })).toMatchObject({ warps: 8, blockN: 128, blockM: 64, pipeline: 'joint2', maskSplit: false });
    expect(backwardTiling({ ...base, headDim: 128 })).toMatchObject({ warps: 8, blockN: 128, blockM: 64, pipeline: 'joint2-1sync', maskSplit: true, foldScale: false });
    expect(backwardTiling({ ...base, headDim: 128, causal: true })).toMatchObject({ blockM: 64, pipeline: 'joint2-1sync' });
    for (const other of [{ headDim: 100 }, { headDim: 128, dropout: true }, { headDim: 128, bias: 'bool' as const }]) {
      expect(backwardTiling({ ...base, ...other })).toMatchObject({ warps: 8, blockN: 128, blockM: 32, pipeline: 'joint2', maskSplit: false });
    }
  });

  it('grids cover every query row, key row and (n, h, l) row, with no whole block past the end (random sizes, seed printed)', () => {
    const seed = testSeed();
    const random = seededRandom(seed);
    for (let i = 0; i < 200; i += 1) {
      const kvHeads = 1 + Math.floor(random() * 8);
      const problem = { batch: 1 + Math.floor(random() * 8), heads: kvHeads * (1 + Math.floor(random() * 4)), kvHeads, queryLength: 1 + Math.floor(random() * 9000), keyLength: 1 + Math.floor(random() * 9000) };
      const variant = { ...base, headDim: 8 + Math.floor(random() * 249), causal: random() < 0.5 };
      const context = `seed ${seed}, case ${i}: ${JSON.stringify({ problem, variant })}`;
      const fwd = generateAttentionForward(variant);
      // heavyFirst puts the query tiles on y and (head, batch) on x.
      const [gx, gy, gz] = fwd.grid(problem);
      const [tiles, heads, batches] = fwd.tiling.heavyFirst ? [gy, gx / problem.batch, gz * problem.batch] : [gx, gy, gz];
      expect(tiles * fwd.tiling.blockM, context).toBeGreaterThanOrEqual(problem.queryLength);
      expect((tiles - 1) * fwd.tiling.blockM, context).toBeLessThan(problem.queryLength);
      expect([heads, batches], context).toEqual([problem.heads, problem.batch]);
      if (fwd.tiling.heavyFirst) expect(gz, context).toBe(1);
      expect(fwd.block[0], context).toBe(32 * fwd.tiling.warps);
      const bwd = generateAttentionBackward(variant);
      const [bx, by, bz] = bwd.grid(problem);
      expect(bx * bwd.tiling.blockN, context).toBeGreaterThanOrEqual(problem.keyLength);
      expect((bx - 1) * bwd.tiling.blockN, context).toBeLessThan(problem.keyLength);
      expect([by, bz], context).toEqual([problem.kvHeads, problem.batch]);
      for (const aux of [generateAttentionBackwardPreprocess(variant), generateAttentionBackwardConvert(variant)]) {
        const rowsPerBlock = aux.block[0] / 32;
        const rows = problem.batch * problem.heads * problem.queryLength;
        expect(aux.grid(problem)[0] * rowsPerBlock, context).toBeGreaterThanOrEqual(rows);
        expect((aux.grid(problem)[0] - 1) * rowsPerBlock, context).toBeLessThan(rows);
      }
    }
  });

  it('custom tilings: refused when they break a kernel assumption or the shared-memory limit', () => {
    expect(customTiling('forward', 128, 4, 64, 128).blockN).toBe(128);
    expect(customTiling('forward', 128, 4, 128, 64).rowTiles).toBe(2);
    expect(() => customTiling('forward', 128, 4, 96, 64)).toThrow(/blockM 96 must be 16 or 32 rows a warp \(64 or 128\)/);
    expect(() => customTiling('backward', 128, 8, 64, 64)).toThrow(/blockN 64 must be 16 × warps \(128\)/);
    expect(() => customTiling('backward', 128, 2, 64, 32)).toThrow(/do not split into the 4 dQ row groups/);
    expect(() => customTiling('forward', 256, 8, 128, 256)).toThrow(/B of shared memory > 232448/);
  });
});

describe('attention kernel descriptions', () => {
  const variants: AttentionVariant[] = [
    base,
    { ...base, dtype: 'Half', headDim: 80, causal: true, bias: 'additive', biasDtype: 'BFloat16', dropout: true },
    { ...base, headDim: 8, bias: 'bool' },
  ];
  it('parameter lists match the generated signatures, in order and in C type', () => {
    for (const v of variants) {
      const kernels = [generateAttentionForward(v), generateAttentionBackward(v), generateAttentionBackwardPreprocess(v), generateAttentionBackwardConvert(v)];
      for (const k of kernels) {
        const sig = signature(k);
        expect(sig.map((p) => p.name)).toEqual(k.parameters.map((p) => p.name));
        for (const [i, p] of k.parameters.entries()) {
          const type = sig[i]?.type ?? '';
          if (p.kind === 'pointer') expect(type).toContain('*');
          else expect(type).toBe(p.dtype === 'Int' ? 'long long' : p.dtype === 'Int32' ? 'int' : 'float');
        }
        expect(new Set(k.parameters.map((p) => p.name)).size).toBe(k.parameters.length);
        expect(k.source.match(/__global__/g)?.length).toBe(1);
      }
    }
  });

  it('kernel names tell the variants apart; dropout variants carry the Philox helper, the others none', () => {
    const names = variants.map((v) => generateAttentionForward(v).name);
    expect(new Set(names).size).toBe(names.length);
    expect(names[1]).toBe('tsfuser_attention_fwd_f16_e80_causal_biasbf16_dropout');
    expect(generateAttentionForward(variants[1] ?? base).source).toContain('nvf_philox(');
    expect(generateAttentionBackward(variants[1] ?? base).source).toContain('dropout_keep(');
    expect(generateAttentionForward(base).source).not.toContain('nvf_philox');
  });

  it('orderArguments follows the parameter list and names a missing value', () => {
    const k = generateAttentionBackwardConvert(base);
    const values = Object.fromEntries(k.parameters.map((p, i) => [p.name, i * 10]));
    expect(orderArguments(k, values)).toEqual(k.parameters.map((_, i) => i * 10));
    const { scale: _scale, ...missing } = values;
    expect(() => orderArguments(k, missing)).toThrow(`attention kernel ${k.name}: no value for parameter scale`);
  });
});

describe('attention input checks', () => {
  const q = { sizes: [2, 8, 100, 128], strides: [8 * 100 * 128, 100 * 128, 128, 1] };
  const kv = { sizes: [2, 2, 70, 128], strides: [2 * 70 * 136, 136, 2 * 136, 1] };
  it('returns the problem of valid inputs (GQA, strided rows)', () => {
    expect(checkAttentionInputs(base, { query: q, key: kv, value: kv })).toEqual({ batch: 2, heads: 8, kvHeads: 2, queryLength: 100, keyLength: 70 });
  });
  it('names the problem of bad inputs', () => {
    const cases: [Parameters<typeof checkAttentionInputs>[1], AttentionVariant, RegExp][] = [
      [{ query: { ...q, strides: [1, 1, 1, 8] }, key: kv, value: kv }, base, /query must be contiguous in its last dim/],
      [{ query: q, key: { ...kv, strides: [2 * 70 * 132, 132, 2 * 132, 1] }, value: kv }, base, /key stride 132 of dim 1 is not a multiple of 8 elements/],
      [{ query: { ...q, dataPtr: 0x1008n }, key: kv, value: kv }, base, /query data pointer 0x1008 is not 16-byte aligned/],
      [{ query: { ...q, sizes: [2, 6, 100, 128] }, key: { ...kv, sizes: [2, 4, 70, 128] }, value: { ...kv, sizes: [2, 4, 70, 128] } }, base, /query heads 6 must be a multiple of key\/value heads 4/],
      [{ query: q, key: kv, value: { ...kv, sizes: [2, 2, 71, 128] } }, base, /differ in heads or length/],
      [{ query: { ...q, sizes: [2, 8, 100, 64] }, key: kv, value: kv }, base, /query head dim 64 differs from the kernel's 128/],
      [{ query: q, key: kv, value: kv }, { ...base, bias: 'bool' }, /the mask tensor is missing/],
      [{ query: q, key: kv, value: kv, bias: { sizes: [2, 8, 100, 71], strides: [0, 0, 71, 1] } }, { ...base, bias: 'additive', biasDtype: 'Float' }, /bias dim 3 \(S\) has size 71, expected 70/],
      [{ query: q, key: kv, value: kv, bias: { sizes: [1, 8, 100, 70], strides: [7000, 7000, 70, 1] } }, { ...base, bias: 'additive', biasDtype: 'Float' }, /bias dim 0 \(N\) broadcasts \(size 1\) and must have stride 0, got 7000/],
      [{ query: q, key: kv, value: kv, dropoutProbability: 1 }, { ...base, dropout: true }, /dropout probability 1 must be in \[0, 1\)/],
      [{ query: q, key: kv, value: kv, dropoutProbability: 0.5 }, base, /given to a kernel generated without dropout/],
    ];
    for (const [inputs, variant, message] of cases) {
      expect(() => checkAttentionInputs(variant, inputs)).toThrow(CodegenError);
      expect(() => checkAttentionInputs(variant, inputs)).toThrow(message);
    }
  });
  it('refuses head dims outside 8…256 and an additive bias without a dtype', () => {
    expect(() => generateAttentionForward({ ...base, headDim: 4 })).toThrow('attention: head dim 4 is outside the supported range 8…256');
    expect(() => generateAttentionBackward({ ...base, headDim: 257 })).toThrow(/head dim 257 is outside/);
    expect(() => generateAttentionForward({ ...base, bias: 'additive' })).toThrow(/needs biasDtype/);
  });
  it('dropout constants are float32(1 − p) and float32(1 / (1 − p))', () => {
    expect(dropoutConstants(0.1)).toEqual({ keepProb: Math.fround(0.9), keepScale: Math.fround(1 / 0.9) });
    expect(dropoutConstants(0)).toEqual({ keepProb: 1, keepScale: 1 });
  });
});
