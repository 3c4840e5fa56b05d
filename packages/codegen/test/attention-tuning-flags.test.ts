// The forward tuning flags of AttentionTiling without a GPU: what each flag changes in the
// launch description (shared memory of the split1 pipeline, the heavy-first grid and its
// limit, the __launch_bounds__ block count) and in the generated text (the mask-free loop of
// maskSplit, the FFMA exp2 of foldScale only without a bias, the warp skip only when causal,
// the barrier count per tile of each pipeline), the backward's (barriers a Q step, the 32-row
// dQ warp tiles, the deferred dQ with its second dSᵀ buffer, the staggered Q order), and that
// every tuning entry is a distinct kernel for the entry's kernel cache (tilingTag).
import { describe, expect, it } from 'vitest';
import { BACKWARD_TUNING, backwardSharedBytes, customTiling, FORWARD_TUNING, forwardSharedBytes, generateAttentionBackward, generateAttentionForward, tilingTag, tuningTiling, type AttentionVariant } from '../src/attention/index.js';

const plain: AttentionVariant = { dtype: 'BFloat16', headDim: 128, causal: false, bias: 'none', dropout: false };
const causal: AttentionVariant = { ...plain, causal: true };

/** The text of the K/V loop starting at `for (int j = <from>`. */
function loopText(source: string, from: string): string {
  const start = source.indexOf(`for (int j = ${from}`);
  if (start < 0) throw new Error(`no loop from ${from}`);
  const next = source.indexOf('for (int j = ', start + 10);
  return source.slice(start, next < 0 ? source.indexOf('tsf_cp_async_wait<0>();  // S = 0') : next);
}

