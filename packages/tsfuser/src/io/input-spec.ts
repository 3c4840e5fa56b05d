// How to make one fusion input: a scalar value, or a tensor from a factory (torch.randn, rand,
// randint, ones, zeros, full, arange, empty/empty_strided, testing.make_tensor) with shape and
// dtype, then view and copy ops applied in order (as_strided, transpose/t, permute, expand,
// slices and integer indices, contiguous, to(dtype), clone, reshape/view, comparisons with a
// scalar, topk). Repro scripts' `inputs = [...]` lists import to these; tensor-views.ts gives their
// layout without allocating, input-generation.ts builds them. Two factories carry data:
// torch.tensor([...]) (its values, row-major) and torch.from_numpy(numpy.load(path)) (the .npy
// file, read when the input is built).

import type { DataType, ElementValue } from '@tsfuser/fusion-ir';

export type TensorFactory = 'randn' | 'rand' | 'randint' | 'ones' | 'zeros' | 'full' | 'arange' | 'make_tensor' | 'tensor' | 'from_numpy';

/** Python's comparison operators between a tensor and a scalar (the tensor on the left). */
export type CompareOp = '<' | '<=' | '>' | '>=' | '==' | '!=';

/** One op applied to a tensor after its factory, in PyTorch's semantics. */
export type TensorViewOp =
  | { kind: 'asStrided'; size: number[]; stride: number[]; offset: number | null }
  | { kind: 'transpose'; dim0: number; dim1: number }
  | { kind: 'permute'; dims: number[] }
  | { kind: 'expand'; sizes: number[] }
  /** `x[start:stop:step]` on one dim (start/stop already clamped like python's slice.indices). */
  | { kind: 'slice'; dim: number; start: number | null; stop: number | null; step: number }
  /** `x[i]`: removes dim `dim`. */
  | { kind: 'select'; dim: number; index: number }
  /** `x[None]`: a new size-1 dim at `dim`. */
  | { kind: 'unsqueeze'; dim: number }
  | { kind: 'contiguous' }
  | { kind: 'to'; dtype: DataType }
  /** `.clone()` (memory_format=torch.preserve_format): a copy with PyTorch's empty_like strides. */
  | { kind: 'clone' }
  /** `.reshape(sizes)` / `.view(sizes)` (-1 already resolved): a view when the strides allow, else (reshape only) a contiguous copy. */
  | { kind: 'reshape'; sizes: number[]; viewOnly: boolean }
  /** `x > 0.3` and friends: a Bool tensor, both sides promoted to `computeDtype` first (PyTorch's type promotion). */
  | { kind: 'compare'; op: CompareOp; scalar: number | boolean; computeDtype: DataType }
  /**
   * `x + 0.5`, `2 * x`, `x / 3`, `1 - x`: tensor and Python scalar, computed in `computeDtype`
   * (PyTorch's opmath: Float for Half / BFloat16) and stored as `dtype` (torch.result_type; true
   * division of an integer tensor gives Float); `scalarOnLeft` for `2 - x`.
   */
  | { kind: 'arith'; op: ArithOp; scalar: number | boolean; scalarOnLeft: boolean; dtype: DataType; computeDtype: DataType }
  /** `torch.topk(x, k, dim, largest)[0 | 1]`: the values or the (Int) indices, contiguous. */
  | { kind: 'topk'; k: number; dim: number; largest: boolean; output: 'values' | 'indices' };

/** The arithmetic of an inputs line between a tensor and a Python scalar. */
export type ArithOp = '+' | '-' | '*' | '/';

export type InputSpec =
  | { kind: 'scalar'; value: number | boolean; isFloat: boolean }
  | {
      kind: 'tensor';
      factory: TensorFactory;
      /** The factory's shape (its storage is this shape, contiguous). */
      shape: number[];
      dtype: DataType;
      /** torch.full's fill value. */
      fill?: number | boolean;
      /** make_tensor's range (defaults as torch: [-9, 9]); randint's [low, high). */
      low?: number;
      high?: number;
      /** arange's first value and step (element i is start + i·step). */
      start?: number;
      step?: number;
      /** torch.tensor's values in row-major order (shape `shape`). */
      data?: ElementValue[];
      /** torch.from_numpy: the .npy file (an absolute path) holding the factory's storage, and its order. */
      npy?: { path: string; fortranOrder: boolean };
      /** `.as_strided(size, stride)` applied first to the factory's tensor. */
      asStrided?: { size: number[]; stride: number[] };
      /** Ops applied after asStrided, in order. */
      views?: TensorViewOp[];
    };

export type TensorInputSpec = InputSpec & { kind: 'tensor' };

/** Every op applied to the factory's tensor, in order (the legacy `asStrided` first). */
export function viewOps(spec: TensorInputSpec): TensorViewOp[] {
  const ops: TensorViewOp[] = [];
  if (spec.asStrided !== undefined) ops.push({ kind: 'asStrided', size: spec.asStrided.size, stride: spec.asStrided.stride, offset: null });
  return [...ops, ...(spec.views ?? [])];
}
