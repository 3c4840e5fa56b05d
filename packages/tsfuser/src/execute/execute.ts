// execute(): picks a backend, checks the inputs against the definition, runs, returns outputs.
// `backend: 'auto'` (the default) uses the GPU backend when it is available and otherwise the
// reference evaluator, saying so once per process on stderr.

import type { Fusion } from '@tsfuser/fusion-ir';
import type { Tensor } from '@tsfuser/device';
import type { CompilePlan, FusionProfile } from '@tsfuser/runtime';
import type { InputDescriptor } from '../definition/fusion-definition.js';
import { BackendUnavailableError } from '../errors.js';
import { LoweringError } from '@tsfuser/codegen';
import { SchedulingError } from '@tsfuser/scheduler';
import type { AllocationLimits } from '../io/allocation-limits.js';
import type { Backend, BackendName, BackendRunOptions, ExecuteInput } from './backend.js';
import { gpuBackend } from './gpu-backend.js';
import { checkInputExtents, inputExtentGroups, type InputExtentGroups } from './extent-check.js';
import { checkInputs } from './input-check.js';
import { noteOnce, stderrSink, type NoteSink } from './notes.js';
import { referenceBackend } from './reference-backend.js';

export type { ExecuteInput } from './backend.js';

export interface ExecuteOptions {
  /** 'auto' (default): GPU when available, else reference. A Backend object is used as is. */
  backend?: BackendName | Backend;
  /** CUDA device ordinal for GPU backends (default 0). */
  device?: number;
  /** Where the one-time fallback note goes (default: stderr). */
  notes?: NoteSink;
  /** Compile-stage dumps the GPU backend prints when it compiles (see DUMP_OPTIONS). */
  dump?: ReadonlySet<string>;
  dumpSink?: (text: string) => void;
  /** Host allocation limits the reference backend enforces (default DEFAULT_ALLOCATION_LIMITS). */
  limits?: AllocationLimits;
  /** Receives the kernel profile of this execute from a backend that launches kernels. */
  onProfile?: (profile: FusionProfile) => void;
  /** Receives the compile plan this execute ran, from a backend that runs compile plans (the GPU's). */
  onPlan?: (plan: CompilePlan) => void;
  /** GPU backend: replay the cached plan as a CUDA graph (BackendRunOptions.cudaGraph). */
  cudaGraph?: boolean;
  /** GPU backend, with cudaGraph: replay at the call's own addresses when they match (BackendRunOptions.graphKeyedByPointers). */
  graphKeyedByPointers?: boolean;
}

/**
 * The one line 'auto' prints when it falls back: what is missing first, then what runs instead
 * (the CPU fallback is intended, not an error), then the loader's detail where it adds something.
 */
export function referenceFallbackNote(a: { summary: string; reason: string }, program = 'tsfuser'): string {
  const detail = a.summary === 'no CUDA driver' || a.summary === 'no CUDA device' ? '' : ` (${a.reason})`;
  return `${program}: ${a.summary}: running on the CPU reference evaluator${detail}`;
}

/** The backend `name` resolves to; 'auto' may fall back to the reference evaluator. */
export function resolveBackend(choice: BackendName | Backend = 'auto', notes: NoteSink = stderrSink): Backend {
  if (typeof choice !== 'string') return choice;
  switch (choice) {
    case 'reference':
      return referenceBackend;
    case 'gpu': {
      const gpu = gpuBackend();
      const a = gpu.availability();
      if (!a.available) throw new BackendUnavailableError(`backend 'gpu' is unavailable: ${a.reason}`);
      return gpu;
    }
    case 'auto': {
      const gpu = gpuBackend();
      const a = gpu.availability();
      if (a.available) return gpu;
      noteOnce('reference-fallback', referenceFallbackNote(a), notes);
      return referenceBackend;
    }
    default: {
      const unreachable: never = choice;
      throw new BackendUnavailableError(`unknown backend '${String(unreachable)}' (expected gpu, reference or auto)`);
    }
  }
}

/** backend.run, a synchronous throw of a backend that is no async function as a rejection. */
function runOn(backend: Backend, fusion: Fusion, inputs: readonly ExecuteInput[], options: BackendRunOptions): Promise<Tensor[]> {
  try {
    return backend.run(fusion, inputs, options);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * Checks the inputs, picks the backend and runs. Not an async function: a cached GPU execute
 * returns the backend's promise itself instead of a promise adopting it (two microtask turns
 * fewer per call); every error, synchronous ones included, still arrives as a rejection.
 */
export function executeFusion(
  fusion: Fusion,
  descriptors: readonly InputDescriptor[],
  inputs: unknown,
  options: ExecuteOptions = {},
  extentGroups?: InputExtentGroups,
): Promise<Tensor[]> {
  let backend: Backend;
  let runOptions: BackendRunOptions;
  try {
    // `unknown`: JS callers pass anything (null, a tensor instead of a list); checkInputs narrows.
    checkInputs(descriptors, inputs);
    backend = resolveBackend(options.backend, options.notes);
    // The GPU backend checks the extents once per new input layout, in the runtime (one
    // implementation, extent-groups.ts); the others are checked here on every call.
    // `extentGroups`: the caller's copy for this fusion (a definition computes it once).
    if (backend.checksInputExtents !== true) checkInputExtents(extentGroups?.fusion === fusion ? extentGroups : inputExtentGroups(fusion), inputs);
    // Fixed shape, no spreads: built on every cached execute.
    runOptions = {
      device: options.device ?? 0,
      dump: options.dump,
      dumpSink: options.dumpSink,
      limits: options.limits,
      onProfile: options.onProfile,
      onPlan: options.onPlan,
      cudaGraph: options.cudaGraph,
      graphKeyedByPointers: options.graphKeyedByPointers,
    };
  } catch (error) {
    return Promise.reject(error as Error);
  }
  const run = runOn(backend, fusion, inputs, runOptions);
  const auto = options.backend === undefined || options.backend === 'auto';
  if (!auto || backend === referenceBackend) return run;
  const checked: readonly ExecuteInput[] = inputs;
  return run.catch((error: unknown) => {
    // 'auto' promises an answer: a fusion the GPU path cannot schedule or lower yet runs on the
    // reference evaluator instead (explicit 'gpu' reports the error).
    if (!(error instanceof SchedulingError || error instanceof LoweringError)) throw error;
    noteOnce(`gpu-rejected:${error.message}`, `tsfuser: the GPU path cannot run this fusion (${error.message}); using the reference evaluator`, options.notes ?? stderrSink);
    return referenceBackend.run(fusion, checked, runOptions);
  });
}
