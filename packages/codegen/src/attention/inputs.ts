// Checks of the tensors an attention call hands to the generated kernels, before any launch:
// Q [N, H, L, E], K/V [N, Hkv, S, E] with H a multiple of Hkv, the last dim contiguous and
// every row 16-byte aligned (strides in elements multiples of 8, data pointers 16-byte
// aligned: the kernels copy rows with 16-byte cp.async), and an optional bias / mask
// [N or 1, H or 1, L, S] (size-1 dims broadcast with stride 0).
//
// Invariant: a problem that passes satisfies every assumption the kernels make about their
// arguments; anything else gets one CodegenError naming the tensor, the dim and the value.

import { CodegenError } from '../errors.js';
import type { AttentionProblem } from './kernel.js';
import type { AttentionVariant } from './variant.js';

export interface AttentionTensorInfo {
  sizes: readonly number[];
  /** In elements. */
  strides: readonly number[];
  /** When known: the device address (checked for 16-byte alignment). */
  dataPtr?: bigint;
}

export interface AttentionInputs {
  query: AttentionTensorInfo;
  key: AttentionTensorInfo;
  value: AttentionTensorInfo;
  bias?: AttentionTensorInfo;
  dropoutProbability?: number;
}

const INT32_MAX = 2 ** 31 - 1;

function fail(message: string): never {
  throw new CodegenError(`attention: ${message}`);
}

function checkRowTensor(name: string, t: AttentionTensorInfo): void {
  if (t.sizes.length !== 4 || t.strides.length !== 4) fail(`${name} must have rank 4 ([N, H, L, E]), got sizes [${t.sizes.join(', ')}]`);
  if (t.sizes.some((s) => !Number.isInteger(s) || s < 0)) fail(`${name} sizes [${t.sizes.join(', ')}] must be non-negative integers`);
  if (t.strides[3] !== 1 && (t.sizes[3] ?? 0) > 1) fail(`${name} must be contiguous in its last dim (stride 1), got stride ${t.strides[3]}`);
  for (let d = 0; d < 3; d += 1) {
    const stride = t.strides[d] ?? 0;
    if ((t.sizes[d] ?? 0) > 1 && stride % 8 !== 0) fail(`${name} stride ${stride} of dim ${d} is not a multiple of 8 elements: rows must be 16-byte aligned`);
  }
  if (t.dataPtr !== undefined && t.dataPtr % 16n !== 0n) fail(`${name} data pointer 0x${t.dataPtr.toString(16)} is not 16-byte aligned`);
}

/** The problem sizes of valid inputs; throws a CodegenError naming the first problem. */
export function checkAttentionInputs(variant: AttentionVariant, inputs: AttentionInputs): AttentionProblem {
  const { query, key, value } = inputs;
  checkRowTensor('query', query);
  checkRowTensor('key', key);
  checkRowTensor('value', value);
  const [n, h, l, e] = query.sizes as [number, number, number, number];
  const [nk, hkv, s, ek] = key.sizes as [number, number, number, number];
  if (e !== variant.headDim) fail(`query head dim ${e} differs from the kernel's ${variant.headDim}`);
  if (ek !== e || value.sizes[3] !== e) fail(`head dims differ: query ${e}, key ${ek}, value ${value.sizes[3]}`);
  if (nk !== n || value.sizes[0] !== n) fail(`batch sizes differ: query ${n}, key ${nk}, value ${value.sizes[0]}`);
  if (value.sizes[1] !== hkv || value.sizes[2] !== s) fail(`key [${key.sizes.join(', ')}] and value [${value.sizes.join(', ')}] differ in heads or length`);
  if (hkv === 0 || h % hkv !== 0) fail(`query heads ${h} must be a multiple of key/value heads ${hkv} (grouped-query attention)`);
  if (l > INT32_MAX || s > INT32_MAX || n > 65535 || hkv > 65535 || h > 65535) fail(`sizes N ${n}, H ${h}, L ${l}, S ${s} exceed the kernels' grid or 32-bit row limits`);
  const bias = inputs.bias;
  if (variant.bias === 'none' && bias !== undefined) fail('a bias / mask tensor was given to a kernel without one');
  if (variant.bias !== 'none') {
    if (bias === undefined) fail(`the ${variant.bias === 'bool' ? 'mask' : 'bias'} tensor is missing`);
    if (bias.sizes.length !== 4 || bias.strides.length !== 4) fail(`bias must have rank 4 ([N, H, L, S]), got sizes [${bias.sizes.join(', ')}]`);
    const expected = [n, h, l, s];
    const names = ['N', 'H', 'L', 'S'];
    for (let d = 0; d < 4; d += 1) {
      const size = bias.sizes[d];
      const want = expected[d] ?? 0;
      const broadcastable = d < 2 && size === 1;
      if (size !== want && !broadcastable) fail(`bias dim ${d} (${names[d]}) has size ${size}, expected ${want}${d < 2 ? ' or 1' : ''}`);
      if (size === 1 && want !== 1 && bias.strides[d] !== 0) fail(`bias dim ${d} (${names[d]}) broadcasts (size 1) and must have stride 0, got ${bias.strides[d]}`);
    }
  }
  const p = inputs.dropoutProbability ?? 0;
  if (!(p >= 0 && p < 1)) fail(`dropout probability ${p} must be in [0, 1)`);
  if (variant.dropout !== p > 0 && p > 0) fail(`dropout probability ${p} given to a kernel generated without dropout`);
  return { batch: n, heads: h, kvHeads: hkv, queryLength: l, keyLength: s };
}

/** float32(1 − p) and float32(1 / (1 − p)): the keep threshold and the scale of kept values. */
export function dropoutConstants(p: number): { keepProb: number; keepScale: number } {
  return { keepProb: Math.fround(1 - p), keepScale: Math.fround(1 / (1 - p)) };
}
