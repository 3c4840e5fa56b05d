// Public API of tsfuser: FusionDefinition (nvFuser's python frontend in TypeScript), the
// FusionCache, execution backends, the nvFuser python_definition importer, .npy I/O and the CLI.
export const packageName = 'tsfuser';

export { Complex, DataType } from '@tsfuser/fusion-ir';
export { Tensor } from '@tsfuser/device';
export {
  DefinitionError,
  InputMismatchError,
  ValidationError,
  InputListError,
  AllocationLimitError,
  DefinitionImportError,
  BackendUnavailableError,
  formatImportError,
} from './errors.js';
export { FusionDefinition, type FusionDefinitionOptions, type InputDescriptor } from './definition/fusion-definition.js';
export { TensorHandle, ScalarHandle, VectorHandle, type Handle } from './definition/handles.js';
export { OPS, allOps, opByName, opByPythonName, type Ops, type OpName } from './definition/ops-table.js';
export type { OpSpec, ParamSpec, ParamKind, OutputKind } from './definition/op-spec.js';
export type { Operand } from './definition/ops-pointwise.js';
export type { Sizes } from './definition/ops-structural.js';
export type { TensorOptions, ShapeTensorOptions, StridedTensorOptions, SymbolicTensorOptions, NormalizedTensorSpec } from './definition/tensor-spec.js';
export { allocationOrder, expandedDims, logicalContiguity, tensorDescriptor } from './definition/tensor-spec.js';
export { canonicalRecords, hashRecords, type FusionRecord, type RecordValue, type StateRef } from './definition/records.js';
export { printTypeScriptDefinition, type PrintTypeScriptOptions } from './definition/print-typescript.js';
export { printPythonDefinition } from './definition/print-python.js';
export { FusionCache, type FusionCacheEntry } from './cache/fusion-cache.js';
export type { Backend, BackendName, Availability, ExecuteInput } from './execute/backend.js';
export { resolveBackend, executeFusion, type ExecuteOptions } from './execute/execute.js';
export { applyOutputAliases, type OutputAlias } from './execute/output-alias.js';
export type { DefinitionExecuteOptions, ExecuteProfile } from './definition/execution-state.js';
export type { OutputOptions } from './definition/add-output.js';
export { referenceBackend } from './execute/reference-backend.js';
export { gpuBackend, createGpuBackend, type GpuBackend, type GpuBackendOptions } from './execute/gpu-backend.js';
export { gpuGroupExecutor, type GpuGroupExecutor } from './torchscript/gpu-group-executor.js';
export { runBench, formatBenchReport, type BenchReport, type BenchOptions } from './bench/run-bench.js';
export { LLAMA_7B_CONFIG, LLAMA_SMALL_CONFIG, LLAMA_SMALL_GQA_CONFIG, LlamaConfigError, checkLlamaConfig, llamaForwardFlops, llamaTrainingStepFlops, type LlamaBlockConfig } from './bench/llama-block-config.js';
export { llamaBlockForward, llamaSavedShapes, LLAMA_FORWARD_INPUTS, LLAMA_SAVED, type LlamaForwardOptions, type LlamaSavedName } from './bench/llama-block-forward.js';
export { llamaBlockBackward, LLAMA_BACKWARD_INPUTS, LLAMA_GRADS, type LlamaBackwardOptions } from './bench/llama-block-backward.js';
export { explainSegments } from './cli/explain.js';
export { checkInputs } from './execute/input-check.js';
export { importPythonDefinition, importPythonScript, type ImportedScript, type ScriptInputOptions } from './python/import-definition.js';
export { parsePython } from './python/parser.js';
export { tokenize } from './python/tokenizer.js';
export type { InputSpec, TensorFactory, TensorViewOp } from './io/input-spec.js';
export { DEFAULT_ALLOCATION_LIMITS, limitsFromEnv, type AllocationLimits } from './io/allocation-limits.js';
export { DUMP_OPTIONS, DumpOptionError, dumpsFromEnv, parseDumpList, validDumpNames, type DumpOption, type DumpStage } from './dumps/dump-options.js';
export { compileForTarget, type TargetCompilation } from './dumps/compile-for-target.js';
export { renderDumps, type RenderOptions } from './dumps/render-dumps.js';
export { DEFAULT_TARGET, archOf, parseArch, parseDeviceProperties, type CompileTarget } from './dumps/target.js';
export { findNvcc } from './dumps/nvcc.js';
