// Public API of the transforms module (re-exported from the package index): loop-domain
// transforms, the logical-domain map, transform propagation, inlining, caching and rFactor.
export { indexOp, mergeIds, mergedIterType, splitId, toFactor, type NewIdOptions } from './id-ops.js';
export {
  maxComputePosition,
  merge,
  normalizeAxis,
  normalizeReorder,
  reorder,
  split,
  type ReorderMap,
} from './loop-transforms.js';
export {
  consumersOf,
  logicalDomainPairs,
  PairwiseLogicalDomainMap,
  producersOf,
  siblingsOf,
  type DomainPair,
} from './logical-domain-map.js';
export { buildIdGraph, IdSets, tensorIdExprs } from './id-graph.js';
export { idExprsFromTo, loopExprs, replayLoopDomain, resetLoopDomain } from './replay.js';
export {
  logicalMapBetween,
  replayStart,
  parallelizeAllLike,
  propagateTransforms,
  TransformPropagator,
  type PropagateOptions,
} from './propagator.js';
export { replayForwardThroughView } from './view-replay.js';
export { computeAt, inlineAllAt, inlineAt, inlineMost, inlineSelectedAt, maxInlinePosition } from './inline.js';
export { cacheAfter, cacheBefore, cacheFork } from './cache.js';
export { rFactor } from './rfactor.js';
export { cloneFusion, rebuildExpr, replaceExprVals, type FusionClone, type ValMapper } from '../ir/clone.js';
