// The dumps of one execute: which requested dumps the backend prints itself (the GPU executor
// prints its nine compile-stage dumps when it compiles), and the rest rendered from the compile
// plan that ran (the GPU backend's) or, where none ran, from the same plan builder for the target — the GPU's own properties on the GPU backend, `--arch` / device
// properties (an H100, sm_90, by default) otherwise — so every compile-side dump works without a
// GPU.
// Invariant: a fusion the GPU path cannot compile still executes (on the reference backend);
// its compile-side dumps say, in one line, why they are not produced.

import { LoweringError } from '@tsfuser/codegen';
import type { Fusion } from '@tsfuser/fusion-ir';
import { type DeviceContext } from '@tsfuser/device';
import { ExecutorInputError, schedulerDevice, type CompilePlan, type ExecutorDump } from '@tsfuser/runtime';
import { SchedulingError } from '@tsfuser/scheduler';
import type { Backend, ExecuteInput } from '../execute/backend.js';
import { compileForTarget, targetCompilationOf } from './compile-for-target.js';
import { dumpOption } from './dump-options.js';
import { renderDumps } from './render-dumps.js';
import { archOf, DEFAULT_TARGET, type CompileTarget } from './target.js';

/** What FusionExecutorCache prints itself when it compiles (nvFuser names). */
export const EXECUTOR_DUMPS: ReadonlySet<ExecutorDump> = new Set<ExecutorDump>([
  'fusion_ir_presched',
  'segmented_fusion',
  'fusion_ir_segments',
  'scheduler_params',
  'fusion_ir',
  'fusion_ir_math',
  'kernel_ir',
  'cuda_kernel',
  'launch_param',
  'occupancy',
]);

export interface ExecuteDumpOptions {
  /** Target of the compile-side dumps on a non-GPU backend (default sm_90, an H100). */
  target?: CompileTarget;
  /** Directory of cuda_to_file / ptx / cubin files (default: the working directory). */
  directory?: string;
  device: number;
  /** The compile plan the execute ran (the GPU backend's), read instead of compiling again. */
  ran?: CompilePlan | null;
}

/** What the GPU backend refuses before compiling (gpu-backend.ts). */
function gpuPathRefusal(fusion: Fusion): string | null {
  const scalar = fusion.outputs.find((v) => v.kind !== 'tensorView');
  if (scalar !== undefined) return `fusion output ${scalar.kind} ${scalar.name} is not a tensor (scalar outputs run on the reference backend)`;
  return null;
}

function hasDevice(backend: Backend): backend is Backend & { device(ordinal?: number): DeviceContext } {
  return 'device' in backend && typeof (backend as { device?: unknown }).device === 'function';
}

/** The dumps `backend` does not print itself, rendered to `sink`. */
export function printExecuteDumps(fusion: Fusion, inputs: readonly ExecuteInput[], backend: Backend, dumps: ReadonlySet<string>, sink: (text: string) => void, options: ExecuteDumpOptions): void {
  const gpu = backend.name === 'gpu';
  const skip = new Set<string>(['python_definition', ...(gpu ? EXECUTOR_DUMPS : [])]);
  const wanted = [...dumps].filter((d) => !skip.has(d) && dumpOption(d) !== undefined);
  if (wanted.length === 0) return;
  let target = options.target ?? DEFAULT_TARGET;
  if (gpu && hasDevice(backend)) {
    const device = schedulerDevice(backend.device(options.device).properties);
    target = { arch: archOf(device), device };
  }
  const notProduced = (why: string): void => sink(`${wanted.join(', ')}: not produced: the GPU path cannot compile this fusion for ${target.arch} (${target.device.name}): ${why}\n`);
  const refusal = gpuPathRefusal(fusion);
  if (refusal !== null) {
    notProduced(refusal);
    return;
  }
  let compiled: ReturnType<typeof compileForTarget>;
  // The plan that ran, unless a dump needs what its kernels did not keep (lower_verbose: the
  // kernel IR after every pass): then the same builder, for the same layouts and device.
  const lowerVerbose = wanted.includes('lower_verbose');
  const ran = options.ran ?? null;
  if (ran !== null && !lowerVerbose) {
    renderDumps(targetCompilationOf(ran, target), fusion, inputs, new Set(wanted), sink, { ...(options.directory === undefined ? {} : { directory: options.directory }) });
    return;
  }
  try {
    compiled = compileForTarget(fusion, inputs, target, undefined, { kernelIrAfterEveryPass: lowerVerbose });
  } catch (error) {
    if (!(error instanceof SchedulingError || error instanceof LoweringError || error instanceof ExecutorInputError)) throw error;
    notProduced(error.message);
    return;
  }
  renderDumps(compiled, fusion, inputs, new Set(wanted), sink, { ...(options.directory === undefined ? {} : { directory: options.directory }) });
}
