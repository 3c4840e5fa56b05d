// The wgmma forward generator (wgmma-forward.ts): opt-in only (no default tiling is wgmma), its
// refusals, the launch description (sm_90a, block, shared memory within the opt-in limit, grid),
// the structure of the source (both MMA forms at the tiling's N, fences / commits / waits paired,
// the proxy fence before the barrier that publishes cp.async data, the descriptor fields and
// k-step offsets the layout tests check) and kernelArch's refusal off compute capability 9.0.
import { describe, expect, it } from 'vitest';
import {
  customTiling,
  FORWARD_TUNING,
  forwardTiling,
  forwardTilingForDevice,
  generateAttentionForward,
  kernelArch,
  kMajorDescriptor,
  MAX_SHARED_BYTES,
  mnMajorDescriptor,
  tilingTag,
  tuningTiling,
  type AttentionVariant,
} from '../src/attention/index.js';
import { wsRegisterSplit } from '../src/attention/wgmma-forward-ws.js';

const variant = (over: Partial<AttentionVariant> = {}): AttentionVariant => ({ dtype: 'BFloat16', headDim: 128, causal: false, bias: 'none', dropout: false, ...over });
const wgmmaEntries = FORWARD_TUNING.filter((e) => e[3].mma === 'wgmma');

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('wgmma attention forward', () => {
  it('is opt-in: no default forward tiling uses it', () => {
    for (const dtype of ['BFloat16', 'Half'] as const) {
      for (const headDim of [8, 64, 100, 128, 256]) {
        for (const causal of [false, true]) expect(forwardTiling(variant({ dtype, headDim, causal })).mma).toBe('mma.sync');
      }
    }
    expect(wgmmaEntries.length).toBeGreaterThanOrEqual(1);
  });

  it('refuses what it does not cover, naming it', () => {
    const t = tuningTiling('forward', wgmmaEntries[0] ?? [8, 128, 128, {}]);
    expect(() => generateAttentionForward(variant({ bias: 'bool' }), t)).toThrow(/mask/);
    expect(() => generateAttentionForward(variant({ bias: 'additive', biasDtype: 'Float' }), t)).toThrow(/bias/);
    expect(() => generateAttentionForward(variant({ dropout: true }), t)).toThrow(/dropout/);
    expect(() => generateAttentionForward(variant({ headDim: 80 }), customTiling('forward', 80, 8, 128, 128, { mma: 'wgmma' }))).toThrow(/head dim 80/);
    expect(() => generateAttentionForward(variant(), customTiling('forward', 128, 8, 256, 32, { mma: 'wgmma' }))).toThrow(/blockM|blockN/);
    expect(() => generateAttentionForward(variant(), customTiling('forward', 128, 8, 128, 64, { mma: 'wgmma', pipeline: 'split1' }))).toThrow(/joint2/);
    expect(() => customTiling('backward', 128, 8, 64, 128, { mma: 'wgmma' })).toThrow(/forward-only/);
    expect(() => generateAttentionForward(variant(), customTiling('forward', 128, 8, 128, 64, { overlapPv: true }))).toThrow(/overlapPv/);
    expect(() => generateAttentionForward(variant(), customTiling('forward', 128, 8, 128, 64, { mma: 'wgmma', warpSpecialized: true }))).toThrow(/without overlapPv/);
  });

  for (const entry of wgmmaEntries) {
    for (const headDim of [64, 128]) {
      for (const causal of [false, true]) {
        const t = tuningTiling('forward', entry, headDim);
        it(`${tilingTag(t)} E ${headDim}${causal ? ' causal' : ''}: launch description and source structure`, () => {
          const k = generateAttentionForward(variant({ headDim, causal, dtype: causal ? 'Half' : 'BFloat16' }), t);
          const m = causal ? 'f16' : 'bf16';
          expect(k.arch).toBe('sm_90a');
          expect(k.name).toContain('wgmma');
          if (!t.warpSpecialized) expect(k.block).toEqual([32 * t.warps, 1, 1]);
          expect(k.sharedBytes).toBe(1024 + 2 * headDim * (t.blockM + 4 * t.blockN) + (t.warpSpecialized ? 64 : 0));
          expect(k.sharedBytes).toBeLessThanOrEqual(MAX_SHARED_BYTES);
          expect(k.grid({ batch: 3, heads: 5, kvHeads: 5, queryLength: 1000, keyLength: 7 })).toEqual(t.heavyFirst ? [15, Math.ceil(1000 / t.blockM), 1] : [Math.ceil(1000 / t.blockM), 5, 3]);
          const src = k.source;
          expect(src).toContain(`wgmma.mma_async.sync.aligned.m64n${t.blockN}k16.f32.${m}.${m}`);
          expect(src).toContain(`wgmma.mma_async.sync.aligned.m64n${headDim}k16.f32.${m}.${m}`);
          // Each MMA batch: fence before, commit and wait after (in the masked and the mask-free loop).
          const loops = t.maskSplit ? 2 : 1;
          if (t.overlapPv) {
            // Tile 0 peeled (S only), then per tile one fence, S and the previous tile's P·V committed, wait<1> for S and wait<0> for P·V; the last P·V after the loops.
            expect(count(src, `tsf_wgmma_ss_${m}_n${t.blockN}(s,`)).toBe(loops + 1);
            expect(count(src, `tsf_wgmma_rs_${m}_n${headDim}(acc,`)).toBe(loops + 1);
            expect(count(src, 'tsf_wgmma_fence();')).toBe(loops + 2);
            expect(count(src, 'tsf_wgmma_commit();')).toBe(2 * loops + 2);
            expect(count(src, 'tsf_wgmma_wait<1>();')).toBe(loops);
            expect(count(src, 'tsf_wgmma_wait<0>();')).toBe(loops + 2);
            expect(src).not.toMatch(/if \(j > 0\) \{\s*\/\/ O \+=/); // no P·V under a branch
            if (t.warpSpecialized) {
              // No CTA-wide barrier but the one after the mbarrier init; the producer warpgroup beyond the consumers.
              expect(count(src, '__syncthreads();')).toBe(1);
              expect(k.block).toEqual([32 * (t.warps + 4), 1, 1]);
              expect(count(src, 'tsf_mbar_init(full') + count(src, 'tsf_mbar_init(empty')).toBe(4);
              expect(src.includes('tsf_setmaxnreg_inc<')).toBe(t.warps === 8);
              if (t.warps === 8) {
                // The producer's dec and the consumers' inc fit the block's launch allocation
                // (384 threads x 168 registers): an inc past it waits forever (the H200 hang).
                const dec = Number(/tsf_setmaxnreg_dec<(\d+)>/.exec(src)?.[1]);
                const inc = Number(/tsf_setmaxnreg_inc<(\d+)>/.exec(src)?.[1]);
                expect(128 * dec + 256 * inc).toBeLessThanOrEqual(384 * 168);
                expect(dec % 8 === 0 && inc % 8 === 0 && dec >= 24 && inc <= 256).toBe(true);
                expect(wsRegisterSplit(t)).toEqual({ launch: 168, consumer: t.blockN === 128 ? 232 : 216, producer: t.blockN === 128 ? 40 : 72 });
              }
              expect(count(src, 'tsf_mbar_arrive(emptyK')).toBe(loops + 1);
              expect(count(src, 'tsf_mbar_arrive(emptyV')).toBe(loops);
            } else {
              expect(count(src, 'tsf_fence_proxy_async();')).toBe(loops + 2);
              expect(count(src, '__syncthreads();')).toBe(loops + 3); // tile 0's, a tile's, the last P·V's, the sign fold's
            }
          } else {
            expect(count(src, `tsf_wgmma_ss_${m}_n${t.blockN}(s,`)).toBe(loops);
            expect(count(src, `tsf_wgmma_rs_${m}_n${headDim}(acc,`)).toBe(loops);
            expect(count(src, 'tsf_wgmma_fence();')).toBe(2 * loops);
            expect(count(src, 'tsf_wgmma_commit();')).toBe(2 * loops);
            expect(count(src, 'tsf_wgmma_wait<0>();')).toBe(2 * loops);
            expect(count(src, 'tsf_fence_proxy_async();\n      __syncthreads();')).toBe(loops);
          }
          // The descriptor constants and k-step offsets are the layout's (attention-wgmma-layout.test.ts).
          const kd = kMajorDescriptor(0, t.blockM, 0, 0);
          const vd = mnMajorDescriptor(0, t.blockN, 0);
          expect(src).toContain(`constexpr unsigned kKMajorLbo = ${kd.leadingByteOffset}, kKMajorSbo = ${kd.strideByteOffset};`);
          expect(src).toContain(`constexpr unsigned kVLbo = ${vd.leadingByteOffset}, kVSbo = ${vd.strideByteOffset};`);
          const qSteps = Array.from({ length: headDim / 16 }, (_, kk) => `${kMajorDescriptor(0, t.blockM, 0, kk).start >> 4}u`).join(', ');
          const vSteps = Array.from({ length: t.blockN / 16 }, (_, kk) => `${mnMajorDescriptor(0, t.blockN, kk).start >> 4}u`).join(', ');
          expect(src).toContain(`constexpr unsigned kQStep[] = {${qSteps}};`);
          expect(src).toContain(`constexpr unsigned kVStep[] = {${vSteps}};`);
          // The warpgroup skip only where the tiling asks for it and the variant is causal.
          expect(src.includes('n0 <= m0 + wgRow + 63')).toBe(causal && t.warpSkip && !t.overlapPv);
        });
      }
    }
  }

  it('forwardTilingForDevice: the wgmma tiling only on 9.0 for BFloat16 E 128 without bias / mask / dropout', () => {
    expect(tilingTag(forwardTilingForDevice(variant(), [9, 0]))).toBe('8w 128x128 msplit fold wskip heavy wgmma overlap');
    expect(tilingTag(forwardTilingForDevice(variant({ causal: true }), [9, 0]))).toContain('wgmma');
    for (const [v, cc] of [
      [variant(), [10, 0]],
      [variant(), [8, 0]],
      [variant({ dtype: 'Half' }), [9, 0]],
      [variant({ headDim: 64 }), [9, 0]],
      [variant({ bias: 'bool' }), [9, 0]],
      [variant({ dropout: true }), [9, 0]],
    ] as const) {
      expect(forwardTilingForDevice(v, cc)).toEqual(forwardTiling(v));
    }
  });

  it('kernelArch: sm_90a on compute capability 9.0 only, with the reason elsewhere; other kernels the device arch', () => {
    const t = tuningTiling('forward', wgmmaEntries[0] ?? [8, 128, 128, {}]);
    const k = generateAttentionForward(variant(), t);
    expect(kernelArch(k, { major: 9, minor: 0 }, 'sm_90')).toBe('sm_90a');
    expect(() => kernelArch(k, { major: 8, minor: 0 }, 'sm_80')).toThrow(/needs sm_90a.*9\.0.*8\.0/);
    expect(() => kernelArch(k, { major: 10, minor: 0 }, 'sm_100')).toThrow(/10\.0/);
    expect(kernelArch(generateAttentionForward(variant()), { major: 8, minor: 9 }, 'sm_89')).toBe('sm_89');
  });
});
