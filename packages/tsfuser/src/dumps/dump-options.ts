// The debug dump options: every name nvFuser's NVFUSER_DUMP accepts (csrc/options.cpp), each
// either supported (what tsfuser prints for it) or not (why), plus tsfuser's own
// `fusion_ir_segments`. `--dump a,b`, NVFUSER_DUMP=a,b and TSFUSER_DUMP=a,b all parse here; an
// unknown name is one error listing the valid ones.
// Invariant: DUMP_OPTIONS is in printing order (definition → segmentation → scheduling →
// lowering → CUDA → nvcc → launch), and every supported name has a producer in render-dumps.ts.

/** Where a dump comes from. */
export type DumpStage =
  | 'definition' // the FusionDefinition itself (printed by the CLI / FusionDefinition)
  | 'compile' // segmentation, scheduling, lowering, CUDA emission: no GPU needed
  | 'nvcc' // compiled by nvcc for the target architecture (when nvcc is installed)
  | 'launch'; // the arguments of one execute

export type DumpOption =
  | { readonly name: string; readonly supported: true; readonly stage: DumpStage; readonly description: string; readonly nvFuser: boolean }
  | { readonly name: string; readonly supported: false; readonly reason: string; readonly nvFuser: true };

function yes(name: string, stage: DumpStage, description: string, nvFuser = true): DumpOption {
  return { name, supported: true, stage, description, nvFuser };
}

function no(name: string, reason: string): DumpOption {
  return { name, supported: false, reason, nvFuser: true };
}

const SAME_AS_PRESCHED = 'the same IR as fusion_ir_presched';

export const DUMP_OPTIONS: readonly DumpOption[] = [
  yes('python_definition', 'definition', "the definition as TypeScript (fd.print()); with --python also nvFuser's python form"),
  yes('fusion_ir_original', 'compile', `the Fusion IR the definition built (tsfuser has no concretization or pre-segmentation passes: ${SAME_AS_PRESCHED})`),
  yes('fusion_ir_concretized', 'compile', `the Fusion IR after concretization (tsfuser's definitions are concrete: ${SAME_AS_PRESCHED})`),
  yes('fusion_ir_preseg', 'compile', `the Fusion IR after pre-segmentation passes (tsfuser has none: ${SAME_AS_PRESCHED})`),
  yes('fusion_ir_presched', 'compile', 'the Fusion IR before segmentation and scheduling (nvFuser format)'),
  yes('segmenter_logging', 'compile', 'the segmenter: whether one scheduler takes the whole fusion (each refusal), the segments, and why each pair was not merged'),
  yes('segmented_fusion', 'compile', 'the segments (groups, edges, scheduler per group)'),
  yes('fusion_ir_segments', 'compile', 'pre-scheduled Fusion IR annotated with segments and why they were not merged (tsfuser only)', false),
  yes('scheduler_verbose', 'compile', 'per segment, each scheduler asked in order: its refusal reason, or that it accepted'),
  yes('scheduler_params', 'compile', 'the heuristics each scheduler chose'),
  yes('fusion_ir', 'compile', 'the scheduled Fusion IR of each kernel with every tensor\'s transforms'),
  yes('fusion_ir_math', 'compile', 'the scheduled Fusion IR of each kernel, math only (%kernel_math)'),
  yes('lower_verbose', 'compile', 'the kernel IR after each enabled lowering pass, in pass order (After <pass>:)'),
  yes('kernel_ir', 'compile', 'the lowered kernel IR'),
  yes('index_type', 'compile', 'the index type of each kernel (int or int64_t)'),
  yes('dynamic_shared_memory', 'compile', 'the dynamic shared memory bytes of each kernel'),
  yes('global_zeroed_memory', 'compile', 'the zero-initialized global buffers of each kernel (grid reduction work buffers and semaphores)'),
  yes('cuda_kernel', 'compile', 'the generated CUDA C++ of each kernel'),
  yes('cuda_full', 'compile', 'the complete CUDA C++ of each kernel (runtime helpers included), as NVRTC compiles it'),
  yes('cuda_to_file', 'compile', 'writes the complete CUDA C++ to __tmp_<kernel>.cu and prints PRINTING: <file>'),
  yes('ptx', 'nvcc', 'writes the PTX of each kernel (nvcc -ptx) to __tmp_<kernel>.ptx and prints PRINTING: <file>'),
  yes('cubin', 'nvcc', 'writes the cubin of each kernel (nvcc -cubin) to __tmp_<kernel>.cubin and prints PRINTING: <file>'),
  yes('ptxas_verbose', 'nvcc', "ptxas's verbose log of each kernel: registers, spills, stack, shared memory (nvcc -cubin -Xptxas -v)"),
  yes('sass', 'nvcc', "the SASS of each kernel: nvcc's cubin for the target disassembled by nvdisasm -c"),
  yes('sass_to_file', 'nvcc', 'writes the SASS of each kernel (nvdisasm -c) to __tmp_<kernel>.sass and prints PRINTING: <file>'),
  yes('occupancy', 'nvcc', "nvFuser's line per kernel: num_sms, blocks_per_sm, warps_per_sm, occupancy (on the GPU from the driver at each launch; without one computed from ptxas's registers and shared memory for the target)"),
  yes('launch_param', 'compile', 'grid, block and shared memory of each launch'),
  yes('host_ir', 'compile', 'the launch plan (the host program): per segment its kernel launch, view or no-op, with the buffers it reads and writes'),
  yes('fusion_args', 'launch', 'the fusion\'s arguments (dtype, sizes, strides, scalar values) and its outputs\' sizes and strides'),
  yes('kernel_args', 'launch', 'the arguments of each kernel launch (tensor sizes and strides, scalar values; device pointers are not known before allocation)'),
  no('bank_conflict', 'tsfuser kernels use shared memory only for reductions, bulk row copies and transpose tiles (swizzled by construction); there is no bank-conflict analysis'),
  no('buffer_reuse_verbose', 'tsfuser does not alias or reuse local/shared buffers'),
  no('ca_map', 'tsfuser indexes with loop groups (LOWERING.md), not a ComputeAtMap'),
  no('communication', 'tsfuser has no multi-device communication'),
  no('draw_segmented_fusion', 'no Graphviz output; segmented_fusion and fusion_ir_segments print the same graph as text'),
  no('expr_simplify', 'tsfuser has no expression simplifier pass to log'),
  no('expr_sort', 'tsfuser places expressions by loop nest construction, not by nvFuser\'s expression sorting'),
  no('expr_sort_verbose', 'tsfuser places expressions by loop nest construction, not by nvFuser\'s expression sorting'),
  no('ftrace', 'nvFuser\'s function trace instruments its C++ functions; tsfuser has no such instrumentation'),
  no('fusion_ir_graph', 'no Graphviz output; fusion_ir prints the same IR as text'),
  no('host_ir_jit', 'tsfuser\'s launch plan is interpreted, not compiled (host_ir prints it)'),
  no('host_ir_lowering_logging', 'tsfuser builds its launch plan directly (host_ir prints it); there is no host IR lowering to log'),
  no('indexing_verbose', 'tsfuser\'s indexing has no verbose log; kernel_ir shows every index'),
  no('loop_rotation', 'tsfuser does not rotate loops'),
  no('parallel_dimensions', 'tsfuser has no parallel dimension map; launch_param prints the launch sizes'),
  no('perf_debug_verbose', 'no per-launch timing log; tsfuser bench measures kernels'),
  no('pre_segmenter_logging', 'tsfuser has no pre-segmentation passes'),
  no('predicate_elimination', 'tsfuser does not eliminate predicates in a separate pass to log'),
  no('python_definition_segments', 'segments are Fusions, not FusionDefinitions: there is no python printer for them'),
  no('python_frontend_debug', 'the TypeScript frontend has no debug trace'),
  no('sync_map', 'tsfuser places __syncthreads without a RAW sync map'),
  no('transform_propagator', 'tsfuser schedulers transform every tensor directly; there is no TransformPropagator'),
];

