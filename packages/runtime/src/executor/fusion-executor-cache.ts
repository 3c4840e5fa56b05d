// FusionExecutorCache: runs a Fusion on a device, compiling as little as possible.
//
// Three levels, as in nvFuser's FusionExecutorCache → FusionKernelRuntime → FusionExecutor:
//   1. input signature (ranks, dtypes, which dims are broadcast/size-1, stride order, alignment
//      class) → a segmentation of the fusion (SegmentPlan);
//   2. per group, the heuristics for the actual sizes → a FusionExecutor keyed by those
//      heuristics minus the grid size (sizes are kernel arguments, so other sizes with the same
//      decisions reuse the same compiled kernel, and the cubin cache makes a second process skip
//      NVRTC);
//   3. an exact-layout memo (sizes, strides, alignment) → the ready launch plan, so a repeated
//      call only packs arguments, allocates outputs from the pool and launches.
// A metadata-only group (scheduler `expr_eval`) launches nothing: its outputs are views
// (sizes, strides, element offset; scheduler's viewLayouts) of the buffers it reads, and a
// fusion output that is such a view aliases the caller's device tensor (a copy when the base is
// a temporary or an intermediate the call frees). A no_op group (every output empty) only
// allocates its outputs. A GEMM (matmul) group is a library call: its cuBLASLt GEMM is
// enqueued on the device's stream between the kernels (library-call-segment.ts); a plan with one
// runs every step on that stream (the GemmLibrary's one workspace serves one stream). An
// attention segment launches its generated flash-attention kernels on that stream too
// (plan/attention-segment.ts, through attention-device.ts).
// With `cudaGraph`, a plan's later calls replay a CUDA graph of its launches (graph-capture.ts).
// Invariant: a launch plan is used only for arguments whose layout key equals the one it was
// built for.

import type { CompiledKernel, GenerateOptions } from '@tsfuser/codegen';
import { printFusion, printMath, type DataType, type Fusion, type Val } from '@tsfuser/fusion-ir';
import { defaultSchedulerRegistry, heuristicParamsToString, materializeStrideOrders, segmentationPlanner, type SchedulerRegistry } from '@tsfuser/scheduler';
import { buildCompilePlan, replaceKernelSegment, type CompilePlan, type PlanSequenceEntry } from '../plan/compile-plan.js';
import type { KernelMemo, KernelSegment } from '../plan/kernel-segment.js';
import { runLibraryCall, type GemmBuffer, type GemmRunner, type LibraryCallContext, type LibraryCallSegment } from '../plan/library-call-segment.js';
import { attentionKernelsToString } from '../plan/attention-segment.js';
import { ExecutorAttentionDevice, runAttentionPlanStep, type AttentionPlanStep } from './attention-device.js';
import { type KernelArgument, type CubinCache, type DeviceContext, type DeviceLayout, type GemmCall, type PreparedLaunch, GemmLibrary, RuntimeUnavailableError, Tensor } from '@tsfuser/device';
import { packStepArguments, planTensor, planView, StepArguments } from './step-arguments.js';
import { ExecutorInputError, InputExtentMismatchError } from '../errors.js';
import { FusionExecutor, type CompileReport } from './fusion-executor.js';
import { denseCopyFusion, denseCopyRegistry } from './dense-copy.js';
import { occupancyLine } from './occupancy-line.js';
import { finishProfile, type FusionProfile, type PendingKernelTiming } from './kernel-profile.js';
import { attentionEntry, kernelEntry, libraryCallEntry, timed } from './profile-timing.js';
import { sideStreamSteps } from './side-stream-steps.js';
import { validateInputLayout } from './input-validation.js';
import { LayoutKeyMemo, signatureKey } from './cache-keys.js';
import { releasePlanGraphs, replayCached, runGraphed, type GraphRun, type PlanGraph, type PointerGraph } from './graph-capture.js';
import { bindArguments, type PlanRef, type PlanView } from './launch-planner.js';
import { inputExtentGroups, inputExtentMismatch, type InputExtentGroups } from './extent-groups.js';
import { expandSizeMismatch, keptExpandDims, type KeptExpandDim } from './expand-check.js';
import type { TensorLayout } from './output-allocation.js';
import { plannedArguments, runtimeInfoFor, schedulerDevice, type ExecutorArgument } from './runtime-info.js';
import type { SegmentPlan, Segmenter } from '@tsfuser/scheduler';

