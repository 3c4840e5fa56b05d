// Composite ops fuse alone: the ops the legacy nvFuser parser (torch/csrc/jit/codegen/cuda/
// parser.cpp) lowered to a composition of several fusion ops — softmax and log_softmax (and their
// _softmax / backward forms), layer_norm, batch_norm, instance_norm (and the native / backward
// forms), mean and var, gelu, silu, softplus, dropout and the activation backwards — become a
// prim::CudaFusionGroup even when no neighbour joins them, so a traced or scripted
// `F.log_softmax(x, -1)` runs as one fusion (one reduction kernel pipeline) rather than falling
// back to eager. A plain pointwise op alone still forms no group (nothing to fuse), as before.
// Runs after CudaGraphFuser; when it wraps a node it reruns the fuser on that block so the
// lists and profiled values the composite reads (layer_norm's normalized_shape) join its group.
// Invariant: only nodes nodeFusibility accepts are wrapped; the graph computes the same values.

import type { Block, Node } from '@tsfuser/jit-ir';
import { CudaGraphFuser, type CudaGraphFuserOptions } from './cuda-graph-fuser.js';
import { isFusionGroup, nodeFusibility } from './fusibility.js';
import { createSingletonFusionGroup } from './fusion-group.js';

/** The legacy parser's composite ops that tsfuser's parseJitIR lowers. */
export const COMPOSITE_OPS: ReadonlySet<string> = new Set([
  'aten::softmax',
  'aten::_softmax',
  'aten::log_softmax',
  'aten::_log_softmax',
  'aten::_softmax_backward_data',
  'aten::_log_softmax_backward_data',
  'aten::layer_norm',
  'aten::native_layer_norm',
  'aten::native_layer_norm_backward',
  'aten::batch_norm',
  'aten::native_batch_norm',
  'aten::_batch_norm_impl_index',
  'aten::native_batch_norm_backward',
  'aten::_batch_norm_impl_index_backward',
  'aten::instance_norm',
  // Statistics the legacy parser built from several ops: mean = sum · 1/N, var = welford + the
  // correction's division.
  'aten::mean',
  'aten::var',
  'aten::gelu',
  'aten::gelu_backward',
  'aten::silu',
  'aten::silu_backward',
  'aten::softplus',
  'aten::dropout',
  'aten::native_dropout',
  'aten::native_dropout_backward',
  'aten::threshold_backward',
  'aten::tanh_backward',
  'aten::sigmoid_backward',
]);

/**
 * A guard's prim::If (its first block holds only the group): its fallback block stays un-fused,
 * as CudaGraphFuser leaves it (fusing a guarded graph again changes nothing).
 */
function isGuardIf(n: Node): boolean {
  const only = n.blocks[0]?.nodes();
  return n.kind === 'prim::If' && only?.length === 1 && only[0] !== undefined && isFusionGroup(only[0]);
}

export function isCompositeOp(n: Node): boolean {
  return COMPOSITE_OPS.has(n.kind);
}

/** Wraps each lone fusible composite of `block` (and of its nested blocks) in a group of its own. */
export function fuseLoneComposites(block: Block, options: CudaGraphFuserOptions = {}): void {
  let wrapped = false;
  for (const n of [...block.nodes()]) {
    if (isFusionGroup(n) || isGuardIf(n)) continue;
    for (const b of n.blocks) fuseLoneComposites(b, options);
    if (isCompositeOp(n) && nodeFusibility(n).fusible) {
      createSingletonFusionGroup(n);
      wrapped = true;
    }
  }
  // The new groups take in their list and profiled-value producers (and anything else that now fuses).
  if (wrapped) new CudaGraphFuser(block, options).run();
}
