// Public API of @tsfuser/codegen.
export const packageName = '@tsfuser/codegen';
export { CodegenError, LoweringError } from './errors.js';
export { compileFusion, generateKernel, launchParamsText, type CompiledKernel, type CompileOptions, type GenerateOptions, type LaunchParams, type LaunchRequirements } from './compile.js';
export { argumentLayout, type ArgumentLayout, type ArgumentSlot, type DivisorArgument } from './arguments.js';
export { divisorMagic, divisorWords, fastQuotient, umulhi, type DivisorMagic } from './divisor-magic.js';
export { lowerFusion, type LowerOptions } from './lower/index.js';
export { CORE_PASS_NAMES, LOWERING_PASS_NAMES, OPTIMIZATION_PASSES, enabledPasses, type LoweringPass, type PassInput } from './lower/passes.js';
export { verifyKernelIr, type VerifyOptions } from './kernel-ir/verify.js';
export { cudaSource, emitKernel, withCLinkage } from './emit/cuda.js';
export { COMPLEX_CORE, FAST_DIVISION_RUNTIME, FP8_RUNTIME, PHILOX_CORE, PHILOX_RUNTIME, runtimeLibrary } from './emit/runtime/index.js';
export { emitGreedyKernel, type GreedyKernelText } from './emit/greedy/index.js';
export { GREEDY_RUNTIME } from './emit/greedy/runtime.js';
export { printKernelIr } from './kernel-ir/printer.js';
export type { BulkRowCopy, Kernel, KernelDivisor, KernelParam, Stmt, TensorAccess, Operand, Predicate, ComputeOp } from './kernel-ir/nodes.js';
export { DIVISOR_PARAM_NAME } from './kernel-ir/nodes.js';
export { forEachIndex, mapStmtIndex, mapStmtIndices } from './kernel-ir/map-indices.js';
export * from './kernel-ir/index-expr.js';
export * from './attention/index.js';