/** Dump names the executor prints (nvFuser's names). */
export type ExecutorDump =
  | 'fusion_ir_presched'
  | 'segmented_fusion'
  | 'fusion_ir_segments'
  | 'scheduler_params'
  | 'fusion_ir'
  | 'fusion_ir_math'
  | 'kernel_ir'
  | 'cuda_kernel'
  | 'launch_param'
  | 'occupancy';

export interface ExecutorCacheOptions {
  cubinCache?: CubinCache;
  registry?: SchedulerRegistry;
  segmenter?: Segmenter;
  dump?: ReadonlySet<string>;
  /** Where dumps go (default: stdout). */
  dumpSink?: (text: string) => void;
  /** Names kernels `nvfuser_<sched>_f<fusionId>_c…`. */
  fusionId?: number;
  /** Fill every output and intermediate with 0xFF bytes before launching (tests). */
  poisonOutputs?: boolean;
  /**
   * Run segments that share no data with the others on the device's side stream, concurrently
   * with the rest (side-stream-steps.ts says which). Default true.
   */
  concurrentSegments?: boolean;
  /** The GEMM library of library-call segments instead of the device's cuBLASLt (tests: a recording double). */
  gemm?: GemmRunner;
  /**
   * Replay each launch plan as a CUDA graph from its second call on (graph-capture.ts: static
   * inputs, outputs copied out; plans that cannot be captured run normally, lastGraphRun() says
   * why). Default false; runFusion's `cudaGraph` overrides it per call.
   */
  cudaGraph?: boolean;
  /** With cudaGraph: return views of the graph's static outputs instead of copies (the next replay overwrites them). */
  graphStaticOutputs?: boolean;
  /**
   * With cudaGraph: capture each plan first on the call's own input and output addresses, and
   * replay that graph with no copy when a later call passes tensors at the same data pointers
   * (same scalars) and every output block of the capture is free in the pool again (the caller
   * disposed the last outputs), as torch.compile's CUDA-graph trees key static inputs by data
   * pointer; any other call replays the static-copy graph. Default false; runFusion's
   * `graphKeyedByPointers` overrides it per call.
   */
  graphKeyedByPointers?: boolean;
}

/** Options of one runFusion call. */
export interface RunFusionOptions {
  /** Time every kernel of this call with CUDA events (read it with lastProfile()); such a call runs without a graph. */
  profile?: boolean;
  /** Replay the plan as a CUDA graph (the cache's cudaGraph option for this call). */
  cudaGraph?: boolean;
  /** With cudaGraph: the cache's graphKeyedByPointers option for this call. */
  graphKeyedByPointers?: boolean;
}


export interface ExecutorCacheStats {
  calls: number;
  plans: number;
  launchPlans: number;
  kernels: number;
  /** Kernel launches enqueued on the side stream (segments run concurrently with the others). */
  sideLaunches: number;
  /** CUDA graphs captured, and calls that replayed one (cudaGraph). */
  graphCaptures: number;
  graphReplays: number;
  /** How each kernel's cubin was obtained. */
  compiles: CompileReport[];
}

type Ref = PlanRef;
type View = PlanView;

interface Step {
  executor: FusionExecutor;
  grid: [number, number, number];
  refs: Ref[];
  /** Enqueued on the device's side stream (side-stream-steps.ts). */
  side: boolean;
  /** How many of `refs` are the group's inputs (the rest are its outputs). */
  inputCount: number;
  /** The launch's argument list, one per ref, filled by a call that packs every slot (execute). */
  values: KernelArgument[];
  /** The step's argument buffer: packed in full once, then only pointers and scalars rewritten (step-arguments.ts). */
  arguments: StepArguments;
  /** Every scalar parameter reads a fusion input, so a call can rewrite it without the full pack. */
  rewritable: boolean;
  /** The addon's record of this step's launch (made by its first unprofiled call; null: launched with launchPacked). */
  prepared: PreparedLaunch | null | undefined;
}

/** A GEMM segment's call: its segment and the refs of its inputs, then its outputs. */
interface GemmStep {
  segment: LibraryCallSegment;
  refs: Ref[];
  inputCount: number;
}

