// Device helpers of the wgmma attention forward as inline PTX (sm_90a only): the two forms of
// `wgmma.mma_async.m64nNk16` with f32 accumulators — A and B from shared memory through
// descriptors (S = Q·Kᵀ), and A from registers with B from shared memory, transposed (O += P·V)
// — and the fence / commit / wait instructions around them, the accumulator register fence
// (so the compiler does not read an accumulator between the asynchronous MMA and its wait),
// and the generic-to-async proxy fence that makes cp.async's shared-memory writes visible to
// wgmma.
//
// Invariant: the accumulator of a thread is float d[N / 8][4], d[i][e] the element of row
// g + 8·(e / 2) and column 8·i + 2·(lane mod 4) + (e mod 2) of its warp's 16 rows — the
// m64nNk16 D fragment (PTX ISA figure "WGMMA .m64nNk16 register fragment layout for
// accumulator"), the same as mma.sync m16n8k16's C tiles side by side; the text depends only
// on the dtype and the N values asked for (guarded per helper, so kernels can share a unit).

import type { AttentionDtype } from './variant.js';
import { mmaTypeName } from './primitives.js';

const SYNC_HELPERS = `#ifndef TSF_WGMMA_SYNC
#define TSF_WGMMA_SYNC
TSF_D void tsf_wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory"); }
TSF_D void tsf_wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory"); }
template <int N>
TSF_D void tsf_wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\\n" ::"n"(N) : "memory"); }
// cp.async wrote shared memory through the generic proxy; wgmma reads it through the async proxy.
TSF_D void tsf_fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\\n" ::: "memory"); }
// A 128B-swizzle matrix descriptor (wgmma-layout.ts encodeDescriptor): start, LBO, SBO >> 4, base offset 0.
TSF_D unsigned long long tsf_desc(unsigned addr, unsigned lbo, unsigned sbo) {
  return static_cast<unsigned long long>((addr & 0x3ffffu) >> 4) | (static_cast<unsigned long long>(lbo >> 4) << 16) |
         (static_cast<unsigned long long>(sbo >> 4) << 32) | (1ull << 62);
}
// Orders the compiler's uses of accumulator registers with the wgmma wait (CUTLASS's warpgroup_fence_operand).
template <int kTiles>
TSF_D void tsf_fence_acc(float (&d)[kTiles][4]) {
#pragma unroll
  for (int i = 0; i < kTiles; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(d[i][e])::"memory");
  }
}
#endif
`;

function accOperands(n: number): { list: string; constraints: string } {
  const count = n / 2;
  const list = Array.from({ length: count }, (_, i) => `%${i}`).join(', ');
  const constraints = Array.from({ length: count }, (_, i) => `"+f"(d[${i >> 2}][${i & 3}])`).join(', ');
  return { list, constraints };
}

/** d (+)= A·B with A and B from shared memory (both K-major); `scaleD` 0 overwrites d. */
function ssHelper(t: string, n: number): string {
  const { list, constraints } = accOperands(n);
  const c = n / 2;
  return `#ifndef TSF_WGMMA_SS_${t.toUpperCase()}_N${n}
#define TSF_WGMMA_SS_${t.toUpperCase()}_N${n}
TSF_D void tsf_wgmma_ss_${t}_n${n}(float (&d)[${n / 8}][4], unsigned long long descA, unsigned long long descB, int scaleD) {
  asm volatile(
      "{\\n.reg .pred p;\\nsetp.ne.b32 p, %${c + 2}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n${n}k16.f32.${t}.${t} {${list}}, %${c}, %${c + 1}, p, 1, 1, 0, 0;\\n}\\n"
      : ${constraints}
      : "l"(descA), "l"(descB), "r"(scaleD));
}
#endif
`;
}

/** d += A·B with A from registers (the m64nNk16 A fragment) and B from shared memory, MN-major (transpose bit set). */
function rsHelper(t: string, n: number): string {
  const { list, constraints } = accOperands(n);
  const c = n / 2;
  return `#ifndef TSF_WGMMA_RS_${t.toUpperCase()}_N${n}
#define TSF_WGMMA_RS_${t.toUpperCase()}_N${n}
TSF_D void tsf_wgmma_rs_${t}_n${n}(float (&d)[${n / 8}][4], unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned long long descB) {
  asm volatile(
      "{\\n.reg .pred p;\\nsetp.ne.b32 p, %${c + 5}, 0;\\n"
      "wgmma.mma_async.sync.aligned.m64n${n}k16.f32.${t}.${t} {${list}}, {%${c}, %${c + 1}, %${c + 2}, %${c + 3}}, %${c + 4}, p, 1, 1, 1;\\n}\\n"
      : ${constraints}
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "l"(descB), "r"(1));
}
#endif
`;
}

/** mbarriers (the warp-specialized forward's full / empty stages), setmaxnreg and a named barrier. */
export const MBARRIER_HELPERS = `#ifndef TSF_WGMMA_MBARRIER
#define TSF_WGMMA_MBARRIER
TSF_D void tsf_mbar_init(unsigned bar, unsigned count) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\\n" ::"r"(bar), "r"(count) : "memory"); }
TSF_D void tsf_mbar_arrive(unsigned bar) {
  asm volatile("{\\n.reg .b64 state;\\nmbarrier.arrive.shared::cta.b64 state, [%0];\\n}\\n" ::"r"(bar) : "memory");
}
// Waits until the phase of parity \`parity\` has completed (a fresh barrier: parity 1 passes at once).
TSF_D void tsf_mbar_wait(unsigned bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\\n.reg .pred p;\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\nselp.u32 %0, 1, 0, p;\\n}\\n" : "=r"(done) : "r"(bar), "r"(parity) : "memory");
  } while (done == 0);
}
template <int N>
TSF_D void tsf_setmaxnreg_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\\n" ::"n"(N)); }
template <int N>
TSF_D void tsf_setmaxnreg_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\\n" ::"n"(N)); }
// Barrier 1 over the consumer threads only (barrier 0 is __syncthreads).
TSF_D void tsf_bar_consumers(int threads) { asm volatile("bar.sync 1, %0;\\n" ::"r"(threads) : "memory"); }
#endif
`;

/** The helpers for `dtype` with the SS form at N = `scoresN` and the RS form at N = `outputN`. */
export function wgmmaPrimitives(dtype: AttentionDtype, scoresN: number, outputN: number): string {
  const t = mmaTypeName(dtype);
  return `${SYNC_HELPERS}${ssHelper(t, scoresN)}${rsHelper(t, outputN)}`;
}

/** The PTX shape text of the two MMAs (for tests and headers). */
export function wgmmaShapes(dtype: AttentionDtype, scoresN: number, outputN: number): { scores: string; output: string } {
  const t = mmaTypeName(dtype);
  return { scores: `wgmma.mma_async.sync.aligned.m64n${scoresN}k16.f32.${t}.${t}`, output: `wgmma.mma_async.sync.aligned.m64n${outputN}k16.f32.${t}.${t}` };
}
