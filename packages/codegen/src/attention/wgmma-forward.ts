// Generator of the wgmma (Hopper warpgroup MMA) flash-attention forward, the opt-in variant of
// the forward (tiling.mma = 'wgmma'; FlashAttention-3's MMAs without its warp specialization):
// one CTA per (query tile of blockM = 64 · warpgroups rows, head, batch); Q stays in shared
// memory, K/V tiles of blockN rows stream through two cp.async stages in the 128B-swizzled
// layout of wgmma-layout.ts; each warpgroup of 4 warps owns 64 query rows and computes
// S = Q·Kᵀ with wgmma m64n{blockN}k16 (A and B through descriptors) and O += P·V with
// wgmma m64n{E}k16 (P from the S registers as the A fragment, V through a descriptor with the
// transpose bit), both in f32, and keeps its rows' running max and sum in registers (online
// softmax, exp2 with the scale folded into one FFMA). Writes O in the input dtype and the
// natural-log logsumexp (Float [N, H, L]), as forward.ts. The K/V loop's schedules (serial, or
// P·V overlapping the softmax) are wgmma-forward-loop.ts; the warp-specialized one (a producer
// warpgroup, mbarrier stages) wgmma-forward-ws.ts.
//
// Scope: BFloat16 / Half, E 64 or 128, no bias, mask or dropout (those keep the mma.sync
// forward), causal (top-left) or not, any L and S; compiled for sm_90a only (kernel.arch).
// Invariant: the same function as forward.ts: query row l attends key s iff s < S and (not
// causal or s ≤ l); a row that attends nothing gets O = 0 and logsumexp −inf. Every thread of
// the CTA waits for each cp.async group and passes each barrier; the MMAs of a warpgroup are
// skipped only under a condition uniform over its 128 threads (wgmma is warpgroup-collective).

import { CodegenError } from '../errors.js';
import { FORWARD_PARAMETERS } from './forward.js';
import { ceilDiv, type AttentionKernel } from './kernel.js';
import { mmaTypeName } from './primitives.js';
import { attentionKernelSource } from './shared-code.js';
import { checkVariant, tilingTag, variantTag, type AttentionTiling, type AttentionVariant } from './variant.js';
import { descriptorConstants, kMajorDescriptor, mnMajorDescriptor, SWIZZLE_ATOM_BYTES, tileBytes } from './wgmma-layout.js';
import { wgmmaLoops, wgmmaPrologueLoads } from './wgmma-forward-loop.js';
import { WS_FOLD_SIGN, wsBarriers, wsConsumerLoops, wsProducer } from './wgmma-forward-ws.js';
import { MBARRIER_HELPERS } from './wgmma-primitives.js';
import { wgmmaPrimitives } from './wgmma-primitives.js';

/** The architecture wgmma needs (the `a` features of compute capability 9.0). */
export const WGMMA_ARCH = 'sm_90a';

const POINTER_TYPES: Readonly<Record<string, string>> = {
  q: 'const unsigned short* __restrict__',
  k: 'const unsigned short* __restrict__',
  v: 'const unsigned short* __restrict__',
  o: 'unsigned short* __restrict__',
  lse: 'float* __restrict__',
  bias: 'const void* __restrict__',
};

/** Why `variant` / `t` cannot be the wgmma forward, or undefined when they can. */
export function wgmmaRefusal(variant: AttentionVariant, t: AttentionTiling): string | undefined {
  if (variant.headDim !== 64 && variant.headDim !== 128) return `head dim ${variant.headDim} (64 or 128)`;
  if (variant.bias !== 'none') return `a ${variant.bias === 'bool' ? 'mask' : 'bias'} (the mma.sync forward takes it)`;
  if (variant.dropout) return 'dropout (the mma.sync forward takes it)';
  if (t.warps !== 4 && t.warps !== 8) return `${t.warps} warps (1 or 2 warpgroups: 4 or 8)`;
  if (t.blockM !== 16 * t.warps) return `blockM ${t.blockM} (64 rows a warpgroup: ${16 * t.warps})`;
  if (t.blockN !== 64 && t.blockN !== 128) return `blockN ${t.blockN} (64 or 128)`;
  if (t.warpSpecialized && !t.overlapPv) return 'warpSpecialized without overlapPv (its consumers run the overlapped schedule)';
  if (t.pipeline !== 'joint2' || t.qInRegisters || t.lazyRescale) return 'flags of the mma.sync forward (pipeline other than joint2, qInRegisters, lazyRescale)';
  return undefined;
}

/** Dynamic shared memory: 1024 bytes of alignment slack, Q, two stages of K and V (and 8 mbarriers when warp-specialized). */
export function wgmmaForwardSharedBytes(t: AttentionTiling, headDim = t.headDimPadded): number {
  const e = Math.ceil(headDim / 64) * 64;
  return SWIZZLE_ATOM_BYTES + tileBytes(t.blockM, e) + 4 * tileBytes(t.blockN, e) + (t.warpSpecialized ? 64 : 0);
}

