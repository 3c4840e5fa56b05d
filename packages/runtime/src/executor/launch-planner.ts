// Launch planning, the device-free half of FusionExecutorCache.buildLaunchPlan: for one
// segmentation and one set of argument layouts, which segment becomes a kernel (and with which
// runtime info its scheduler sees), which is a metadata-only view (expr_eval) or has nothing to
// do (no_op), and where every intermediate and output lives (buffers with their layouts, views
// with their offsets). Kernels are obtained through a callback, so the GPU executor cache
// (compiles and loads FusionExecutors) and tsfuser's compile-for-a-target dumps (codegen only,
// no GPU) walk the same decisions.
// A scatter segment (greedy: scatter / index_put_accumulate) writes into a copy of its input:
// its output buffer is filled by a pointwise copy kernel (scatter-copy.ts), planned as a step of
// the same group right before the scatter kernel, as nvFuser initializes a scatter's output.
// An expr_eval group whose reshape no view expresses for the real layouts (the segmentation
// assumed dense intermediates) becomes a kernel when a kernel scheduler takes it, else views with
// a dense pointwise copy of that reshape's input first (steps of the group), as torch.reshape
// copies what it cannot view.
// Invariant: every group input is resolved to an argument, a buffer or a view made by an earlier
// group; a kernel group's info describes exactly the layouts and alignments its inputs have.

import { contiguousStrides, dataTypeSize, type DataType, type Fusion, type TensorView, type Val } from '@tsfuser/fusion-ir';
import {
  bindExtents,
  HeuristicDataCache,
  runtimeInfoOf,
  viewLayouts,
  type InputLayout,
  type MaterializeCopy,
  type ViewLayout,
  type SchedulerDevice,
  type ExtentBindings,
  type RuntimeInfo,
  type SchedulerRegistry,
  type SchedulerType,
} from '@tsfuser/scheduler';
import { ExecutorInputError } from '../errors.js';
import { outputLayout, type TensorLayout } from './output-allocation.js';
import { scatterCopyFusion, scatterCopyStep } from './scatter-copy.js';
import type { SegmentPlan, SegmentPlanGroup } from '@tsfuser/scheduler';

/** What a plan knows of one fusion argument: a tensor's layout and pointer alignment, or a scalar. */
/** An argument as the planner sees it: the schedulers' InputLayout. */
export type PlannedArgument = InputLayout;

export type PlanRef = { kind: 'arg'; index: number } | { kind: 'buffer'; index: number } | { kind: 'view'; index: number };

/** A view made by an expr_eval group: `base`'s memory read with this layout from element `offset`. */
export interface PlanView {
  base: Extract<PlanRef, { kind: 'arg' | 'buffer' }>;
  layout: TensorLayout;
  offset: number;
}

export interface PlanStep<K> {
  kernel: K;
  groupId: number;
  grid: [number, number, number];
  /** The group's inputs, then its outputs. */
  refs: PlanRef[];
  /** How many of `refs` are the group's inputs. */
  inputCount: number;
}

/** What each segment became, in execution order. */
export interface PlannedGroup {
  groupId: number;
  schedulerType: SchedulerType;
  /** The runtime info the group's scheduler saw (its inputs' real layouts and alignments). */
  info: RuntimeInfo;
  /**
   * expr_eval only: the tensors copied densely (a pointwise copy kernel each, steps of this
   * group) because a reshape of them has no view for these layouts, as torch.reshape copies.
   */
  reshapeCopies?: { tensor: string; reason: string }[];
}

export interface LaunchPlanLayout<K> {
  groups: PlannedGroup[];
  steps: PlanStep<K>[];
  buffers: { dtype: DataType; layout: TensorLayout }[];
  views: PlanView[];
  outputs: PlanRef[];
  /** Buffers that are fusion outputs (the rest are intermediates, freed after the call). */
  isOutput: boolean[];
}

