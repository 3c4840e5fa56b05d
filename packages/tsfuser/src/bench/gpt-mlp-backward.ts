// The GPT MLP block's backward (linear → gelu(tanh) → linear, both with bias) as one
// FusionDefinition, written as a front end (Thunder) hands it to nvFuser: from dy and what
// PyTorch's autograd saves in the forward — x and W1 (the first linear), the pre-activation
// h = x·W1ᵀ + b1 (gelu's input), g = gelu(h) and W2 (the second linear) — the grads
//   dg  = dy · W2                 dpre = gelu_backward(dg, h, 'tanh')
//   dx  = dpre · W1               dW1 = dpreᵀ · x        db1 = sum(dpre, 0)
//   dW2 = dyᵀ · g                 db2 = sum(dy, 0)
// with the bias grads summed in Float and cast back (Thunder's form). b1 and b2 are not read:
// no grad needs them. On the GPU by default: four plain cuBLASLt calls (dg, dx, dW1, dW2; the
// transposes read in place) and two kernels (the gelu backward with db1 — dpre is written inside
// the reduction loops — and db2); with the opt-in
// backward epilogues (scheduler MatmulScheduler({ backwardEpilogues: true })) dg is the
// DGELU_BGRAD call (dpre and db1), dW2 the BGRADA call (db2), and no kernel runs.
// Invariant: inputs in GPT_MLP_BACKWARD_INPUTS order, outputs in GPT_MLP_GRADS order, all bf16
// (the dtype of the definition), each grad in its tensor's own layout ([out, in] weights).

import type { DataType } from '@tsfuser/fusion-ir';
import { FusionDefinition } from '../definition/fusion-definition.js';
import type { TensorHandle } from '../definition/handles.js';

/** The definition's inputs, in order. */
export const GPT_MLP_BACKWARD_INPUTS = ['x', 'w1', 'w2', 'h', 'g', 'dy'] as const;

/** Its outputs, in order. */
export const GPT_MLP_GRADS = ['dx', 'dw1', 'db1', 'dw2', 'db2'] as const;

/** The backward of linear(gelu(linear(x, W1, b1), 'tanh'), W2, b2) in `dtype` (see the header). */
export function gptMlpBackwardDefinition(dtype: DataType = 'BFloat16'): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const matrix = (): TensorHandle => fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype });
    const [x, w1, w2, h, g, dy] = GPT_MLP_BACKWARD_INPUTS.map(matrix) as [TensorHandle, TensorHandle, TensorHandle, TensorHandle, TensorHandle, TensorHandle];
    const biasGrad = (t: TensorHandle): TensorHandle => fd.ops.cast(fd.ops.sum(fd.ops.cast(t, 'Float'), [0]), dtype);
    const dpre = fd.ops.geluBackward(fd.ops.matmul(dy, w2), h, 'tanh');
    fd.addOutput(fd.ops.matmul(dpre, w1));
    fd.addOutput(fd.ops.matmul(fd.ops.permute(dpre, [1, 0]), x));
    fd.addOutput(biasGrad(dpre));
    fd.addOutput(fd.ops.matmul(fd.ops.permute(dy, [1, 0]), g));
    fd.addOutput(biasGrad(dy));
  });
}
