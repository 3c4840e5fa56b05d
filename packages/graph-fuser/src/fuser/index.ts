// CudaGraphFuser: fusibility.ts (the rules), fusion-group.ts (group mechanics),
// shape-expressions.ts, specialize-profiled-types.ts, simplify-size-arithmetic.ts,
// cuda-graph-fuser.ts (the scan),
// fuse-graph.ts (the entry and its order of passes).
export { fuseGraph, type FuseGraphOptions } from './fuse-graph.js';
export { COMPOSITE_OPS, fuseLoneComposites, isCompositeOp } from './composite-singletons.js';
export { CudaGraphFuser, NVRTC_KERNEL_ARG_LIMIT, type CudaGraphFuserOptions } from './cuda-graph-fuser.js';
export { nodeFusibility, producerFusibility, siblingFusibility, CUDA_FUSION_GROUP, type Verdict } from './fusibility.js';
export { createSingletonFusionGroup, mergeNodeIntoGroup, mergeFusionGroups, subgraphOf } from './fusion-group.js';
export { buildShapeExpressions, removeOutputsUsedOnlyInSize } from './shape-expressions.js';
export { removeProfileNodesAndSpecializeTypes } from './specialize-profiled-types.js';
export { simplifySizeArithmetic } from './simplify-size-arithmetic.js';