export function wgmmaForwardKernelName(variant: AttentionVariant): string {
  return `tsfuser_attention_fwd_wgmma_${variantTag(variant)}`;
}

/** Loader of a rows × cols tile into the swizzled panels (cp.async, zero rows from validRows on); the layout is wgmma-layout.ts tileOffset. */
const SWIZZLED_LOADER = `#ifndef TSF_WGMMA_LOADER
#define TSF_WGMMA_LOADER
// tid: the thread's index among the kThreads loading threads.
template <int kRows, int kCols, int kThreads>
TSF_D void tsf_load_swizzled(unsigned base, const unsigned short* g, long long rowStride, int validRows, int tid) {
  constexpr int kChunks = kCols / 8;
  constexpr int kRowStep = kThreads / kChunks;
  static_assert(kThreads % kChunks == 0 && kRowStep % 8 == 0 && kRows % kRowStep == 0, "swizzled tile loader shape");
  const int c = tid % kChunks, r0 = tid / kChunks;
  // Each thread's rows are kRowStep (a multiple of 8) apart: one swizzled chunk for all of them.
  const unsigned dst = base + (c >> 3) * (kRows * 128) + r0 * 128 + (((c & 7) ^ (r0 & 7)) << 4);
  const unsigned short* src = g + r0 * rowStride + c * 8;
  const long long step = kRowStep * rowStride;
#pragma unroll
  for (int i = 0; i < kRows / kRowStep; ++i) {
    const int bytes = r0 + i * kRowStep < validRows ? 16 : 0;
    tsf_cp_async16(dst + i * kRowStep * 128, bytes > 0 ? src : g, bytes);
    src += step;
  }
}
#endif
`;

/** Byte offsets (from the operand's base) of the descriptors of every k-step, as a C initializer. */
function offsets(list: readonly number[]): string {
  return list.map((o) => `${o >> 4}u`).join(', ');
}

/** With a scale ≤ 0: Q negated (or zeroed, with scale 0) in shared memory once, so the max over raw scores is the max of the scaled ones. */
const FOLD_SIGN = `  if (!(scoreScale > 0.0f)) {
    tsf_cp_async_wait<0>();
    __syncthreads();
    const bool negative = scoreScale < 0.0f;
    unsigned short* q16 = reinterpret_cast<unsigned short*>(smemRaw + (sQ - tsf_smem(smemRaw)));
    for (int i = threadIdx.x; i < kBlockM * kHeadDim; i += kThreads) q16[i] = negative ? static_cast<unsigned short>(q16[i] ^ 0x8000u) : static_cast<unsigned short>(0);
    scoreScale = negative ? -scoreScale : 1.0f;
  }`;

