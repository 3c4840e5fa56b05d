// parseJitIR: TorchScript graphs (and CudaFusionGroup subgraphs) lowered to Fusion IR.
//   values.ts / args.ts      what graph values become; typed access to node arguments
//   inputs.ts                graph inputs → fusion inputs (types, profiled types, contiguity)
//   op-table.ts              the op table and jitOpSupport (the one list of supported ops)
//   pointwise.ts activations.ts reductions.ts normalization.ts shapes.ts prims.ts   lowerings
//   lower-graph.ts           the driver (lowerJitGraph, parseJitIR)
//   decompose-linear.ts      graph pass: biased aten::linear → linear + fusible aten::add
export { parseJitIR, lowerJitGraph, type JitLowering, type InputUpdate } from './lower-graph.js';
export { jitOpSupport, supportedJitOps, type JitOpSupport } from './op-table.js';
export { JitLoweringError } from './errors.js';
export { decomposeLinear } from './decompose-linear.js';
