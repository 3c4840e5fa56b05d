// The compile plan: everything tsfuser decides and generates for one fusion and one set of
// argument layouts, made without a device from the fusion, the arguments' layouts and the
// device's properties — the segmentation, then per segment its kind (segmentKindOf), scheduler,
// parameters (computed once), scheduled fusion, generated code and launch, and the launch
// layout (steps, buffers, views, outputs). The executor cache runs it (loading each kernel on
// the device); the dumps, `--explain` and fd.lastCudaCode read the plan that ran.
// A GEMM (matmul) segment is a library call (library-call-segment.ts): no kernel; it is a step
// of `libraryCalls`, and `sequence` orders kernel steps and library calls as the groups run.
// An attention segment (one sdpfa_fwd / sdpfa_bwd, attention-segment.ts) is a step of
// `attentionCalls`: codegen's flash-attention kernels generated from its params, in `sequence` too.
// Invariant: `segments[i]` is segment i of `segmentation`; every step's kernel is one of the
// plan's kernel segments, or a greedy scatter's initializing copy (a generated kernel step of
// the same group, right before it: launch-planner.ts); `sequence` names every step and every
// library call exactly once, in group order.

import type { Fusion } from '@tsfuser/fusion-ir';
import type { GenerateOptions } from '@tsfuser/codegen';
import { segmentKindOf, type ExtentBindings, type RuntimeInfo, type SchedulerDevice, type SchedulerRegistry, type SchedulerType, type SegmentPlan } from '@tsfuser/scheduler';
import { bindArguments, planLaunch, type LaunchPlanLayout, type PlannedArgument, type PlanStep } from '../executor/launch-planner.js';
import { planKernelSegment, type GeneratedKernelSegment, type GreedyKernelSegment, type KernelMemo, type KernelSegment } from './kernel-segment.js';
import { planLibraryCallSegment, type LibraryCallSegment } from './library-call-segment.js';
import { planAttentionSegment, type AttentionSegment } from './attention-segment.js';

interface SegmentBase {
  groupId: number;
  /** The runtime info the segment's scheduler saw (its inputs' real layouts and alignments). */
  info: RuntimeInfo;
}

/** A metadata-only segment (expr_eval): its outputs are views of what it reads; no kernel. */
export interface ViewSegment extends SegmentBase {
  kind: 'view';
}

/** A segment whose every output is empty (no_op): its outputs are allocated; nothing launches. */
export interface EmptySegment extends SegmentBase {
  kind: 'empty';
}

/** One segment of a compile plan, by kind (segmentKindOf). */
export type PlanSegment = ViewSegment | EmptySegment | GeneratedKernelSegment | GreedyKernelSegment | LibraryCallSegment | AttentionSegment;

/** What runs next: the kernel step or library call at `index` of its list. */
export type PlanSequenceEntry = { kind: 'kernel'; index: number } | { kind: 'libraryCall'; index: number } | { kind: 'attention'; index: number };

export interface CompilePlan extends LaunchPlanLayout<KernelSegment> {
  /** The fusion as the plan runs it. */
  fusion: Fusion;
  /** The arguments' layouts (and integral scalars' values) the plan was made for. */
  args: readonly PlannedArgument[];
  /** The registry whose schedulers made the plan (their analyses are memoized per scheduler object). */
  registry: SchedulerRegistry;
  /** The top-level runtime info (the arguments' layouts, the device's properties). */
  info: RuntimeInfo;
  segmentation: SegmentPlan;
  /** One per segmentation group, in execution order. */
  segments: PlanSegment[];
  /** The GEMM segments' calls, with the refs of their inputs and outputs (as kernel steps have). */
  libraryCalls: PlanStep<LibraryCallSegment>[];
  /** The attention segments' calls (their generated kernels launch in the call), with their refs. */
  attentionCalls: PlanStep<AttentionSegment>[];
  /** Kernel steps and library calls in execution order. */
  sequence: PlanSequenceEntry[];
}

export interface CompilePlanOptions {
  registry: SchedulerRegistry;
  /** Kernels generated for this input signature before (other sizes, equal parameters). */
  memo?: KernelMemo;
  generate?: GenerateOptions;
  /** The inputs' extents as the caller bound and checked them for `info` (else checked here). */
  bindings?: ExtentBindings;
}

/** The registry's scheduler of `type`, or a clear error for a plan made with another registry. */
function schedulerOf(registry: SchedulerRegistry, type: string, groupId: number): SchedulerRegistry['schedulers'][number] {
  const s = registry.schedulers.find((x) => x.type === type);
  if (s === undefined) throw new Error(`segment ${groupId} was planned for the ${type} scheduler, which the registry does not have`);
  return s;
}

/**
 * The compile plan of `fusion` for `args` on a device with `device`'s properties, from a
 * segmentation made for the same input signature (see the header). No device is touched.
 */