describe('attention forward tuning flags', () => {
  it('split1 keeps one stage of K and V: Q + 2 · blockN rows of shared memory', () => {
    const joint = customTiling('forward', 128, 4, 128, 64);
    const split = customTiling('forward', 128, 4, 128, 64, { pipeline: 'split1' });
    expect(forwardSharedBytes(joint)).toBe(2 * 136 * (128 + 4 * 64));
    expect(forwardSharedBytes(split)).toBe(2 * 136 * (128 + 2 * 64));
    expect(generateAttentionForward(plain, split).sharedBytes).toBe(forwardSharedBytes(split));
  });

  it('heavy-first: grid (N·H, query tiles) covering every tile, refused past 65535 tiles', () => {
    const t = customTiling('forward', 128, 8, 128, 64, { heavyFirst: true });
    const k = generateAttentionForward(causal, t);
    expect(k.grid({ batch: 3, heads: 5, kvHeads: 5, queryLength: 1000, keyLength: 1000 })).toEqual([15, 8, 1]);
    expect(generateAttentionForward(causal, customTiling('forward', 128, 8, 128, 64)).grid({ batch: 3, heads: 5, kvHeads: 5, queryLength: 1000, keyLength: 1000 })).toEqual([8, 5, 3]);
    expect(() => k.grid({ batch: 1, heads: 1, kvHeads: 1, queryLength: 128 * 65536, keyLength: 16 })).toThrow(/65536 query tiles exceed the heavy-first grid's 65535/);
    expect(k.source).toContain('gridDim.y - 1 - blockIdx.y');
  });

  it('minBlocksPerSm reaches __launch_bounds__ and is refused beyond 2048 threads an SM', () => {
    const k = generateAttentionForward(plain, customTiling('forward', 128, 4, 64, 64, { minBlocksPerSm: 2 }));
    expect(k.source).toContain('__launch_bounds__(128, 2)');
    expect(() => customTiling('forward', 128, 8, 128, 64, { minBlocksPerSm: 9 })).toThrow(/9 blocks of 256 threads per SM is not possible/);
  });

  it('maskSplit: the first loop has no mask code, the second tests every element', () => {
    const k = generateAttentionForward(causal, customTiling('forward', 128, 8, 128, 64, { maskSplit: true }));
    const clean = loopText(k.source, '0; j < jClean');
    const masked = loopText(k.source, 'jClean; j < nBlocks');
    expect(clean).not.toContain('-tsf_inf();\n');
    expect(clean).not.toContain('col > row');
    expect(masked).toContain('(kCausal && col > row)');
    // Without the flag there is one loop, with the mask.
    const one = generateAttentionForward(causal, customTiling('forward', 128, 8, 128, 64));
    expect(one.source).not.toContain('jClean');
    expect(loopText(one.source, '0; j < nBlocks')).toContain('(kCausal && col > row)');
  });

  it('foldScale: exp2 of one FFMA and the sign fix-up, only without a bias or mask', () => {
    const t = customTiling('forward', 128, 8, 128, 64, { foldScale: true });
    const folded = generateAttentionForward(plain, t).source;
    expect(folded).toContain('fmaf(s[rt][i][2 * r], scoreScale, -base)');
    expect(folded).toContain('if (!(scoreScale > 0.0f))');
    expect(folded).toContain('(rowMax[rt][r] * scoreScale + log2f(sum))');
    const masked = generateAttentionForward({ ...plain, bias: 'bool' }, t).source;
    expect(masked).not.toContain('fmaf(s[rt][i][2 * r], scoreScale, -base)');
    expect(masked).not.toContain('if (!(scoreScale > 0.0f))');
  });

  it('warpSkip: a live test in the masked loop of causal kernels only', () => {
    const t = customTiling('forward', 128, 8, 128, 64, { warpSkip: true, maskSplit: true });
    const k = generateAttentionForward(causal, t).source;
    expect(loopText(k, 'jClean; j < nBlocks')).toContain('if (live) {');
    expect(loopText(k, '0; j < jClean')).not.toContain('live');
    expect(generateAttentionForward(plain, t).source).not.toContain('live');
  });

  it('lazyRescale: the rescale of O under a warp vote against the 2^8 threshold, only with the flag', () => {
    const lazy = generateAttentionForward(causal, customTiling('forward', 128, 8, 128, 64, { lazyRescale: true, foldScale: true })).source;
    expect(lazy).toContain('if (__any_sync(0xffffffffu, grow)) {');
    expect(lazy).toContain('const float lazyTau = 8.0f / scoreScale;');
    expect(generateAttentionForward(causal, customTiling('forward', 128, 8, 128, 64, { lazyRescale: true })).source).toContain('const float lazyTau = 8.0f;');
    expect(generateAttentionForward(causal, customTiling('forward', 128, 8, 128, 64)).source).not.toContain('lazyTau');
  });

  it('barriers per K/V tile: joint2 two, joint2-1sync one, split1 two', () => {
    const count = (pipeline: 'joint2' | 'joint2-1sync' | 'split1'): number => {
      const k = generateAttentionForward(plain, customTiling('forward', 128, 8, 128, 64, { pipeline }));
      return loopText(k.source, '0; j < nBlocks').match(/__syncthreads\(\)/g)?.length ?? 0;
    };
    expect(count('joint2')).toBe(2);
    expect(count('joint2-1sync')).toBe(1);
    expect(count('split1')).toBe(2);
  });

  it('backward: 1sync drops the last barrier of a Q step, maskSplit branches on edge, split1 is refused', () => {
    const barriers = (pipeline: 'joint2' | 'joint2-1sync'): number => {
      const src = generateAttentionBackward(causal, customTiling('backward', 128, 8, 32, 128, { pipeline })).source;
      const loop = src.slice(src.indexOf('for (int it = 0; it < steps; ++it)'), src.indexOf('// dK = scale'));
      return loop.match(/__syncthreads\(\)/g)?.length ?? 0;
    };
    expect(barriers('joint2')).toBe(3);
    expect(barriers('joint2-1sync')).toBe(2);
    const split = generateAttentionBackward(causal, customTiling('backward', 128, 8, 32, 128, { maskSplit: true })).source;
    expect(split).toContain('if (edge) {');
    expect(split.match(/const bool inside/g)?.length).toBe(1);
    expect(generateAttentionBackward(causal, customTiling('backward', 128, 8, 32, 128)).source).not.toContain('edge');
    expect(() => customTiling('backward', 128, 8, 32, 128, { pipeline: 'split1' })).toThrow(/split1 pipeline is forward-only/);
    const t = customTiling('backward', 128, 8, 32, 128, { foldScale: true, maskSplit: true });
    expect(generateAttentionBackward(causal, t).source.match(/fmaf\(p\[i\]\[e\], scaleLog2, -lseLog2\[i\]\[e & 1\]\)/g)?.length).toBe(2);
    expect(generateAttentionBackward({ ...causal, bias: 'bool' }, t).source).not.toContain('lseLog2');
  });

  it('backward dqWarpRows 32: two A fragments and accumulators a warp, one K fragment for both; refused where the warps do not split', () => {
    const src = generateAttentionBackward(plain, customTiling('backward', 128, 8, 64, 128, { dqWarpRows: 32 })).source;
    expect(src).toContain('constexpr int kRowGroups = kBlockM / 32;');
    expect(src).toContain('tsf_mma_bf16(dq1[2 * ep + 1], a4, a5, a6, a7, b2, b3);');
    expect(src).toContain('const int row = m0 + rowGroup * 32 + 16 + g + r * 8;');
    const plainDq = generateAttentionBackward(plain, customTiling('backward', 128, 8, 64, 128)).source;
    expect(plainDq).toContain('constexpr int kRowGroups = kBlockM / 16;');
    expect(plainDq).not.toContain('dq1');
    expect(() => customTiling('backward', 128, 8, 16, 128, { dqWarpRows: 32 })).toThrow(/do not split into the 0.5 dQ row groups of 32 rows of blockM 16/);
    expect(() => customTiling('backward', 128, 8, 64, 128, { dqWarpRows: 48 })).toThrow(/dQ warp tiles of 48 rows \(16 or 32\)/);
    expect(() => customTiling('backward', 128, 1, 64, 16, { dqWarpRows: 32 })).toThrow(/1 warps do not split into the 2 dQ row groups/);
  });

  it('backward deferDq: one barrier a Q step fewer, a second dSᵀ buffer, the last product after the loop', () => {
    const loopOf = (src: string): string => src.slice(src.indexOf('for (int it = 0; it < steps; ++it)'), src.indexOf('// dQ of the last step'));
    for (const [pipeline, barriers] of [['joint2-1sync', 1], ['joint2', 2]] as const) {
      const t = customTiling('backward', 128, 8, 64, 128, { pipeline, deferDq: true });
      const k = generateAttentionBackward(causal, t);
      expect(loopOf(k.source).match(/__syncthreads\(\)/g)?.length, pipeline).toBe(barriers);
      expect(k.sharedBytes).toBe(backwardSharedBytes(customTiling('backward', 128, 8, 64, 128, { pipeline })) + 2 * 128 * (64 + 8));
      expect(k.sharedBytes).toBe(backwardSharedBytes(t));
      // The product of step it - 1 reads the buffer step it - 1 wrote; step it writes the other.
      expect(k.source).toContain('const unsigned short* sdSPrev = sdS + ((it - 1) & 1) * kBlockN * kDsStride;');
      expect(k.source).toContain('unsigned short* sdSs = sdS + stage * kBlockN * kDsStride;');
      expect(k.source).toContain('unsigned short* dsRow = sdSs + (warp * 16 + g) * kDsStride');
      const tail = k.source.slice(k.source.indexOf('// dQ of the last step'));
      expect(tail.indexOf('__syncthreads();')).toBeLessThan(tail.indexOf('tsf_red_add2'));
      expect(tail).toContain('const int hqPrev = hk * group + (steps - 1) / mCount, m0Prev = (mStart + (steps - 1) % mCount) * kBlockM;');
    }
    // The loop's layout without the flag: one dSᵀ buffer, lse right after it.
    const one = generateAttentionBackward(plain, customTiling('backward', 128, 8, 64, 128)).source;
    expect(one).toContain('float* sLse = reinterpret_cast<float*>(sdS + kBlockN * (kBlockM + 8));');
    expect(generateAttentionBackward(plain, customTiling('backward', 128, 8, 64, 128, { deferDq: true })).source).toContain('float* sLse = reinterpret_cast<float*>(sdS + 2 * kBlockN * (kBlockM + 8));');
    expect(one).not.toContain('sdSPrev');
  });

  it('backward staggerQ: the loads, the step and the deferred product all take the rotated order', () => {
    const src = generateAttentionBackward(causal, customTiling('backward', 128, 8, 64, 128, { staggerQ: true, deferDq: true })).source;
    expect(src).toContain('const int stepRotation = steps > 0 ? nBlock % steps : 0;');
    expect(src.match(/hk \* group \+ stepOrder\(/g)?.length).toBe(4);
    expect(src).toContain('m0Prev = (mStart + stepOrder((it - 1)) % mCount) * kBlockM;');
    expect(generateAttentionBackward(causal, customTiling('backward', 128, 8, 64, 128)).source).not.toContain('stepOrder');
  });

  it('every tuning entry is accepted and has its own cache key', () => {
    const forward = FORWARD_TUNING.map((e) => tilingTag(tuningTiling('forward', e)));
    const backward = BACKWARD_TUNING.map((e) => tilingTag(tuningTiling('backward', e)));
    expect(new Set(forward).size).toBe(forward.length);
    expect(new Set(backward).size).toBe(backward.length);
  });
});