interface LaunchPlan {
  /** What was planned and generated for these layouts, as it runs (rescheduled segments included). */
  compiled: CompilePlan;
  steps: Step[];
  gemmSteps: GemmStep[];
  attentionSteps: AttentionPlanStep[];
  /** Kernel steps and GEMM calls in execution order (the compile plan's sequence). */
  sequence: PlanSequenceEntry[];
  buffers: { dtype: DataType; layout: TensorLayout }[];
  /** Each buffer's device layout, checked once: a call allocates from it without validating or copying sizes. */
  bufferLayouts: DeviceLayout[];
  views: View[];
  outputs: Ref[];
  /** Buffers that are fusion outputs (the rest are intermediates, freed after the call). */
  isOutput: boolean[];
  /** With cudaGraph, after its first call: the captured graph, or why the plan is not captured. */
  graph?: PlanGraph;
  /** With cudaGraph and graphKeyedByPointers: the graph captured at a call's own addresses. */
  pointerGraph?: PointerGraph;
  /** Some step runs on the side stream (set once the plan is built). */
  hasSideSteps: boolean;
}

/** One input signature: its segmentation, the kernels generated for it, and those loaded. */
interface KernelRuntime {
  runtimeId: number;
  segments: SegmentPlan;
  memo: KernelMemo;
  /** By the planned kernel: the executor loaded for it and the segment it runs (a rescheduled one, after the occupancy check). */
  loaded: Map<CompiledKernel, { executor: FusionExecutor; segment: KernelSegment }>;
}

/** The temporaries of a call that copied no input to the device. */
const NO_TENSORS: ReadonlySet<Tensor> = new Set();

export class FusionExecutorCache {
  readonly stats: ExecutorCacheStats = { calls: 0, plans: 0, launchPlans: 0, kernels: 0, sideLaunches: 0, graphCaptures: 0, graphReplays: 0, compiles: [] };
  private readonly runtimes = new Map<string, KernelRuntime>();
  private readonly launchPlans = new Map<string, LaunchPlan>();
  private readonly registry: SchedulerRegistry;
  private readonly segmenter: Segmenter;
  private dump: ReadonlySet<string>;
  private sink: (text: string) => void;
  private profile: FusionProfile | null = null;
  private graphRun: GraphRun | null = null;
  private lastCompiled: CompilePlan | null = null;
  /** The fusion's input dim groups (extent-groups.ts), computed on the first new layout. */
  private extentGroups: InputExtentGroups | null = null;
  /** Expands of kept dims to symbolic sizes (expand-check.ts), checked on each new layout. */
  private keptExpands: KeptExpandDim[] | null = null;
  /** cuBLASLt on this device, made at the first GEMM segment (or why it is unavailable). */
  private gemm: LibraryCallContext['gemm'] | undefined;
  /** The attention kernels loaded on this device, made at the first attention segment. */
  private attention: ExecutorAttentionDevice | undefined;
  /** Copy kernels of GEMM operands cuBLASLt cannot read in place, by dtype, source and dense sizes. */
  private readonly denseCopies = new Map<string, FusionExecutorCache>();

  /** The fusion as the GPU path runs it: stride orders only pointwise kernels write get a copy (materializeStrideOrders). */
  readonly fusion: Fusion;
  /** Each tensor input's rank, computed once (checked on every call). */
  private readonly inputRanks: readonly number[];
  private readonly layoutKeys: LayoutKeyMemo;

  constructor(
    fusion: Fusion,
    readonly device: DeviceContext,
    private readonly options: ExecutorCacheOptions = {},
  ) {
    this.fusion = materializeStrideOrders(fusion);
    this.layoutKeys = new LayoutKeyMemo(this.fusion);
    this.inputRanks = this.fusion.inputs.map((v) => (v.kind === 'tensorView' ? v.domain.logicalNoReductions().length : 0));
    this.registry = options.registry ?? defaultSchedulerRegistry();
    this.segmenter = options.segmenter ?? segmentationPlanner(this.registry);
    this.dump = options.dump ?? new Set();
    this.sink = options.dumpSink ?? ((t) => process.stdout.write(t));
  }

  /**
   * The compile plan the last runFusion ran (segments, schedulers, parameters, scheduled
   * fusions, kernels, launches): what the dumps, --explain and fd.lastCudaCode read. Null
   * before the first call.
   */
  lastPlan(): CompilePlan | null {
    return this.lastCompiled;
  }

  /** The kernel times of the last runFusion called with { profile: true }; null otherwise. */
  lastProfile(): FusionProfile | null {
    return this.profile;
  }