/**
 * Makes (or finds) the kernel of one group and says the grid it launches with; `schedulerType`
 * is the scheduler the segmentation plan chose for the group (the kernel is made with it: the
 * choice is not made again), `analysis` what its acceptance computed (HeuristicDataCache.for
 * reuses it when `info` equals the info the segmenter saw: heuristics and schedule made once).
 */
export type GroupKernelPlanner<K> = (
  fusion: Fusion,
  info: RuntimeInfo,
  groupId: number,
  schedulerType: SchedulerType,
  analysis?: HeuristicDataCache,
) => { kernel: K; grid: [number, number, number] };

/** Binds the fusion's extents to the arguments' sizes; a mismatch is an ExecutorInputError. */
export function bindArguments(fusion: Fusion, info: RuntimeInfo): ExtentBindings {
  try {
    return bindExtents(fusion, info);
  } catch (error) {
    throw new ExecutorInputError(error instanceof Error ? error.message : String(error));
  }
}

export function planLaunch<K>(
  fusion: Fusion,
  args: readonly PlannedArgument[],
  device: SchedulerDevice,
  segments: SegmentPlan,
  bindings: ExtentBindings,
  registry: SchedulerRegistry,
  kernelFor: GroupKernelPlanner<K>,
): LaunchPlanLayout<K> {
  const refOf = new Map<Val, PlanRef>();
  fusion.inputs.forEach((v, index) => refOf.set(v, { kind: 'arg', index }));
  const plan: LaunchPlanLayout<K> = { groups: [], steps: [], buffers: [], views: [], outputs: [], isOutput: [] };
  const layoutOf = (ref: PlanRef): TensorLayout | null => {
    if (ref.kind === 'buffer') return (plan.buffers[ref.index] as LaunchPlanLayout<K>['buffers'][number]).layout;
    if (ref.kind === 'view') return (plan.views[ref.index] as PlanView).layout;
    const a = args[ref.index];
    return a !== undefined && a.kind === 'tensor' ? { sizes: [...a.sizes], strides: [...a.strides] } : null;
  };
  // Buffers are allocated 256-byte aligned; a view is as aligned as its base and offset allow.
  const alignmentOf = (ref: PlanRef, dtype: DataType): number => {
    if (ref.kind === 'buffer') return 256;
    if (ref.kind === 'arg') {
      const a = args[ref.index];
      return a !== undefined && a.kind === 'tensor' ? a.alignment : 256;
    }
    const v = plan.views[ref.index] as PlanView;
    const offsetBytes = v.offset * dataTypeSize(dtype);
    return Math.min(alignmentOf(v.base, dtype), offsetBytes === 0 ? 256 : largestPowerOfTwoDividing(offsetBytes));
  };
  segments.groups.forEach((group, groupId) => {
    const refs: PlanRef[] = group.inputs.map((v) => {
      const r = refOf.get(v);
      if (r === undefined) throw new Error(`segment ${groupId} reads T${v.name} before any segment produced it`);
      return r;
    });
    // The segment's inputs as laid out when it runs: arguments, buffers, views (one builder).
    const groupInfo = runtimeInfoOf(
      group.fusion,
      group.fusion.inputs.map((gv, i): PlannedArgument => {
        const ref = refs[i] as PlanRef;
        const layout = layoutOf(ref);
        if (gv.kind === 'tensorView' && layout !== null) return { kind: 'tensor', sizes: layout.sizes, strides: layout.strides, alignment: alignmentOf(ref, gv.dtype) };
        return ref.kind === 'arg' ? (args[ref.index] ?? { kind: 'scalar' }) : { kind: 'scalar' };
      }),
      device,
    );
    let kind = group.schedulerType ?? registry.pick(group.fusion, groupInfo).scheduler.type;
    if (kind === 'expr_eval') {
      const views = viewsOf(group, groupInfo);
      if (!(views instanceof Error)) {
        plan.groups.push({ groupId, schedulerType: kind, info: groupInfo });
        planViews(group, views, refs, refOf, plan, groupId);
        return;
      }
      // A reshape no view expresses for these layouts (the segmentation assumed dense
      // intermediates): a kernel computing the group where one accepts it, else a dense copy of
      // the reshape's input viewed as the reshape (torch.reshape semantics either way).
      const picked = copyingScheduler(group, groupInfo, registry);
      if (picked === null) {
        if (planReshapeCopies(group, groupInfo, refs, refOf, plan, groupId, kernelFor, alignmentOf)) return;
        throw new ExecutorInputError(`segment ${groupId} (expr_eval): ${views.message}`);
      }
      kind = picked;
    }
    plan.groups.push({ groupId, schedulerType: kind, info: groupInfo });
    for (const out of group.outputs) {
      if (refOf.has(out)) continue;
      if (out.kind !== 'tensorView') throw new Error(`segment ${groupId} output ${out.name} is not a tensor`);
      refOf.set(out, { kind: 'buffer', index: plan.buffers.length });
      plan.buffers.push({ dtype: out.dtype, layout: outputLayout(out, bindings) });
      plan.isOutput.push(false);
    }
    // no_op: every output is empty; allocating them is all there is to do.
    if (kind === 'no_op') return;
    const copy = kind === 'greedy' ? scatterCopyStep(group, groupInfo, refs, refOf, groupId, kernelFor) : null;
    if (copy !== null) plan.steps.push(copy);
    const { kernel, grid } = kernelFor(group.fusion, groupInfo, groupId, kind, group.analysis);
    plan.steps.push({ kernel, groupId, grid, refs: [...refs, ...group.outputs.map((v) => refOf.get(v) as PlanRef)], inputCount: refs.length });
  });
  for (const v of fusion.outputs) {
    const r = refOf.get(v);
    if (r === undefined) throw new Error(`fusion output T${v.name} is produced by no segment`);
    plan.outputs.push(r);
    if (r.kind === 'buffer') plan.isOutput[r.index] = true;
  }
  return plan;
}

