// The fusion's inputs and outputs as every scheduler's heuristics see them at run time: sizes,
// strides and pointer alignment of each input (from RuntimeInfo), and each output's sizes with
// the dense strides the runtime allocates it with (its allocation order). Shared by the
// pointwise, reduction and persistent heuristics (index type, vectorization).

import type { DataType, Fusion, TensorView } from '@tsfuser/fusion-ir';
import { tensorSizes, type bindExtents, type RuntimeInfo } from '../runtime-info.js';
import { permutedAllocationOrder, stridesInOrder } from '../stride-order.js';

/** One input or output as the heuristics see it at run time. */
export interface IoTensor {
  tv: TensorView;
  /** 'input' i or 'output' i: position among the fusion's inputs / outputs. */
  role: 'input' | 'output';
  position: number;
  dtype: DataType;
  sizes: readonly number[];
  strides: readonly number[];
  alignment: number;
  /**
   * Reference dim of each dim when the tensor is not in the exact map (the lookup of an indexed
   * load: its dims map through the output dims they stand for; the indexed dim is -1).
   */
  refMap?: readonly number[];
}

export function collectIo(fusion: Fusion, runtimeInfo: RuntimeInfo, bindings: ReturnType<typeof bindExtents>): IoTensor[] {
  const io: IoTensor[] = [];
  fusion.inputs.forEach((v, i) => {
    const info = runtimeInfo.inputs[i];
    if (v.kind !== 'tensorView' || info === undefined || info.kind !== 'tensor') return;
    io.push({ tv: v, role: 'input', position: i, dtype: v.dtype, sizes: info.sizes, strides: info.strides, alignment: info.alignment });
  });
  fusion.outputs.forEach((v, i) => {
    if (v.kind !== 'tensorView') return;
    const sizes = tensorSizes(v, bindings);
    // The runtime allocates an output densely in its allocation order (stride order).
    io.push({ tv: v, role: 'output', position: i, dtype: v.dtype, sizes, strides: stridesInOrder(sizes, permutedAllocationOrder(v)), alignment: 16 });
  });
  return io;
}