  /** How the last runFusion with cudaGraph on ran (null: the last call had it off). */
  lastGraphRun(): GraphRun | null {
    return this.graphRun;
  }

  /** Destroys every captured graph and frees what it owned; the next call of each plan captures again. */
  releaseGraphs(): void {
    for (const plan of this.launchPlans.values()) releasePlanGraphs(plan);
  }

  /** Which compile-stage dumps later compilations print, and where. */
  setDumps(dump: ReadonlySet<string>, sink?: (text: string) => void): void {
    this.dump = dump;
    if (sink !== undefined) this.sink = sink;
  }

  /** Runs the fusion; returns one new device tensor per fusion output (the caller disposes them). */
  runFusion(args: readonly ExecutorArgument[], options: RunFusionOptions = {}): Tensor[] {
    const profiled = options.profile === true;
    const started = profiled ? performance.now() : 0;
    this.stats.calls += 1;
    this.profile = null;
    this.graphRun = null;
    const { fusion } = this;
    if (args.length !== fusion.inputs.length) {
      throw new ExecutorInputError(`expected ${fusion.inputs.length} inputs, got ${args.length}`);
    }
    let temporaries: Tensor[] | null = null;
    try {
      // Inputs already on this device are used as given: the array is copied only when a host
      // input is (the cached path allocates nothing here).
      let device = args;
      for (let i = 0; i < args.length; i += 1) {
        const a = args[i] as ExecutorArgument;
        const on = this.onDevice(a, i);
        // Object.is: a NaN scalar argument is returned as is, and NaN !== NaN.
        if (Object.is(on, a)) continue;
        temporaries ??= [];
        temporaries.push(on as Tensor);
        if (device === args) device = [...args];
        (device as ExecutorArgument[])[i] = on;
      }
      const key = this.layoutKeys.keyOf(device);
      let plan = this.launchPlans.get(key);
      const fresh = plan === undefined;
      if (plan === undefined) {
        // Layout checks depend only on what the key holds, so they run once per key.
        device.forEach((a, i) => {
          const v = this.fusion.inputs[i] as Val;
          if (a instanceof Tensor && v.kind === 'tensorView') validateInputLayout(i, v, a.sizes, a.strides);
        });
        this.extentGroups ??= inputExtentGroups(fusion);
        const mismatch = inputExtentMismatch(this.extentGroups, (i) => {
          const a = device[i];
          return a instanceof Tensor ? a.sizes : null;
        });
        if (mismatch !== null) throw new InputExtentMismatchError(mismatch.input, mismatch.detail);
        plan = this.buildLaunchPlan(device);
        this.launchPlans.set(key, plan);
      }
      this.lastCompiled = plan.compiled;
      const pending: PendingKernelTiming[] | null = profiled ? [] : null;
      const graph = (options.cudaGraph ?? this.options.cudaGraph) === true;
      const temporarySet: ReadonlySet<Tensor> = temporaries === null ? NO_TENSORS : new Set(temporaries);
      const outputs = graph ? this.runGraphed(plan, device, temporarySet, pending, fresh, options.graphKeyedByPointers ?? this.options.graphKeyedByPointers === true) : this.execute(plan, device, temporarySet, pending);
      if (pending !== null) this.profile = finishProfile(this.options.fusionId ?? 0, pending, performance.now() - started);
      return outputs;
    } finally {
      if (temporaries !== null) for (const t of temporaries) t.dispose();
    }
  }

  /** The cudaGraph path (graph-capture.ts's runGraphed), recording how the call ran. */
  private runGraphed(plan: LaunchPlan, args: readonly ExecutorArgument[], temporaries: ReadonlySet<Tensor>, pending: PendingKernelTiming[] | null, fresh: boolean, keyedByPointers: boolean): Tensor[] {
    const staticOutputs = this.options.graphStaticOutputs === true;
    // A replay builds nothing for the call (no options object, no closure): replayCached first.
    const { outputs, run } = (!fresh && pending === null ? replayCached(plan, this.device, args, staticOutputs, keyedByPointers) : null) ??
      runGraphed(plan, args, {
        device: this.device,
        fresh,
        profiled: pending !== null,
        poisonOutputs: this.options.poisonOutputs === true,
        staticOutputs,
        keyedByPointers,
        execute: (on, normal) => this.execute(plan, on, normal ? temporaries : NO_TENSORS, normal ? pending : null),
      });
    this.graphRun = run;
    if (run.kind === 'captured') this.stats.graphCaptures += 1;
    if (run.kind === 'replayed') this.stats.graphReplays += 1;
    return outputs;
  }

