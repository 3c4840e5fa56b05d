// What a FusionDefinition remembers about its executions, for nvFuser's API beyond execute():
// the compile plan the last execute ran (fd.last_cuda_code(), fd.last_scheduled_fusion_ir() read
// its kernels; after an execute that ran none — the reference backend — the plan is built for the
// last inputs' layouts by the same builder the GPU path runs, no GPU needed), the last
// profile (profile=True) and captured debug output (capture_debug_output=True) — both describe
// the last execute only, as nvFuser's — and
// fd.validate(). Aliased outputs are applied here, after the backend ran.
// Invariant: a `last*` answer always describes the most recent successful execute().

import type { CompiledKernel } from '@tsfuser/codegen';
import type { Fusion } from '@tsfuser/fusion-ir';
import type { Tensor } from '@tsfuser/device';
import { planKernels, type CompilePlan, type FusionProfile, type KernelProfile, type PlannedArgument } from '@tsfuser/runtime';
import { DefinitionError, ValidationError } from '../errors.js';
import { inputExtentGroups, type InputExtentGroups } from '../execute/extent-check.js';
import { executeFusion, resolveBackend, type ExecuteInput, type ExecuteOptions } from '../execute/execute.js';
import { applyOutputAliases, detachAliasedInputs, type OutputAlias } from '../execute/output-alias.js';
import { evaluateOnHost } from '../execute/reference-backend.js';
import { checkNoCpuScalarOutputs } from '../execute/cpu-scalar-outputs.js';
import { compareTensors, toleranceFor } from '../io/compare.js';
import type { InputDescriptor } from './fusion-definition.js';
import { dumpsFromEnv } from '../dumps/dump-options.js';
import { printExecuteDumps } from '../dumps/execute-dumps.js';
import { DEFAULT_TARGET, type CompileTarget } from '../dumps/target.js';
import { compileForArguments, plannedInput } from '../dumps/compile-for-target.js';

export interface DefinitionExecuteOptions extends ExecuteOptions {
  /** Record timings of this execute (read them with fd.profile()). */
  profile?: boolean;
  /** Capture the dumps and notes this execute prints (read them with fd.debugOutput()). */
  captureDebugOutput?: boolean;
  /** Target of compile-side dumps on a backend without a GPU (default sm_90 with an H100's properties). */
  target?: CompileTarget;
  /** Directory of the cuda_to_file / ptx / cubin dump files (default: the working directory). */
  dumpDirectory?: string;
  /**
   * Also print the dumps NVFUSER_DUMP / TSFUSER_DUMP name in process.env (default true; the CLI
   * reads its own environment). The environment is read at a definition's first execute and
   * remembered (nvFuser reads its options once per process; reading process.env was a sixth of
   * a cached execute's host time): 'reread' reads it again for this execute and remembers that
   * (a program or test that changes the variables between executes of one definition).
   */
  dumpsFromEnvironment?: boolean | 'reread';
}

/**
 * Timings of one execute (nvFuser's FusionProfile as fd.profile() returns it, camelCase): the
 * host's wall time of the whole execute, and from a backend that launches kernels the device
 * time of each kernel (CUDA events around its launch), its launch shape and bytes moved.
 */
export interface ExecuteProfile {
  backend: string;
  /** Wall time of the whole execute on the host (nvFuser's host_time_ms), compiles included. */
  wallMs: number;
  /**
   * Host time of the backend's executor-cache call without the profile's own event waits
   * (FusionProfile.hostTimeMs); equal to wallMs on a backend that launches no kernels.
   */
  hostTimeMs: number;
  /** Kernels launched; 0 on the reference backend. */
  segments: number;
  /** Sum of the kernels' device times (nvFuser's kernel_time_ms); 0 without kernels. */
  kernelTimeMs: number;
  inputBytes: number;
  outputBytes: number;
  effectiveBandwidthGbs: number;
  /** One entry per launched kernel, in launch order (nvFuser's kernel_profiles). */
  kernelProfiles: KernelProfile[];
  /** Why there are no kernel times (a backend that launches no kernels). */
  note?: string;
}

/** The last execute: its arguments' layouts, its compile target, the plan it ran (null: it ran none) or the one built for it. */
interface LastRun {
  /** Null when the run ran a plan (then `ran` answers and no plan is built for them). */
  args: PlannedArgument[] | null;
  target: CompileTarget;
  ran: CompilePlan | null;
  built: CompilePlan | null;
}

/** What one execute's backend handed back through its callbacks. */
interface RanRecord {
  plan: CompilePlan | null;
  kernels: FusionProfile | null;
}

function writeStdout(t: string): void {
  process.stdout.write(t);
}

const NO_DUMPS: ReadonlySet<string> = Object.freeze(new Set<string>());