function largestPowerOfTwoDividing(bytes: number): number {
  let a = 1;
  while (a < 256 && bytes % (a * 2) === 0) a *= 2;
  return a;
}

/** The layouts of a metadata-only group's tensors for these input layouts, or why they are not views. */
function viewsOf(group: SegmentPlanGroup, info: RuntimeInfo): ReturnType<typeof viewLayouts> | Error {
  try {
    // The group's analyses (its acceptance's, when they describe this info) hold its one binding.
    return viewLayouts(group.fusion, info.inputs.map((i) => (i.kind === 'tensor' ? i : null)), HeuristicDataCache.for(group.fusion, info, group.analysis).bindings());
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * An expr_eval group whose reshape has no view for these layouts, planned as views with dense
 * copies where needed (viewLayouts' materialize): per copy, a view of the reshape's input (its
 * base and offset), a dense buffer, and a pointwise `set` kernel from one to the other (a step of
 * this group), then the group's outputs as views of arguments, earlier views or the copies.
 * False when the views fail for another reason (the caller tries a kernel for the group).
 */
function planReshapeCopies<K>(
  group: SegmentPlanGroup,
  info: RuntimeInfo,
  refs: readonly PlanRef[],
  refOf: Map<Val, PlanRef>,
  plan: LaunchPlanLayout<K>,
  groupId: number,
  kernelFor: GroupKernelPlanner<K>,
  alignmentOf: (ref: PlanRef, dtype: DataType) => number,
): boolean {
  const copies: { tv: TensorView; source: ViewLayout }[] = [];
  const materialize: MaterializeCopy = (tv, source) => {
    copies.push({ tv, source });
    return { input: refs.length + copies.length - 1, sizes: [...source.sizes], strides: contiguousStrides(source.sizes), offset: 0 };
  };
  let layouts: ReturnType<typeof viewLayouts>;
  try {
    layouts = viewLayouts(group.fusion, info.inputs.map((i) => (i.kind === 'tensor' ? i : null)), HeuristicDataCache.for(group.fusion, info, group.analysis).bindings(), materialize);
  } catch {
    return false;
  }
  // The kernel memo keys a group's kernels by group and parameters: copies of one group must be
  // one fusion (dtype and rank), else two of them could share a kernel made for the other.
  const first = copies[0]?.tv;
  if (first === undefined || copies.some(({ tv }) => tv.dtype !== first.dtype || tv.domain.logicalNoReductions().length !== first.domain.logicalNoReductions().length)) return false;
  const all: PlanRef[] = [...refs];
  const steps: PlanStep<K>[] = [];
  const reshapeCopies: { tensor: string; reason: string }[] = [];
  for (const { tv, source } of copies) {
    const from = all[source.input] as PlanRef;
    const base = from.kind === 'view' ? (plan.views[from.index] as PlanView) : { base: from, offset: 0 };
    const sourceRef: PlanRef = { kind: 'view', index: plan.views.length };
    plan.views.push({ base: base.base, layout: { sizes: source.sizes, strides: source.strides }, offset: base.offset + source.offset });
    const bufferRef: PlanRef = { kind: 'buffer', index: plan.buffers.length };
    plan.buffers.push({ dtype: tv.dtype, layout: { sizes: [...source.sizes], strides: contiguousStrides(source.sizes) } });
    plan.isOutput.push(false);
    const copyInfo: RuntimeInfo = { device: info.device, inputs: [{ kind: 'tensor', dtype: tv.dtype, sizes: source.sizes, strides: source.strides, alignment: alignmentOf(sourceRef, tv.dtype) }] };
    const { kernel, grid } = kernelFor(scatterCopyFusion(tv), copyInfo, groupId, 'pointwise');
    steps.push({ kernel, groupId, grid, refs: [sourceRef, bufferRef], inputCount: 1 });
    all.push(bufferRef);
    reshapeCopies.push({ tensor: `T${tv.name}`, reason: `sizes [${source.sizes.join(', ')}] with strides [${source.strides.join(', ')}] cannot be viewed as the reshape's sizes: copied densely (torch.reshape semantics)` });
  }
  plan.groups.push({ groupId, schedulerType: 'expr_eval', info, reshapeCopies });
  plan.steps.push(...steps);
  planViews(group, layouts, all, refOf, plan, groupId);
  return true;
}

/**
 * The scheduler of a kernel that computes an expr_eval group these layouts cannot view: a
 * reshape of a strided input (a slice's output, made by an earlier segment) is a copy, as
 * torch.reshape copies what it cannot view (nvFuser aliases a reshape's output only where the
 * layout allows, else its kernel writes it). The segment plan chose expr_eval for the layouts
 * it assumed (contiguous intermediates); the registry picks again for the real ones, where the
 * view scheduler refuses; null when no kernel scheduler takes the group (planReshapeCopies then).
 */
function copyingScheduler(group: SegmentPlanGroup, info: RuntimeInfo, registry: SchedulerRegistry): SchedulerType | null {
  const hasReshape = group.fusion.exprs().some((e) => e.kind === 'ViewOp');
  const picked = hasReshape ? registry.tryPick(group.fusion, info).scheduler : null;
  return picked === null || picked.type === 'expr_eval' ? null : picked.type;
}

/** The outputs of a metadata-only group as views of what it reads (no kernel, no step). */
function planViews<K>(group: SegmentPlanGroup, layouts: ReturnType<typeof viewLayouts>, refs: readonly PlanRef[], refOf: Map<Val, PlanRef>, plan: LaunchPlanLayout<K>, groupId: number): void {
  group.outputs.forEach((out, k) => {
    if (refOf.has(out)) return;
    const tv = group.fusion.outputs[k];
    const layout = tv === undefined || tv.kind !== 'tensorView' ? undefined : layouts.get(tv);
    if (layout === undefined) throw new Error(`segment ${groupId} (expr_eval): output ${out.name} is not a view of an input`);
    const source = refs[layout.input] as PlanRef;
    const base = source.kind === 'view' ? (plan.views[source.index] as PlanView) : { base: source, offset: 0 };
    refOf.set(out, { kind: 'view', index: plan.views.length });
    plan.views.push({ base: base.base, layout: { sizes: layout.sizes, strides: layout.strides }, offset: base.offset + layout.offset });
  });
}