  /** `a` itself when it can be used as given, else its device copy (which the caller disposes). */
  private onDevice(a: ExecutorArgument, i: number): ExecutorArgument {
    const v = this.fusion.inputs[i] as Val;
    if (v.kind === 'tensorView') {
      if (!(a instanceof Tensor)) throw new ExecutorInputError(`input ${i} (T${v.name}) must be a tensor, got ${typeof a}`);
      if (a.dtype !== v.dtype) throw new ExecutorInputError(`input ${i} (T${v.name}) must be ${v.dtype}, got ${a.dtype}`);
      const rank = this.inputRanks[i] as number;
      if (a.rank !== rank) throw new ExecutorInputError(`input ${i} (T${v.name}) must have rank ${rank}, got sizes [${a.sizes.join(', ')}]`);
      if (a.isDevice) {
        if (a.device !== this.device) throw new ExecutorInputError(`input ${i} (T${v.name}) lives on another device context`);
        return a;
      }
      return a.toDevice(this.device);
    }
    if (a instanceof Tensor) throw new ExecutorInputError(`input ${i} is a scalar, got a tensor`);
    return a;
  }

  private buildLaunchPlan(args: readonly ExecutorArgument[]): LaunchPlan {
    const { fusion } = this;
    const deviceInfo = schedulerDevice(this.device.properties);
    const info = runtimeInfoFor(fusion, args, deviceInfo);
    // The executor path's one extent check: segmentation and the compile plan reuse these bindings.
    const bindings = bindArguments(fusion, info);
    this.keptExpands ??= keptExpandDims(fusion);
    const expandMismatch = expandSizeMismatch(this.keptExpands, bindings);
    if (expandMismatch !== null) throw new ExecutorInputError(expandMismatch);
    const sigKey = signatureKey(info);
    let runtime = this.runtimes.get(sigKey);
    if (runtime === undefined) {
      if (this.dump.has('fusion_ir_presched')) this.sink(`Fusion IR before scheduling:\n${printFusion(fusion)}`);
      const segments = this.segmenter(fusion, info, bindings);
      if (this.dump.has('segmented_fusion') && segments.dumps?.segmentedFusion !== undefined) this.sink(segments.dumps.segmentedFusion);
      if (this.dump.has('fusion_ir_segments') && segments.dumps?.fusionIrSegments !== undefined) this.sink(segments.dumps.fusionIrSegments);
      runtime = { runtimeId: this.stats.plans, segments, memo: new Map(), loaded: new Map() };
      this.runtimes.set(sigKey, runtime);
      this.stats.plans += 1;
    }
    const generate = { fusionId: this.options.fusionId ?? 0, runtimeId: runtime.runtimeId };
    let compiled = buildCompilePlan(fusion, plannedArguments(args), deviceInfo, info, runtime.segments, { registry: this.registry, memo: runtime.memo, generate, bindings });
    const kernelRuntime = runtime;
    const executors = compiled.steps.map((step) => {
      const { executor, segment } = this.executorFor(kernelRuntime, step.kernel, generate);
      if (segment !== step.kernel) compiled = replaceKernelSegment(compiled, step.kernel, segment);
      if (this.dump.has('launch_param')) this.sink(segment.kernel.dumps.launchParams);
      return executor;
    });
    if (this.dump.has('scheduler_params')) for (const call of compiled.libraryCalls) this.sink(heuristicParamsToString(call.kernel.params));
    if (this.dump.has('scheduler_params')) for (const call of compiled.attentionCalls) this.sink(heuristicParamsToString(call.kernel.params) + attentionKernelsToString(call.kernel));
    if (this.dump.has('cuda_kernel')) for (const call of compiled.attentionCalls) for (const k of call.kernel.kernels) this.sink(k.source);
    const plan: LaunchPlan = {
      compiled,
      steps: compiled.steps.map((s, i) => {
        const executor = executors[i] as FusionExecutor;
        const stepArguments = new StepArguments(executor.parameters, executor.kernel.args);
        const rewritable = s.refs.every((r, k) => !stepArguments.isScalar(k) || r.kind === 'arg');
        return { executor, grid: s.kernel.grid, refs: s.refs, side: false, inputCount: s.inputCount, values: new Array<KernelArgument>(s.refs.length), arguments: stepArguments, rewritable, prepared: undefined };
      }),
      gemmSteps: compiled.libraryCalls.map((c) => ({ segment: c.kernel, refs: c.refs, inputCount: c.inputCount })),
      attentionSteps: compiled.attentionCalls.map((c) => ({ segment: c.kernel, refs: c.refs, inputCount: c.inputCount })),
      sequence: compiled.sequence,
      buffers: compiled.buffers,
      bufferLayouts: compiled.buffers.map((b) => Tensor.deviceLayout(b.dtype, b.layout.sizes, b.layout.strides)),
      views: compiled.views,
      outputs: compiled.outputs,
      isOutput: compiled.isOutput,
      hasSideSteps: false,
    };
    // GEMM and attention calls run on the main stream between the kernels: the side stream's
    // concurrency analysis does not see them, so a plan with one runs everything on the main stream.
    if (this.options.concurrentSegments !== false && plan.gemmSteps.length === 0 && plan.attentionSteps.length === 0) {
      // A view reads its base: a step reading a view of a buffer reads that buffer.
      const baseOf = (r: Ref): Ref => (r.kind === 'view' ? (plan.views[r.index] as View).base : r);
      const bufferIndices = (refs: readonly Ref[]): number[] => refs.map(baseOf).flatMap((r) => (r.kind === 'buffer' ? [r.index] : []));
      const side = sideStreamSteps(
        plan.steps.map((s) => {
          return {
            readsBuffers: bufferIndices(s.refs.slice(0, s.inputCount)),
            writesBuffers: bufferIndices(s.refs.slice(s.inputCount)),
            gridSynchronizing: s.executor.residentBlocksPerSm() !== null,
          };
        }),
      );
      plan.steps.forEach((s, i) => {
        s.side = side[i] === true;
      });
      plan.hasSideSteps = plan.steps.some((s) => s.side);
    }
    this.stats.launchPlans += 1;
    return plan;
  }