export function buildCompilePlan(fusion: Fusion, args: readonly PlannedArgument[], device: SchedulerDevice, info: RuntimeInfo, segmentation: SegmentPlan, options: CompilePlanOptions): CompilePlan {
  const bindings = options.bindings ?? bindArguments(fusion, info);
  const layout = planLaunch<KernelSegment | LibraryCallSegment | AttentionSegment>(fusion, args, device, segmentation, bindings, options.registry, (groupFusion, groupInfo, groupId, schedulerType, analysis) => {
    const scheduler = schedulerOf(options.registry, schedulerType, groupId);
    // Library-call and attention segments take their parameters from their scheduler through the
    // analysis cache acceptance filled, as kernel segments do: computed once per segment.
    if (segmentKindOf(schedulerType) === 'libraryCall') return { kernel: planLibraryCallSegment(groupFusion, groupInfo, groupId, scheduler, analysis), grid: [0, 0, 0] };
    if (segmentKindOf(schedulerType) === 'attention') return { kernel: planAttentionSegment(groupFusion, groupInfo, groupId, scheduler, analysis), grid: [0, 0, 0] };
    const segment = planKernelSegment(groupFusion, groupInfo, groupId, scheduler, {
      analysis,
      ...(options.memo === undefined ? {} : { memo: options.memo }),
      ...(options.generate === undefined ? {} : { generate: options.generate }),
    });
    return { kernel: segment, grid: segment.grid };
  });
  const steps: PlanStep<KernelSegment>[] = [];
  const libraryCalls: PlanStep<LibraryCallSegment>[] = [];
  const attentionCalls: PlanStep<AttentionSegment>[] = [];
  const sequence: PlanSequenceEntry[] = [];
  for (const step of layout.steps) {
    const k = step.kernel;
    if (k.kind === 'libraryCall') {
      sequence.push({ kind: 'libraryCall', index: libraryCalls.length });
      libraryCalls.push({ ...step, kernel: k });
    } else if (k.kind === 'attention') {
      sequence.push({ kind: 'attention', index: attentionCalls.length });
      attentionCalls.push({ ...step, kernel: k });
    } else {
      sequence.push({ kind: 'kernel', index: steps.length });
      steps.push({ ...step, kernel: k });
    }
  }
  const segments = layout.groups.map((g): PlanSegment => segmentOf(g.groupId, g.schedulerType, g.info, layout.steps));
  return { ...layout, steps, fusion, args, registry: options.registry, info, segmentation, segments, libraryCalls, attentionCalls, sequence };
}

function segmentOf(groupId: number, type: SchedulerType, info: RuntimeInfo, steps: readonly PlanStep<KernelSegment | LibraryCallSegment | AttentionSegment>[]): PlanSegment {
  const own = steps.filter((s) => s.groupId === groupId).map((s) => s.kernel);
  const kind = segmentKindOf(type);
  switch (kind) {
    case 'view':
      return { kind, groupId, info };
    case 'empty':
      return { kind, groupId, info };
    case 'kernel': {
      const k = own[0];
      if (k === undefined || k.kind !== 'kernel' || own.length !== 1) throw new Error(`segment ${groupId} (${type}) did not plan exactly one generated kernel`);
      return k;
    }
    case 'greedy': {
      // The last step of the group; a scatter's initializing copy is the one before it.
      const k = own[own.length - 1];
      if (k === undefined || k.kind !== 'greedy' || own.length > 2) throw new Error(`segment ${groupId} (greedy) did not plan its greedy kernel`);
      return k;
    }
    case 'libraryCall': {
      const k = own[0];
      if (k === undefined || k.kind !== 'libraryCall' || own.length !== 1) throw new Error(`segment ${groupId} (${type}) did not plan exactly one library call`);
      return k;
    }
    case 'attention': {
      const k = own[0];
      if (k === undefined || k.kind !== 'attention' || own.length !== 1) throw new Error(`segment ${groupId} (${type}) did not plan exactly one attention call`);
      return k;
    }
    default: {
      const unreachable: never = kind;
      throw new Error(`unknown segment kind ${String(unreachable)}`);
    }
  }
}

/** The plan with `replacement` where `planned` was (a segment rescheduled after the occupancy check). */
export function replaceKernelSegment(plan: CompilePlan, planned: KernelSegment, replacement: KernelSegment): CompilePlan {
  const swap = <S extends PlanSegment | KernelSegment>(s: S): S | KernelSegment => (s === planned ? replacement : s);
  return {
    ...plan,
    steps: plan.steps.map((step) => (step.kernel === planned ? { ...step, kernel: replacement, grid: replacement.grid } : step)),
    segments: plan.segments.map(swap),
  };
}

/** Every kernel segment of the plan in launch order (a scatter's initializing copy before it). */
export function planKernels(plan: CompilePlan): KernelSegment[] {
  return plan.steps.map((s) => s.kernel);
}
