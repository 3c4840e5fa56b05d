// fuseGraph: the fuser's entry (legacy CudaFuseGraph up to the guards). In place:
//   1. prim::profile nodes removed, profiled types specialized (specialize-profiled-types.ts),
//      dead code removed;
//   2. size chains simplified (simplify-size-arithmetic.ts: Int(NumToTensor(n)) → n,
//      size(t)[d] → size(t, d)); biased aten::linear split so its bias add can fuse (parseJitIR's decomposeLinear);
//   3. CudaGraphFuser on the top block and, recursively, nested blocks; then lone composite ops
//      (log_softmax, layer_norm, gelu …: composite-singletons.ts) become groups of their own;
//   4. dead code (unused shape expressions, constants) removed.
// guardFusionGroups (../guard) is the next step; fuseAndGuard runs both.
// Invariant: the graph computes the same values as before.

import { eliminateDeadCode, type Graph } from '@tsfuser/jit-ir';
import { decomposeLinear } from '../parse-jit-ir/index.js';
import { fuseLoneComposites } from './composite-singletons.js';
import { CudaGraphFuser, type CudaGraphFuserOptions } from './cuda-graph-fuser.js';
import { simplifySizeArithmetic } from './simplify-size-arithmetic.js';
import { removeProfileNodesAndSpecializeTypes } from './specialize-profiled-types.js';

export type FuseGraphOptions = CudaGraphFuserOptions & {
  /** A composite op (log_softmax, layer_norm, gelu …) with nothing to fuse becomes a group alone (default true). */
  compositeFusion?: boolean;
};

/** Fuses `graph` in place into prim::CudaFusionGroup nodes and returns it. */
export function fuseGraph(graph: Graph, options: FuseGraphOptions = {}): Graph {
  removeProfileNodesAndSpecializeTypes(graph);
  simplifySizeArithmetic(graph);
  // Dead nodes would otherwise be fused (and only removed inside the group afterwards).
  eliminateDeadCode(graph);
  decomposeLinear(graph);
  new CudaGraphFuser(graph.block, options).run();
  if (options.compositeFusion ?? true) fuseLoneComposites(graph.block, options);
  eliminateDeadCode(graph);
  return graph;
}
