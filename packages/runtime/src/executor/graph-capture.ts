// CUDA graph replay of a cached launch plan (FusionExecutorCache's `cudaGraph` option): which
// plans can be captured, and the capture and replay of one.
//
// A plan is captured on its second call (the first compiled and loaded everything and ran
// normally): its arguments are copied into static input buffers the graph owns, the device's
// stream is captured while the plan runs on them (DeviceContext.beginCapture: nothing runs, every
// free is deferred to the graph), and the graph is launched once for the call. Later calls with
// the same layout key copy each tensor argument into its static buffer (skipped when the
// argument is that buffer), launch the graph and copy the static outputs out to fresh tensors
// (or, with `graphStaticOutputs`, return non-owning views of them: the next replay overwrites
// them). Static inputs as torch.cuda.graphs uses them: no re-keying by data pointers, so a
// replay never reads memory the caller may have freed. Scalar arguments are baked into the
// captured launches: a call whose scalars differ captures again.
// Plans that cannot be captured run normally, with the reason (captureRefusal: an exhaustive
// switch over the plan's segment kinds, then what the call itself does around them).
// Invariant: while a CapturedPlan lives, its graph, static inputs, static outputs and every block
// the capture freed stay allocated; destroyCapturedPlan releases them after the stream is idle.

import { Tensor, type CudaGraph, type DeviceContext } from '@tsfuser/device';
import type { CompilePlan, PlanSegment } from '../plan/compile-plan.js';
import type { ExecutorArgument } from './runtime-info.js';

/** Why one segment's work cannot be recorded into a graph; null when it can. */
export function segmentCaptureRefusal(segment: PlanSegment): string | null {
  switch (segment.kind) {
    case 'view': // metadata only: nothing is enqueued
    case 'empty': // outputs allocated, nothing enqueued
      return null;
    case 'kernel':
    case 'greedy': // kernel launches (a scatter's copy is a kernel too)
      return null;
    case 'libraryCall': // cuBLASLt on the stream with the library's workspace, made by the first call
      return null;
    case 'attention': {
      const p = segment.params;
      if (p.op === 'sdpfa_bwd' && p.variant.dropout) {
        return `segment ${segment.groupId} (attention backward with dropout) reads its Philox seed from device memory on the host (a synchronizing copy)`;
      }
      if (p.op === 'sdpfa_fwd' && (p.tensors.philoxSeed !== null || p.tensors.philoxOffset !== null)) {
        return `segment ${segment.groupId} (attention forward) writes its philox_seed / philox_offset outputs with a synchronous host-to-device copy`;
      }
      return null;
    }
    default: {
      const unreachable: never = segment;
      throw new Error(`unknown segment kind ${String((unreachable as { kind: unknown }).kind)}`);
    }
  }
}

/** Why a plan (as this cache runs it) cannot be captured; null when it can. */
export function captureRefusal(plan: CompilePlan, options: { poisonOutputs: boolean }): string | null {
  for (const segment of plan.segments) {
    const reason = segmentCaptureRefusal(segment);
    if (reason !== null) return reason;
  }
  if (options.poisonOutputs) return 'poisonOutputs fills every buffer with a synchronous memset before the launches';
  const aliased = plan.outputs.findIndex((r) => r.kind !== 'buffer');
  if (aliased >= 0) {
    const what = plan.outputs[aliased]?.kind === 'arg' ? 'an input' : 'a view of an input or an intermediate';
    return `fusion output ${aliased} is ${what}: it would alias the graph's static buffers (a copy made on the host's side)`;
  }
  return null;
}

/** A captured plan: its graph and the buffers it owns (see the header). */
export interface CapturedPlan {
  graph: CudaGraph;
  /** Per argument: its static device buffer, null for a scalar. */
  inputs: (Tensor | null)[];
  /** The scalar arguments the launches were captured with. */
  scalars: string;
  /** The plan's outputs as the capture allocated them. */
  outputs: Tensor[];
}

/** The scalar arguments' values as the capture bakes them in. */
export function scalarKey(args: readonly ExecutorArgument[]): string {
  return args.map((a) => (a instanceof Tensor ? '' : `${typeof a}:${String(a)}`)).join(';');
}

/**
 * Captures `run` (which enqueues the plan on the device's stream for the arguments it is given
 * and returns the outputs) on static copies of `args`. Nothing runs until the graph is launched.
 */