export function wgmmaForwardBody(variant: AttentionVariant, t: AttentionTiling): string {
  const m = mmaTypeName(variant.dtype);
  const e = variant.headDim;
  // Descriptor offsets of each k-step from the warpgroup's Q rows, a K stage and a V stage.
  const qSteps = Array.from({ length: e / 16 }, (_, kk) => kMajorDescriptor(0, t.blockM, 0, kk).start);
  const kSteps = Array.from({ length: e / 16 }, (_, kk) => kMajorDescriptor(0, t.blockN, 0, kk).start);
  const vSteps = Array.from({ length: t.blockN / 16 }, (_, kk) => mnMajorDescriptor(0, t.blockN, kk).start);
  const block = t.heavyFirst
    ? `  // Longest query tiles first over the whole grid: grid (N·H, query tiles), y reversed.
  const int mBlock = static_cast<int>(gridDim.y - 1 - blockIdx.y);
  const int h = static_cast<int>(blockIdx.x % heads), n = static_cast<int>(blockIdx.x / heads);`
    : `  // Causal: the last query tiles have the most keys, so they start first.
  const int mBlock = kCausal ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
  const int h = blockIdx.y, n = blockIdx.z;`;
  return `  extern __shared__ __align__(1024) unsigned char smemRaw[];
  // Swizzle atoms need 1024-byte aligned panels: the window's start rounded up (sharedBytes has the slack).
  constexpr unsigned kQBytes = kBlockM * kHeadDim * 2, kKVBytes = kBlockN * kHeadDim * 2;
  const unsigned sQ = (tsf_smem(smemRaw) + 1023u) & ~1023u;
  const unsigned sK = sQ + kQBytes;
  const unsigned sV = sK + 2 * kKVBytes;
${descriptorConstants(t.blockM, t.blockN)}
  constexpr unsigned kQStep[] = {${offsets(qSteps)}};
  constexpr unsigned kKStep[] = {${offsets(kSteps)}};
  constexpr unsigned kVStep[] = {${offsets(vSteps)}};
${block}
  const int hk = h / (heads / kvHeads);
  const int m0 = mBlock * kBlockM;
  const int wg = threadIdx.x >> 7, warp = (threadIdx.x >> 5) & 3, lane = threadIdx.x & 31;
  const int g = lane >> 2, tq = lane & 3;
  // This warpgroup's 64 query rows start at wgRow; the thread's rows are row0 and row0 + 8.
  const int wgRow = wg * 64;
  const int row0 = m0 + wgRow + warp * 16 + g;
  (void)tq;
  const unsigned short* qTile = q + n * qStrideN + h * qStrideH + m0 * qStrideL;
  const unsigned short* kHead = k + n * kStrideN + hk * kStrideH;
  const unsigned short* vHead = v + n * vStrideN + hk * vStrideH;
  int nBlocks = (keyLength + kBlockN - 1) / kBlockN;
  if (kCausal) nBlocks = min(nBlocks, (min(m0 + kBlockM, queryLength) - 1) / kBlockN + 1);
  float scoreScale = scaleLog2;

${t.warpSpecialized ? `${wsBarriers(t)}
${wsProducer(t)}
${WS_FOLD_SIGN}` : `${wgmmaPrologueLoads(t)}
${FOLD_SIGN}`}

  constexpr int kOTiles = kHeadDim / 8;
  constexpr int kSTiles = kBlockN / 8;
  float acc[kOTiles][4];
#pragma unroll
  for (int i = 0; i < kOTiles; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0.0f;
  float rowMax[2] = {-tsf_inf(), -tsf_inf()}, rowSum[2] = {0.0f, 0.0f};
  const unsigned long long dQ = tsf_desc(sQ + wgRow * 128, kKMajorLbo, kKMajorSbo);

${t.warpSpecialized ? wsConsumerLoops(variant, t) : wgmmaLoops(variant, t)}
  tsf_cp_async_wait<0>();  // S = 0: the Q tile's copies are still outstanding.

  // Epilogue: the quad's partial sums, O / sum (0 for a row with no key), logsumexp.
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = rowSum[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    const int row = row0 + r * 8;
    const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
    if (row < queryLength) {
      unsigned short* oRow = o + n * oStrideN + h * oStrideH + row * oStrideL;
#pragma unroll
      for (int i = 0; i < kOTiles; ++i) {
        *reinterpret_cast<unsigned*>(oRow + i * 8 + 2 * tq) = tsf_pack_${m}(acc[i][2 * r] * inv, acc[i][2 * r + 1] * inv);
      }
      if (tq == 0) lse[(static_cast<long long>(n) * heads + h) * queryLength + row] = sum > 0.0f ? (rowMax[r] * scoreScale + log2f(sum)) * TSF_LN2 : -tsf_inf();
    }
  }`;
}

/** The wgmma forward kernel of `variant` with tiling `t` (t.mma 'wgmma'); a CodegenError naming what it does not cover. */
export function generateWgmmaForward(variant: AttentionVariant, t: AttentionTiling): AttentionKernel {
  checkVariant(variant);
  const refusal = wgmmaRefusal(variant, t);
  if (refusal !== undefined) throw new CodegenError(`attention wgmma forward: not for ${refusal}`);
  const name = wgmmaForwardKernelName(variant);
  const helpers = `${wgmmaPrimitives(variant.dtype, t.blockN, variant.headDim)}${t.warpSpecialized ? MBARRIER_HELPERS : ''}${SWIZZLED_LOADER}`;
  // Warp-specialized: the block has a fourth (or second) warpgroup, the producer, beyond the tiling's consumer warps.
  const blockTiling = t.warpSpecialized ? { ...t, warps: t.warps + 4 } : t;
  const source = attentionKernelSource(variant, blockTiling, name, `tsfuser attention forward (wgmma, sm_90a): ${name} (${tilingTag(t)})`, { parameters: FORWARD_PARAMETERS, pointerTypes: POINTER_TYPES }, wgmmaForwardBody(variant, t), helpers);
  return {
    name,
    source,
    parameters: FORWARD_PARAMETERS,
    block: [32 * blockTiling.warps, 1, 1],
    sharedBytes: wgmmaForwardSharedBytes(t, variant.headDim),
    tiling: t,
    arch: WGMMA_ARCH,
    grid: (p) => {
      const tiles = ceilDiv(p.queryLength, t.blockM);
      if (!t.heavyFirst) return [tiles, p.heads, p.batch];
      if (tiles > 65535) throw new CodegenError(`attention forward: ${tiles} query tiles exceed the heavy-first grid's 65535 (L ${p.queryLength})`);
      return [p.heads * p.batch, tiles, 1];
    },
  };
}
