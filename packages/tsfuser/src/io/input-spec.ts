// How to make one fusion input: a scalar value, or a tensor from a factory (torch.randn,
// torch.ones, torch.zeros, torch.full, torch.testing.make_tensor) with shape, dtype and an
// optional as_strided view. Repro scripts' `inputs = [...]` lists import to these.

import type { DataType } from '@tsfuser/fusion-ir';

export type TensorFactory = 'randn' | 'rand' | 'ones' | 'zeros' | 'full' | 'make_tensor';

export type InputSpec =
  | { kind: 'scalar'; value: number | boolean; isFloat: boolean }
  | {
      kind: 'tensor';
      factory: TensorFactory;
      shape: number[];
      dtype: DataType;
      /** torch.full's fill value. */
      fill?: number | boolean;
      /** make_tensor's range (defaults as torch: [-9, 9]). */
      low?: number;
      high?: number;
      /** `.as_strided(size, stride)` applied to the factory's tensor. */
      asStrided?: { size: number[]; stride: number[] };
    };