export function capturePlan(device: DeviceContext, args: readonly ExecutorArgument[], run: (args: readonly ExecutorArgument[]) => Tensor[]): CapturedPlan {
  const inputs = args.map((a) => (a instanceof Tensor ? a.toDevice(device) : null));
  const staticArgs = args.map((a, i) => inputs[i] ?? a);
  let outputs: Tensor[];
  device.beginCapture();
  try {
    outputs = run(staticArgs);
  } catch (error) {
    device.abortCapture();
    for (const t of inputs) t?.dispose();
    throw error;
  }
  try {
    return { graph: device.endCapture(), inputs, scalars: scalarKey(args), outputs };
  } catch (error) {
    for (const t of [...inputs, ...outputs]) t?.dispose();
    throw error;
  }
}

/** One replay (see the header): inputs copied in, the graph launched, outputs copied out or viewed. */
export function replayPlan(device: DeviceContext, captured: CapturedPlan, args: readonly ExecutorArgument[], staticOutputs: boolean, inputsCopied = false): Tensor[] {
  // `inputsCopied`: the capture just made the static inputs from these very arguments.
  if (!inputsCopied) {
    args.forEach((a, i) => {
      const into = captured.inputs[i];
      if (into === null || into === undefined || !(a instanceof Tensor)) return;
      if (a.dataPtr !== into.dataPtr) device.copyDeviceToDevice(into.dataPtr, a.dataPtr, into.storageBytes);
    });
  }
  captured.graph.launch();
  return captured.outputs.map((o) => (staticOutputs ? o.asStrided(o.sizes, o.strides) : o.toDevice(device)));
}

/** Destroys the graph (after the stream finished with it) and frees every buffer it owned. */
export function destroyCapturedPlan(captured: CapturedPlan): void {
  captured.graph.destroy();
  for (const t of [...captured.inputs, ...captured.outputs]) t?.dispose();
}

/** How a call with cudaGraph on ran its plan. */
export type GraphRun = { kind: 'normal'; reason: string } | { kind: 'captured' } | { kind: 'replayed' };

/** A launch plan's graph state after its first cudaGraph call: captured, or why not. */
export type PlanGraph = { kind: 'captured'; captured: CapturedPlan } | { kind: 'refused'; reason: string };

export interface GraphedCall {
  device: DeviceContext;
  /** The plan was built by this call (its first). */
  fresh: boolean;
  /** The call times its kernels with events. */
  profiled: boolean;
  poisonOutputs: boolean;
  staticOutputs: boolean;
  /** Runs the plan on `args` (normal: with the call's own temporaries and timings). */
  execute: (args: readonly ExecutorArgument[], normal: boolean) => Tensor[];
}

/**
 * The cudaGraph path of one call (see the header): a plan's first call, a profiled call and a
 * refused plan run normally; the second call captures and launches the graph; later calls
 * replay it. `plan.graph` is updated in place.
 */
export function runGraphed(plan: { compiled: CompilePlan; graph?: PlanGraph }, args: readonly ExecutorArgument[], call: GraphedCall): { outputs: Tensor[]; run: GraphRun } {
  const normally = (reason: string): { outputs: Tensor[]; run: GraphRun } => ({ outputs: call.execute(args, true), run: { kind: 'normal', reason } });
  if (call.fresh) return normally('the first call of an input layout runs normally (it compiles and loads every kernel)');
  if (call.profiled) return normally('a profiled call runs without a graph (its kernels are timed one by one)');
  if (plan.graph === undefined) {
    const reason = captureRefusal(plan.compiled, { poisonOutputs: call.poisonOutputs });
    if (reason !== null) plan.graph = { kind: 'refused', reason };
  }
  if (plan.graph?.kind === 'refused') return normally(plan.graph.reason);
  if (plan.graph?.kind === 'captured' && plan.graph.captured.scalars === scalarKey(args)) {
    return { outputs: replayPlan(call.device, plan.graph.captured, args, call.staticOutputs), run: { kind: 'replayed' } };
  }
  // Not captured yet, or captured with other scalar values (they are baked into the launches).
  if (plan.graph?.kind === 'captured') destroyCapturedPlan(plan.graph.captured);
  delete plan.graph;
  const captured = capturePlan(call.device, args, (staticArgs) => call.execute(staticArgs, false));
  plan.graph = { kind: 'captured', captured };
  // The capture ran nothing: this call's results come from the graph's first launch.
  return { outputs: replayPlan(call.device, captured, args, call.staticOutputs, true), run: { kind: 'captured' } };
}