  /**
   * The loaded executor of one planned kernel segment: loaded once per kernel (FusionExecutor.load
   * compiles it and checks its occupancy; the segment it returns is the one that runs), with the
   * compile-stage dumps of each kernel loaded.
   */
  private executorFor(runtime: KernelRuntime, planned: KernelSegment, generate: GenerateOptions): { executor: FusionExecutor; segment: KernelSegment } {
    const known = runtime.loaded.get(planned.kernel);
    // Another size of a kernel rescheduled for occupancy: the rescheduled kernel, with this grid.
    if (known !== undefined) return known.segment.kernel === planned.kernel ? { executor: known.executor, segment: planned } : known;
    const loaded = FusionExecutor.load(this.device, planned, { generate, ...(this.options.cubinCache === undefined ? {} : { cubinCache: this.options.cubinCache }) });
    runtime.loaded.set(planned.kernel, loaded);
    this.stats.kernels += 1;
    this.stats.compiles.push(loaded.executor.report);
    const d = loaded.segment.kernel.dumps;
    if (this.dump.has('scheduler_params')) this.sink(d.schedulerParams);
    if (this.dump.has('fusion_ir')) this.sink(printFusion(loaded.segment.kernel.scheduledFusion, { transforms: true }));
    if (this.dump.has('fusion_ir_math')) this.sink(printMath(loaded.segment.kernel.scheduledFusion));
    if (this.dump.has('kernel_ir')) this.sink(d.kernelIr);
    if (this.dump.has('cuda_kernel')) this.sink(d.cuda);
    return loaded;
  }

  /** nvFuser's occupancy line for a launch: resident blocks per SM as the driver computes them. */
  private occupancyText(step: Step): string {
    const { block, sharedMemBytes } = step.executor.kernel.launch;
    const threadsPerBlock = block[0] * block[1] * block[2];
    const p = this.device.properties;
    const blocksPerSm = step.executor.fn.maxActiveBlocksPerSm(threadsPerBlock, sharedMemBytes);
    if (blocksPerSm === null) return `${step.executor.kernel.kernelName}: occupancy: the driver could not tell (an older native addon without occupancy)\n`;
    return occupancyLine({ numSms: p.smCount, blocksPerSm, threadsPerBlock, warpSize: p.warpSize, maxThreadsPerSm: p.maxThreadsPerMultiprocessor });
  }

