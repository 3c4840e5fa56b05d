// Device helpers shared by the generated attention kernels: cp.async 16-byte copies with
// zero-fill, ldmatrix (plain and transposed), mma.sync m16n8k16 with f32 accumulate, and the
// 16-bit float packing/unpacking, all as inline PTX so the kernels need no CUDA header (NVRTC
// compiles them as they are).
//
// Invariant: the text depends only on the input dtype; every helper is `static __device__
// __forceinline__`, so several kernels of one translation unit can each include it once
// (guarded by TSF_ATTENTION_PRIMITIVES).

import type { AttentionBiasDtype, AttentionDtype } from './variant.js';

export function mmaTypeName(dtype: AttentionDtype): 'bf16' | 'f16' {
  return dtype === 'BFloat16' ? 'bf16' : 'f16';
}

const COMMON = `#ifndef TSF_ATTENTION_PRIMITIVES
#define TSF_ATTENTION_PRIMITIVES
#define TSF_D static __device__ __forceinline__
#define TSF_LOG2E 1.4426950408889634f
#define TSF_LN2 0.6931471805599453f
TSF_D float tsf_inf() { return __int_as_float(0x7f800000); }
// 2^x with the MUFU instruction (-inf -> +0), what exp2f becomes under --use_fast_math.
TSF_D float tsf_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}
TSF_D unsigned tsf_smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
// 16 bytes global -> shared; bytes beyond srcBytes (0..16) are zero-filled and not read.
TSF_D void tsf_cp_async16(unsigned dst, const void* src, int srcBytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\\n" ::"r"(dst), "l"(src), "r"(srcBytes));
}
// 4 bytes global -> shared (srcBytes 0 or 4; 0 writes a zero).
TSF_D void tsf_cp_async4(unsigned dst, const void* src, int srcBytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\\n" ::"r"(dst), "l"(src), "r"(srcBytes));
}
// Two adjacent f32 atomic adds in one instruction (sm_90; p 8-byte aligned).
TSF_D void tsf_red_add2(float* p, float a, float b) {
  asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(p), "f"(a), "f"(b) : "memory");
}
TSF_D void tsf_cp_async_commit() { asm volatile("cp.async.commit_group;\\n" ::); }
template <int N>
TSF_D void tsf_cp_async_wait() { asm volatile("cp.async.wait_group %0;\\n" ::"n"(N)); }
TSF_D void tsf_ldmatrix_x4(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}
TSF_D void tsf_ldmatrix_x4_trans(unsigned addr, unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\\n" : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(addr));
}
// One of four words chosen by a run-time index without indexing an array (which could move
// the words to local memory).
TSF_D unsigned tsf_pick(unsigned w0, unsigned w1, unsigned w2, unsigned w3, int c) {
  return c == 0 ? w0 : c == 1 ? w1 : c == 2 ? w2 : w3;
}
#endif
`;

function dtypeHelpers(dtype: AttentionDtype): string {
  const t = mmaTypeName(dtype);
  const toFloat =
    dtype === 'BFloat16'
      ? `TSF_D float tsf_${t}_to_float(unsigned short x) { return __uint_as_float(static_cast<unsigned>(x) << 16); }`
      : `TSF_D float tsf_${t}_to_float(unsigned short x) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x)); return f; }`;
  return `#ifndef TSF_ATTENTION_${t.toUpperCase()}
#define TSF_ATTENTION_${t.toUpperCase()}
// c += a * b for one m16n8k16 tile (a: 4 registers of 2 ${t}, b: 2 registers, c: 4 floats).
TSF_D void tsf_mma_${t}(float* c, unsigned a0, unsigned a1, unsigned a2, unsigned a3, unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.${t}.${t}.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}
// Two floats rounded to nearest even into one register: lo in the low half.
TSF_D unsigned tsf_pack_${t}(float lo, float hi) {
  unsigned d;
  asm("cvt.rn.${t}x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
TSF_D unsigned short tsf_float_to_${t}(float x) { return static_cast<unsigned short>(tsf_pack_${t}(x, 0.0f) & 0xffffu); }
${toFloat}
#endif
`;
}

/** The element type and loader of an additive bias of `biasDtype` (a float). */
export function biasLoader(biasDtype: AttentionBiasDtype): { type: string; load: (expr: string) => string } {
  switch (biasDtype) {
    case 'Float':
      return { type: 'float', load: (e) => `(${e})` };
    case 'BFloat16':
      return { type: 'unsigned short', load: (e) => `tsf_bf16_to_float(${e})` };
    case 'Half':
      return { type: 'unsigned short', load: (e) => `tsf_f16_to_float(${e})` };
    default: {
      const unreachable: never = biasDtype;
      throw new Error(`unknown bias dtype ${String(unreachable)}`);
    }
  }
}

/** Helpers for kernels over `dtype` inputs (plus the other 16-bit type when a bias uses it). */
export function attentionPrimitives(dtype: AttentionDtype, biasDtype?: AttentionBiasDtype): string {
  const extra = biasDtype === 'BFloat16' && dtype !== 'BFloat16' ? dtypeHelpers('BFloat16') : biasDtype === 'Half' && dtype !== 'Half' ? dtypeHelpers('Half') : '';
  return `${COMMON}${dtypeHelpers(dtype)}${extra}`;
}