export class ExecutionState {
  private lastRun: LastRun | null = null;
  /** The dumps NVFUSER_DUMP / TSFUSER_DUMP named at the first execute (or the last 'reread'); null before. */
  private environmentDumps: ReadonlySet<string> | null = null;
  private profile: ExecuteProfile | null = null;
  private debug: string | null = null;
  /** The fusion's input dim groups (extent-check.ts): fixed once the definition is finalized. */
  private extentGroups: InputExtentGroups | null = null;
  /** The fusion checkNoCpuScalarOutputs last accepted (checked once per finalized fusion). */
  private cpuOutputsChecked: Fusion | null = null;

  async execute(
    fusion: Fusion,
    descriptors: readonly InputDescriptor[],
    aliases: readonly OutputAlias[],
    inputs: readonly ExecuteInput[],
    options: DefinitionExecuteOptions,
    printDefinition?: () => string,
  ): Promise<Tensor[]> {
    if (options.device !== undefined && (!Number.isInteger(options.device) || options.device < 0 || options.device > 255)) {
      throw new DefinitionError(`execute: device must be a CUDA device index in [0, 255], got ${String(options.device)}`);
    }
    const capture = options.captureDebugOutput === true;
    const captured: string[] = [];
    // The GPU executor cache keeps the last sink it was given: name stdout explicitly when not
    // capturing, so a capturing execute does not swallow a later one's dumps.
    const sink = capture ? (t: string): void => void captured.push(t) : (options.dumpSink ?? writeStdout);
    // NVFUSER_DUMP (TSFUSER_DUMP is tsfuser's older name), read once per definition; a call's
    // own dumps are added in a new set, the common case (neither) allocates none.
    const fromEnvironment = options.dumpsFromEnvironment === false ? NO_DUMPS : this.dumpsFromEnvironment(options.dumpsFromEnvironment === 'reread');
    let dump: ReadonlySet<string> = fromEnvironment;
    if (options.dump !== undefined && options.dump.size > 0) dump = new Set([...fromEnvironment, ...options.dump]);
    if (dump.has('python_definition') && printDefinition !== undefined) sink(printDefinition());
    const profiled = options.profile === true;
    const ran: RanRecord = { plan: null, kernels: null };
    // One object literal of fixed shape (no spread of the caller's options, no property added
    // later): this runs on every cached execute, where a spread and a late property were a
    // tenth of the host time (issue 38).
    const runOptions: ExecuteOptions = {
      backend: options.backend,
      device: options.device,
      notes: capture ? (t: string): void => void captured.push(`${t}\n`) : options.notes,
      dump,
      dumpSink: sink,
      limits: options.limits,
      onProfile: profiled ? (p: FusionProfile): void => void (ran.kernels = p) : undefined,
      onPlan: (p: CompilePlan): void => void (ran.plan = p),
      cudaGraph: options.cudaGraph,
      graphKeyedByPointers: options.graphKeyedByPointers,
    };
    const start = profiled ? performance.now() : 0;
    if (this.extentGroups?.fusion !== fusion) this.extentGroups = inputExtentGroups(fusion);
    if (this.cpuOutputsChecked !== fusion) {
      checkNoCpuScalarOutputs(fusion, descriptors);
      this.cpuOutputsChecked = fusion;
    }
    const outputs = await executeFusion(fusion, descriptors, inputs, runOptions, this.extentGroups);
    const wallMs = profiled ? performance.now() - start : 0;
    if (dump.size > 0) {
      const backend = resolveBackend(runOptions.backend, () => undefined);
      printExecuteDumps(fusion, inputs, backend, dump, sink, {
        device: options.device ?? 0,
        ran: ran.plan,
        ...(options.target === undefined ? {} : { target: options.target }),
        ...(options.dumpDirectory === undefined ? {} : { directory: options.dumpDirectory }),
      });
    }
    const result = applyOutputAliases(fusion, outputs, inputs, aliases);
    // The argument layouts only serve a plan built later (lastPlan() after a run that ran none):
    // a run with a plan keeps the inputs' layouts unread, and the record of a cached execute
    // that ran the same plan as the last one is kept as it is.
    const target = options.target ?? DEFAULT_TARGET;
    const last = this.lastRun;
    if (ran.plan === null || last === null || last.ran !== ran.plan || last.target !== target) {
      this.lastRun = { args: ran.plan === null ? inputs.map(plannedInput) : null, target, ran: ran.plan, built: null };
    }
    this.profile = null;
    this.debug = capture ? captured.join('') : null;
    if (profiled) {
      const backend = resolveBackend(runOptions.backend, () => undefined).name;
      this.profile = profileOf(backend, wallMs, ran.kernels);
    }
    return result;
  }