  /** The device's GemmLibrary, made once; or why cuBLASLt is unavailable. */
  private gemmLibrary(): LibraryCallContext['gemm'] {
    if (this.gemm === undefined && this.options.gemm !== undefined) this.gemm = this.options.gemm;
    if (this.gemm === undefined) {
      try {
        this.gemm = GemmLibrary.create(this.device);
      } catch (error) {
        if (!(error instanceof RuntimeUnavailableError)) throw error;
        this.gemm = { unavailable: error.reason };
      }
    }
    return this.gemm;
  }

  /** Enqueues one GEMM segment on the device's stream, reading and writing the plan's tensors. */
  private runGemm(step: GemmStep, tensorOf: (r: Extract<Ref, { kind: 'arg' | 'buffer' }>) => Tensor, viewOf: (v: View) => Tensor, views: readonly View[]): GemmCall {
    const buffer = (r: Ref): GemmBuffer => {
      const t: unknown = r.kind === 'view' ? viewOf(views[r.index] as View) : tensorOf(r);
      // A scalar input of the group (an extent) has no buffer; the call reads only its tensors.
      return t instanceof Tensor ? { dataPtr: t.dataPtr, sizes: t.sizes, strides: t.strides } : { dataPtr: 0n, sizes: [], strides: [] };
    };
    const inputs = step.refs.slice(0, step.inputCount).map(buffer);
    const outputs = step.refs.slice(step.inputCount).map(buffer);
    const copies: Tensor[] = [];
    const copyDense = (source: GemmBuffer, sizes: readonly number[], input: number): GemmBuffer => {
      const ref = step.refs[input] as Ref;
      const t = ref.kind === 'view' ? viewOf(views[ref.index] as View) : tensorOf(ref);
      const key = `${t.dtype}:${source.sizes.join(',')}:${sizes.join(',')}`;
      let copier = this.denseCopies.get(key);
      if (copier === undefined) {
        copier = new FusionExecutorCache(denseCopyFusion(t.dtype, source.sizes, sizes), this.device, { registry: denseCopyRegistry(), concurrentSegments: false });
        this.denseCopies.set(key, copier);
      }
      const [copy] = copier.runFusion([t]);
      if (copy === undefined) throw new Error('the dense copy made no output');
      copies.push(copy);
      return { dataPtr: copy.dataPtr, sizes: copy.sizes, strides: copy.strides };
    };
    try {
      return runLibraryCall(step.segment, inputs, outputs, { gemm: this.gemmLibrary(), stream: this.device.stream, copyDense });
    } finally {
      // Freed in stream order: the pool hands the memory out again only to later work on this stream.
      for (const c of copies) c.dispose();
    }
  }

  /** The ref readers the library-call, attention and profile paths take (closures made only for those). */
  private static accessors(plan: LaunchPlan, buffers: readonly Tensor[], args: readonly ExecutorArgument[]) {
    const tensorOf = (r: Extract<Ref, { kind: 'arg' | 'buffer' }>): Tensor => planTensor(r, buffers, args);
    const viewOf = (v: View): Tensor => planView(v, buffers, args);
    const tensorAt = (r: Ref): unknown => (r.kind === 'view' ? viewOf(plan.views[r.index] as View) : r.kind === 'buffer' ? buffers[r.index] : args[r.index]);
    return { tensorOf, viewOf, tensorAt };
  }

  /** A fusion output: a buffer; an input or a view aliasing a caller's device tensor; a copy of a view of anything the call frees. */
  private outputOf(plan: LaunchPlan, r: Ref, buffers: readonly Tensor[], args: readonly ExecutorArgument[], temporaries: ReadonlySet<Tensor>): Tensor {
    if (r.kind === 'buffer') return buffers[r.index] as Tensor;
    if (r.kind === 'arg') return (args[r.index] as Tensor).toDevice(this.device);
    const v = plan.views[r.index] as View;
    const view = planView(v, buffers, args);
    const aliases = v.base.kind === 'arg' && !temporaries.has(args[v.base.index] as Tensor);
    return aliases ? view : view.toDevice(this.device);
  }