export class DumpOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DumpOptionError';
  }
}

export function dumpOption(name: string): DumpOption | undefined {
  return DUMP_OPTIONS.find((o) => o.name === name);
}

/** Every accepted name, sorted (the list an error shows). */
export function validDumpNames(): string[] {
  return DUMP_OPTIONS.map((o) => o.name).sort();
}

/**
 * Parses a comma list (`--dump`, NVFUSER_DUMP, TSFUSER_DUMP). Unknown names are one
 * DumpOptionError naming `source` and listing the valid names; names nvFuser has and tsfuser
 * does not support are accepted (each prints why it is not produced).
 */
export function parseDumpList(text: string | undefined, source: string): Set<string> {
  const out = new Set<string>();
  if (text === undefined) return out;
  const unknown: string[] = [];
  for (const raw of text.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    if (dumpOption(name) === undefined) unknown.push(name);
    else out.add(name);
  }
  if (unknown.length > 0) {
    throw new DumpOptionError(`unknown dump option${unknown.length === 1 ? '' : 's'} ${unknown.map((u) => `'${u}'`).join(', ')} in ${source}; valid options: ${validDumpNames().join(', ')}`);
  }
  return out;
}

/** The dumps named by NVFUSER_DUMP and TSFUSER_DUMP in `env`. */
export function dumpsFromEnv(env: Readonly<Record<string, string | undefined>>): Set<string> {
  // Read on every execute (as nvFuser reads NVFUSER_DUMP): the common case, neither set, allocates nothing more.
  const nvfuser = env['NVFUSER_DUMP'];
  const tsfuser = env['TSFUSER_DUMP'];
  if (nvfuser === undefined && tsfuser === undefined) return new Set();
  return new Set([...parseDumpList(nvfuser, 'NVFUSER_DUMP'), ...parseDumpList(tsfuser, 'TSFUSER_DUMP')]);
}