  /**
   * The dumps the environment names, read at the first call (or again with `reread`) and
   * remembered. A bad name throws on every execute until the variable is fixed (nothing is remembered).
   */
  private dumpsFromEnvironment(reread: boolean): ReadonlySet<string> {
    if (this.environmentDumps === null || reread) {
      const parsed = dumpsFromEnv(process.env);
      this.environmentDumps = parsed.size === 0 ? NO_DUMPS : parsed;
    }
    return this.environmentDumps;
  }

  async validate(
    fusion: Fusion,
    descriptors: readonly InputDescriptor[],
    aliases: readonly OutputAlias[],
    inputs: readonly ExecuteInput[],
    expected: readonly Tensor[] | undefined,
    options: DefinitionExecuteOptions,
  ): Promise<void> {
    // The reference is computed before execute() writes any aliased input.
    const reference = expected ?? this.referenceOutputs(fusion, aliases, inputs);
    const actual = await this.execute(fusion, descriptors, aliases, inputs, options);
    if (reference.length !== actual.length) {
      throw new ValidationError(Math.min(reference.length, actual.length), `the fusion returns ${actual.length} outputs but ${reference.length} references were given`);
    }
    actual.forEach((t, i) => {
      const want = (reference[i] as Tensor).toHost();
      const got = t.toHost();
      const r = compareTensors(got, want, toleranceFor(want.dtype));
      if (!r.ok) throw new ValidationError(i, `differs from the reference: ${r.reason}${r.mismatch === undefined ? '' : ` (first at ${JSON.stringify(r.mismatch)})`}`);
    });
  }

  /**
   * The compile plan of the last execute: the one it ran, or (nothing ran one: the reference
   * backend) the plan the GPU path's builder makes for its inputs' layouts, made once.
   */
  lastPlan(fusion: Fusion, what: string): CompilePlan {
    const run = this.lastRun;
    if (run === null) throw new DefinitionError(`${what}: no execute() yet; nvFuser's last_* calls describe the last execution`);
    if (run.ran !== null) return run.ran;
    if (run.built === null) {
      // args are kept whenever no plan ran (execute above).
      const args = run.args ?? [];
      try {
        run.built = compileForArguments(fusion, args, run.target).compiled;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new DefinitionError(`${what}: the GPU path does not compile the fusion for the last inputs: ${message}`);
      }
    }
    return run.built;
  }

  /** The compile plan the last execute ran (null: none yet, or it ran on a backend without plans). */
  lastRanPlan(): CompilePlan | null {
    return this.lastRun?.ran ?? null;
  }

  /** The kernels of the last execute's plan, in launch order (at least one). */
  lastKernels(fusion: Fusion, what: string): CompiledKernel[] {
    const kernels = planKernels(this.lastPlan(fusion, what)).map((s) => s.kernel);
    if (kernels.length === 0) throw new DefinitionError(`${what}: the last execute launched no kernel (every output is a view of an input, or empty)`);
    return kernels;
  }

  lastProfile(): ExecuteProfile {
    if (this.profile === null) throw new DefinitionError('profile: the last execute() was not called with { profile: true }');
    return this.profile;
  }

  /** What the last execute captured; null when it was not called with captureDebugOutput (nvFuser's None). */
  lastDebugOutput(): string | null {
    return this.debug;
  }

  /**
   * What execute() returns, from the reference evaluator, writing no caller's input: aliased
   * inputs are evaluated and written as host copies (an aliased input returned holds its new values).
   */
  referenceOutputs(fusion: Fusion, aliases: readonly OutputAlias[], inputs: readonly ExecuteInput[]): Tensor[] {
    const detached = detachAliasedInputs(inputs, aliases);
    return applyOutputAliases(fusion, evaluateOnHost(fusion, detached), detached, aliases);
  }
}

/** The execute's profile from the backend's kernel profile (null: the backend launched no kernels). */
function profileOf(backend: string, wallMs: number, kernels: FusionProfile | null): ExecuteProfile {
  if (kernels === null) {
    return {
      backend,
      wallMs,
      hostTimeMs: wallMs,
      segments: 0,
      kernelTimeMs: 0,
      inputBytes: 0,
      outputBytes: 0,
      effectiveBandwidthGbs: 0,
      kernelProfiles: [],
      note: `the ${backend} backend launched no kernels; wallMs covers the whole execute`,
    };
  }
  const { segments, kernelTimeMs, inputBytes, outputBytes, effectiveBandwidthGbs, hostTimeMs, kernelProfiles } = kernels;
  return { backend, wallMs, hostTimeMs, segments, kernelTimeMs, inputBytes, outputBytes, effectiveBandwidthGbs, kernelProfiles };
}
