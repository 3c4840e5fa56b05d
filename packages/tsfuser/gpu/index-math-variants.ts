// Index-math variants of a compiled kernel (GPU tuning experiment, issue 38): how much of a
// kernel's time its integer divisions by run-time extents cost. A generated kernel names each
// extent it uses once, `const nvfuser_index_t iN = Tk.logical_size[d];`, and divides flat indices
// by them (RoPE's 1-D kernel: `idx / i3`, `/ i2`, `% i1`, each a ~15-instruction sequence with
// three quarter-rate conversions, since the divisor is only known at run time). Two rewrites of
// those declarations, without a codegen change:
// - `fast division`: each extent becomes an `NvfDivisor` whose `/` and `%` are PyTorch's
//   IntDivider (multiply-high by a magic number, add, shift), the magic numbers read from a
//   `__constant__` array the compiler cannot fold (as kernel arguments would be read), i.e. what
//   host-computed divisors passed with the launch would cost;
// - `constant extents`: each extent a literal (the bench's sizes: powers of two become shifts),
//   the bound of what cheaper index math can give (what torch.compile's shape-specialized Triton
//   kernels do).
// Used by tsfuser-resize-variants; outputs are bit-compared with the unpatched kernel there.

/** One extent declaration of a kernel: `const nvfuser_index_t <name> = <param>.logical_size[<dim>];`. */
export interface ExtentDeclaration {
  name: string;
  param: string;
  dim: number;
  text: string;
}

const DECLARATION = /const nvfuser_index_t (i\d+) = (T\d+)\.logical_size\[(\d+)\];/g;

export function extentDeclarations(source: string): ExtentDeclaration[] {
  return [...source.matchAll(DECLARATION)].map((m) => ({ name: m[1] as string, param: m[2] as string, dim: Number(m[3]), text: m[0] }));
}

/** The kernel's parameter names in signature order (`Tensor<…> T0, …`), the argument slots' order. */
export function kernelParamNames(source: string): string[] {
  const start = source.indexOf('__global__');
  const open = source.indexOf('(', source.indexOf('nvfuser_', start));
  const close = source.indexOf(')', open);
  if (start < 0 || open < 0 || close < 0) throw new Error('index-math variants: kernel signature not found');
  let params = source.slice(open + 1, close);
  while (/<[^<>]*>/.test(params)) params = params.replace(/<[^<>]*>/g, ''); // template arguments hold commas
  return params
    .split(',')
    .map((p) => p.trim().split(/\s+/).pop() ?? '')
    .filter((n) => n.length > 0);
}

/**
 * PyTorch's IntDivider magic for 32-bit unsigned division by d (1 ≤ d < 2^31): with s = ⌈log2 d⌉
 * and m = ⌊2^32 (2^s − d) / d⌋ + 1, n / d = (umulhi(n, m) + n) >> s for every n < 2^31.
 */
export function divisorMagic(d: number): { magic: number; shift: number } {
  if (!Number.isInteger(d) || d < 1 || d >= 2 ** 31) throw new Error(`index-math variants: divisor ${d} is not in [1, 2^31)`);
  let shift = 0;
  while (2 ** shift < d) shift += 1;
  const magic = Number(((1n << 32n) * ((1n << BigInt(shift)) - BigInt(d))) / BigInt(d) + 1n);
  return { magic, shift };
}

/** `n / d` as the device helper computes it (for tests of divisorMagic). */
export function fastDivide(n: number, m: { magic: number; shift: number }): number {
  const hi = Number((BigInt(n) * BigInt(m.magic)) >> 32n);
  return Math.floor((hi + n) / 2 ** m.shift);
}

// `/` and `%` of int and unsigned dividends only (index math of an Int32 kernel, non-negative):
// a long long dividend falls back to the built-in division through the conversion to int.
const FAST_DIV_HELPERS = `
struct NvfDivisor {
  nvfuser_index_t d;
  unsigned magic;
  unsigned shift;
  __device__ __forceinline__ operator nvfuser_index_t() const { return d; }
};
__device__ __forceinline__ unsigned nvf_fast_div(unsigned n, const NvfDivisor& f) { return (__umulhi(n, f.magic) + n) >> f.shift; }
__device__ __forceinline__ int operator/(int n, const NvfDivisor& f) { return static_cast<int>(nvf_fast_div(static_cast<unsigned>(n), f)); }
__device__ __forceinline__ unsigned operator/(unsigned n, const NvfDivisor& f) { return nvf_fast_div(n, f); }
__device__ __forceinline__ int operator%(int n, const NvfDivisor& f) { return n - (n / f) * f.d; }
__device__ __forceinline__ unsigned operator%(unsigned n, const NvfDivisor& f) { return n - (n / f) * static_cast<unsigned>(f.d); }
`;

/** `size(param, dim)`: the extent's value at the sizes the kernel will be launched with. */
export type ExtentValue = (param: string, dim: number) => number;

function kernelStart(source: string): number {
  const at = source.lastIndexOf('extern "C" __global__');
  if (at < 0) throw new Error('index-math variants: kernel not found');
  return at;
}

/** Every extent a literal of its value at these sizes. */
export function patchConstantExtents(source: string, size: ExtentValue): string {
  let out = source;
  for (const e of extentDeclarations(source)) out = out.replace(e.text, `const nvfuser_index_t ${e.name} = ${size(e.param, e.dim)};`);
  return out;
}

/** Every extent an NvfDivisor with IntDivider magic from a `__constant__` array (see the header). */
export function patchFastDivision(source: string, size: ExtentValue): string {
  const decls = extentDeclarations(source);
  if (decls.length === 0) throw new Error('index-math variants: the kernel declares no extents');
  const magics = decls.map((e) => divisorMagic(Math.max(1, size(e.param, e.dim))));
  const table = `__constant__ unsigned nvf_divisor_magic[${2 * decls.length}] = {${magics.map((m) => `${m.magic}u, ${m.shift}u`).join(', ')}};\n`;
  const at = kernelStart(source);
  let out = source.slice(0, at) + FAST_DIV_HELPERS + table + source.slice(at);
  decls.forEach((e, k) => {
    out = out.replace(e.text, `const NvfDivisor ${e.name} = {${e.param}.logical_size[${e.dim}], nvf_divisor_magic[${2 * k}], nvf_divisor_magic[${2 * k + 1}]};`);
  });
  return out;
}
