// Cache-hint variants of a compiled kernel (GPU tuning experiments): the runtime library's
// 16-byte global vector load (loadGlobalToLocal) and store (loadLocalToGlobal) helpers rewritten
// to inline PTX with a cache operator, so one kernel can be timed under several hints without a
// codegen change. Used by tsfuser-pointwise-variants and tsfuser-resize-variants.

const PLAIN = '*reinterpret_cast<V*>(to) = *reinterpret_cast<const V*>(from);';
// An op with `.L2::cache_hint` takes a cache policy operand: an L2 evict_last policy made with
// createpolicy, as Triton emits for Inductor's evict_last loads.
const LOAD16 = (op: string): string => {
  const policy = op.includes('L2::cache_hint');
  const asm = policy ? `{ .reg .b64 pol; createpolicy.fractional.L2::evict_last.b64 pol, 1.0; ${op}.v4.u32 {%0,%1,%2,%3}, [%4], pol; }` : `${op}.v4.u32 {%0,%1,%2,%3}, [%4];`;
  return `if constexpr (sizeof(T) * N == 16) { NvfU32x4& v = *reinterpret_cast<NvfU32x4*>(to); asm volatile("${asm}" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(from)); } else { ${PLAIN} }`;
};
const STORE16 = (op: string): string => `if constexpr (sizeof(T) * N == 16) { const NvfU32x4& v = *reinterpret_cast<const NvfU32x4*>(from); asm volatile("${op}.v4.u32 [%0], {%1,%2,%3,%4};" :: "l"(to), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory"); } else { ${PLAIN} }`;
/** Rewrites the vector load (first occurrence) and store (second) helpers of the runtime library. */
export function patchCacheHints(source: string, load: string | null, store: string | null): string {
  const first = source.indexOf(PLAIN);
  const second = source.indexOf(PLAIN, first + PLAIN.length);
  if (first < 0 || second < 0) throw new Error('runtime library vector helpers not found');
  let out = source.slice(0, first) + (load === null ? PLAIN : LOAD16(load)) + source.slice(first + PLAIN.length, second);
  out += (store === null ? PLAIN : STORE16(store)) + source.slice(second + PLAIN.length);
  return out;
}
export const CACHE_VARIANTS: { name: string; load: string | null; store: string | null }[] = [
  { name: 'plain ld/st', load: null, store: null },
  { name: 'st.global.cs', load: null, store: 'st.global.cs' },
  { name: 'ld.global.cs', load: 'ld.global.cs', store: null },
  { name: 'ld.cs + st.cs', load: 'ld.global.cs', store: 'st.global.cs' },
  { name: 'ld.nc.L1::no_allocate + st.cs', load: 'ld.global.nc.L1::no_allocate', store: 'st.global.cs' },
  // What Inductor marks its masked (cat / pad) loads with (eviction_policy='evict_last').
  { name: 'ld.global.L1::evict_last', load: 'ld.global.L1::evict_last', store: null },
  { name: 'ld.global.nc', load: 'ld.global.nc', store: null },
  // Triton's form of it: L1 evict_last plus an L2 evict_last cache policy.
  { name: 'ld.global.L1::evict_last.L2::cache_hint (L2 evict_last policy)', load: 'ld.global.L1::evict_last.L2::cache_hint', store: null },
];