  /**
   * Runs a launch plan once: allocates its buffers from the pool, launches its steps in order,
   * frees the intermediates. The cached path's loop: no closure unless the plan has library
   * calls, attention or a profile; each kernel step's argument buffer is the step's own, packed
   * once and then only its pointers rewritten (packStep).
   */
  private execute(plan: LaunchPlan, args: readonly ExecutorArgument[], temporaries: ReadonlySet<Tensor>, pending: PendingKernelTiming[] | null): Tensor[] {
    const layouts = plan.bufferLayouts;
    const buffers: Tensor[] = new Array<Tensor>(layouts.length);
    for (let i = 0; i < layouts.length; i += 1) buffers[i] = Tensor.emptyDeviceOf(this.device, layouts[i] as DeviceLayout);
    if (this.options.poisonOutputs === true) for (const b of buffers) b.poison();
    // Fork before the first launch, so the side stream's kernels overlap the main stream's.
    const sideStream = plan.hasSideSteps ? this.device.forkSide() : undefined;
    let joined = false;
    try {
      for (const entry of plan.sequence) {
        // One case per segment kind that runs (views and empty segments launch nothing: they
        // are resolved when their readers' arguments are bound).
        switch (entry.kind) {
          case 'libraryCall': {
            const gemm = plan.gemmSteps[entry.index] as GemmStep;
            const { tensorOf, viewOf, tensorAt } = FusionExecutorCache.accessors(plan, buffers, args);
            // the call's own report (a no-algorithm fallback) goes into its profile entry
            let call: GemmCall | undefined;
            timed(this.device, pending, undefined, () => libraryCallEntry(gemm.segment, gemm, tensorAt, call), () => {
              call = this.runGemm(gemm, tensorOf, viewOf, plan.views);
            });
            break;
          }
          case 'attention': {
            const call = plan.attentionSteps[entry.index] as AttentionPlanStep;
            const attention = (this.attention ??= new ExecutorAttentionDevice(this.device, this.options.cubinCache));
            const { tensorAt } = FusionExecutorCache.accessors(plan, buffers, args);
            timed(this.device, pending, undefined, () => attentionEntry(call.segment, call, tensorAt), () => runAttentionPlanStep(call, tensorAt, attention));
            break;
          }
          case 'kernel': {
            const step = plan.steps[entry.index] as Step;
            const stream = step.side ? sideStream : undefined;
            if (this.dump.has('occupancy')) this.sink(this.occupancyText(step));
            packStepArguments(step, plan.views, buffers, args, pending !== null);
            const bytes = step.arguments.bytes;
            // Unprofiled (the cached path): launched directly, no description closure, through the
            // addon's prepared launch (the grid and stream of a step never change).
            if (pending === null) {
              let prepared = step.prepared;
              if (prepared === undefined) prepared = step.prepared = step.executor.prepareLaunch(bytes, step.grid, stream);
              if (prepared !== null) prepared.launch(bytes);
              else step.executor.launchPacked(bytes, step.grid, stream);
            } else {
              const { tensorAt } = FusionExecutorCache.accessors(plan, buffers, args);
              timed(this.device, pending, stream, () => kernelEntry(step.executor, step.grid, plan.compiled.steps[entry.index]?.groupId ?? -1, stream !== undefined, step, tensorAt), () => step.executor.launchPacked(bytes, step.grid, stream));
            }
            if (stream !== undefined) this.stats.sideLaunches += 1;
            // The buffer holds the pointers now: drop the references a full pack listed, so the
            // list keeps no tensor of this call alive (an undisposed output stays collectable).
            const values = step.values;
            if (values[0] !== 0) for (let k = 0; k < values.length; k += 1) values[k] = 0;
            break;
          }
          default:
            throw new Error(`unhandled plan sequence entry ${JSON.stringify(entry satisfies never)}`);
        }
      }
      // Copies of views read what the side stream wrote: join first.
      if (sideStream !== undefined && plan.views.length > 0) {
        this.device.joinSide();
        joined = true;
      }
      const outputs: Tensor[] = new Array<Tensor>(plan.outputs.length);
      for (let i = 0; i < plan.outputs.length; i += 1) outputs[i] = this.outputOf(plan, plan.outputs[i] as Ref, buffers, args, temporaries);
      return outputs;
    } finally {
      // The main stream waits for the side stream: callers (and freed intermediates reused from
      // the pool) see every kernel of the call finished in stream order.
      if (sideStream !== undefined && !joined) this.device.joinSide();
      for (let i = 0; i < buffers.length; i += 1) if (plan.isOutput[i] !== true) (buffers[i] as Tensor).dispose();
    }
  }
}
