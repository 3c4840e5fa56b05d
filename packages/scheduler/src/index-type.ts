// The kernel's index type: 32-bit when every tensor's addressable range fits in int32, else
// 64-bit (`nvfuser_index_t` is `int` or `int64_t`).

export type IndexType = 'Int32' | 'Int';

const INT32_MAX = 2 ** 31 - 1;

/** Largest linear offset reachable in a tensor: Σ (size-1)·|stride|, plus its element count. */
function maxOffset(sizes: readonly number[], strides: readonly number[]): number {
  let off = 0;
  let numel = 1;
  sizes.forEach((s, d) => {
    numel *= s;
    off += Math.max(0, s - 1) * Math.abs(strides[d] ?? 0);
  });
  return Math.max(off, numel);
}

/** Int32 when every tensor (given by sizes and strides) fits, else Int. */
export function chooseIndexType(tensors: readonly { sizes: readonly number[]; strides: readonly number[] }[]): IndexType {
  for (const t of tensors) {
    if (maxOffset(t.sizes, t.strides) > INT32_MAX) return 'Int';
    // extents themselves (and products of merged extents) must fit too
    if (t.sizes.reduce((a, b) => a * b, 1) > INT32_MAX) return 'Int';
  }
  return 'Int32';
}
