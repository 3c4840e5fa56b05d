// The seam between a FusionDefinition and whatever runs it. A Backend takes the Fusion and
// validated inputs and returns one tensor per fusion output. The reference backend is the CPU
// evaluator; the GPU backend (gpu-backend.ts) is where the scheduler/codegen/runtime path plugs in.

import type { Fusion } from '@tsfuser/fusion-ir';
import type { Tensor } from '@tsfuser/device';
import type { CompilePlan, FusionProfile } from '@tsfuser/runtime';
import type { AllocationLimits } from '../io/allocation-limits.js';

/** A fusion input value: a tensor (host or device) or a JS scalar. */
export type ExecuteInput = Tensor | number | boolean | bigint;

/**
 * Whether a backend can run here. `summary` is the short form a user reads first ("no CUDA
 * driver"); `reason` the detail (the loader's message).
 */
export type Availability = { available: true } | { available: false; summary: string; reason: string };

export interface BackendRunOptions {
  /** CUDA device ordinal (GPU backends). */
  device: number;
  /** Compile-stage dumps to print (nvFuser names: scheduler_params, cuda_kernel, …). */
  dump?: ReadonlySet<string>;
  /** Where dumps go (default: stdout). */
  dumpSink?: (text: string) => void;
  /** Host allocation limits (the reference backend's working set; default DEFAULT_ALLOCATION_LIMITS). */
  limits?: AllocationLimits;
  /**
   * Time every kernel of this run (CUDA events) and hand the profile here. A backend that
   * launches no kernels (the reference evaluator) never calls it.
   */
  onProfile?: (profile: FusionProfile) => void;
  /**
   * Receives the compile plan this run executed (segments, schedulers, parameters, kernels), from
   * a backend that runs compile plans; what the dumps, --explain and fd.lastCudaCode then read.
   */
  onPlan?: (plan: CompilePlan) => void;
  /**
   * Replay the cached plan as a CUDA graph from its second call on (FusionExecutorCache's
   * cudaGraph option: static inputs, outputs copied out; plans that cannot be captured run
   * normally). Backends without graphs ignore it.
   */
  cudaGraph?: boolean;
  /**
   * With cudaGraph: capture at the call's own addresses and replay that graph with no copy when a
   * later call passes tensors at the same data pointers and disposed its last outputs
   * (FusionExecutorCache's graphKeyedByPointers). Backends without graphs ignore it.
   */
  graphKeyedByPointers?: boolean;
}

export interface Backend {
  readonly name: string;
  /**
   * The backend checks that input dims the fusion treats as one dim have one size itself (the
   * GPU's executor cache: once per new input layout, reported as an InputMismatchError), so
   * execute() does not check them on every call. Absent/false: execute() checks (extent-check.ts).
   */
  readonly checksInputExtents?: boolean;
  availability(): Availability;
  /** Runs `fusion` on inputs already checked against its definition. */
  run(fusion: Fusion, inputs: readonly ExecuteInput[], options: BackendRunOptions): Promise<Tensor[]>;
}

export type BackendName = 'gpu' | 'reference' | 'auto';
