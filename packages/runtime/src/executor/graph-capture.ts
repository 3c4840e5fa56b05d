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
// With `graphKeyedByPointers` a plan is first captured on the call's own addresses instead
// (capturePointerPlan): a later call replays that graph with no copy at all when its tensor
// arguments have the same data pointers and scalars, and every output block of the capture is
// free in the device's pool again (the caller disposed the outputs: the replay takes exactly those
// blocks back, Tensor.reclaimDeviceOf) — as torch.compile's CUDA-graph trees check the data
// pointers of static inputs. Any other call uses the static-copy graph above. Reading the
// caller's addresses is safe: a replay happens only for tensors the caller passes in that call,
// and writes only blocks it just took from the pool. A replay allocates nothing but the output
// tensors and their array (no closure, no key string).
// Invariant: while a CapturedPlan lives, its graph, static inputs, static outputs and every block
// the capture freed stay allocated; destroyCapturedPlan releases them after the stream is idle.
// A PointerCapturedPlan owns its graph and the blocks its capture freed (the intermediates), not
// the caller's inputs or outputs.

import { Tensor, type CudaGraph, type DeviceContext, type DeviceLayout } from '@tsfuser/device';
import { Complex } from '@tsfuser/fusion-ir';
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
  /** The scalar arguments the launches were captured with (scalarKey; read only to print). */
  scalars: string;
  /** The arguments the capture was made for: their scalars are compared per call (sameScalars). */
  args: readonly ExecutorArgument[];
  /** The plan's outputs as the capture allocated them. */
  outputs: Tensor[];
}

/** A plan captured on one call's own addresses (graphKeyedByPointers; see the header). */
export interface PointerCapturedPlan {
  graph: CudaGraph;
  /** Per argument: the data pointer the launches read, null for a scalar. */
  inputPointers: (bigint | null)[];
  /** The arguments the capture was made for (their scalars are baked in). */
  args: readonly ExecutorArgument[];
  /** Per fusion output: the block the graph writes and the output's layout. */
  outputs: { pointer: bigint; layout: DeviceLayout }[];
}

/** The scalar arguments' values as the capture bakes them in. */
export function scalarKey(args: readonly ExecutorArgument[]): string {
  return args.map((a) => (a instanceof Tensor ? '' : `${typeof a}:${String(a)}`)).join(';');
}

/**
 * Whether `args` has the scalar values `captured` was captured with (tensors are not compared),
 * without making a key: Object.is, so -0 and 0 differ as the launches they bake in do, and NaN
 * equals NaN; complex values by part.
 */
export function sameScalars(captured: readonly ExecutorArgument[], args: readonly ExecutorArgument[]): boolean {
  if (captured.length !== args.length) return false;
  for (let i = 0; i < args.length; i += 1) {
    const [c, a] = [captured[i], args[i]];
    if (c instanceof Tensor || a instanceof Tensor) {
      if (!(c instanceof Tensor && a instanceof Tensor)) return false;
      continue;
    }
    if (c instanceof Complex || a instanceof Complex) {
      if (!(c instanceof Complex && a instanceof Complex && Object.is(c.re, a.re) && Object.is(c.im, a.im))) return false;
      continue;
    }
    if (!Object.is(c, a)) return false;
  }
  return true;
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
    return { graph: device.endCapture(), inputs, scalars: scalarKey(args), args: [...args], outputs };
  } catch (error) {
    for (const t of [...inputs, ...outputs]) t?.dispose();
    throw error;
  }
}

/** One replay (see the header): inputs copied in, the graph launched, outputs copied out or viewed. */
export function replayPlan(device: DeviceContext, captured: CapturedPlan, args: readonly ExecutorArgument[], staticOutputs: boolean, inputsCopied = false): Tensor[] {
  // `inputsCopied`: the capture just made the static inputs from these very arguments.
  if (!inputsCopied) {
    for (let i = 0; i < args.length; i += 1) {
      const [a, into] = [args[i], captured.inputs[i]];
      if (into === null || into === undefined || !(a instanceof Tensor)) continue;
      if (a.dataPtr !== into.dataPtr) device.copyDeviceToDevice(into.dataPtr, a.dataPtr, into.storageBytes);
    }
  }
  captured.graph.launch();
  const outputs = new Array<Tensor>(captured.outputs.length);
  for (let i = 0; i < outputs.length; i += 1) {
    const o = captured.outputs[i] as Tensor;
    outputs[i] = staticOutputs ? o.asStrided(o.sizes, o.strides) : o.toDevice(device);
  }
  return outputs;
}

/** Destroys the graph (after the stream finished with it) and frees every buffer it owned. */
export function destroyCapturedPlan(captured: CapturedPlan): void {
  captured.graph.destroy();
  for (const t of [...captured.inputs, ...captured.outputs]) t?.dispose();
}

/**
 * Captures `run` on the call's own arguments (graphKeyedByPointers), launches the graph once and
 * returns its outputs (the caller's, as a normal call's). Null graph when the outputs share a
 * block or are not dense buffers of their own (a replay could not take each back): the call's
 * outputs are still returned, and the plan keeps the static-copy graph only.
 */
export function capturePointerPlan(device: DeviceContext, args: readonly ExecutorArgument[], run: (args: readonly ExecutorArgument[]) => Tensor[]): { captured: PointerCapturedPlan | null; outputs: Tensor[] } {
  let outputs: Tensor[];
  device.beginCapture();
  try {
    outputs = run(args);
  } catch (error) {
    device.abortCapture();
    throw error;
  }
  let graph: CudaGraph;
  try {
    graph = device.endCapture();
  } catch (error) {
    for (const t of outputs) t.dispose();
    throw error;
  }
  graph.launch();
  const pointers = outputs.map((t) => t.dataPtr);
  if (new Set(pointers).size !== pointers.length) {
    graph.destroy();
    return { captured: null, outputs };
  }
  const captured: PointerCapturedPlan = {
    graph,
    inputPointers: args.map((a) => (a instanceof Tensor ? a.dataPtr : null)),
    args: [...args],
    outputs: outputs.map((t) => ({ pointer: t.dataPtr, layout: Tensor.deviceLayout(t.dtype, t.sizes, t.strides) })),
  };
  return { captured, outputs };
}

/**
 * A replay at the captured addresses, or null (nothing enqueued, nothing kept) when a tensor
 * argument's data pointer or a scalar differs, or an output block is not free in the pool.
 */
export function replayPointerPlan(device: DeviceContext, captured: PointerCapturedPlan, args: readonly ExecutorArgument[]): Tensor[] | null {
  const pointers = captured.inputPointers;
  for (let i = 0; i < args.length; i += 1) {
    const a = args[i];
    const p = pointers[i];
    if (a instanceof Tensor ? a.dataPtr !== p : p !== null) return null;
  }
  if (!sameScalars(captured.args, args)) return null;
  const outputs = new Array<Tensor>(captured.outputs.length);
  for (let i = 0; i < outputs.length; i += 1) {
    const o = captured.outputs[i] as { pointer: bigint; layout: DeviceLayout };
    const t = Tensor.reclaimDeviceOf(device, o.layout, o.pointer);
    if (t === null) {
      // Give back what this call took: the pool is as it was.
      for (let j = 0; j < i; j += 1) (outputs[j] as Tensor).dispose();
      return null;
    }
    outputs[i] = t;
  }
  captured.graph.launch();
  return outputs;
}

/** Destroys a pointer-keyed graph (after the stream finished with it) and frees the blocks its capture freed. */
export function destroyPointerCapturedPlan(captured: PointerCapturedPlan): void {
  captured.graph.destroy();
}

/** How a call with cudaGraph on ran its plan (`keyedByPointers`: the graph at the call's own addresses). */
export type GraphRun = { kind: 'normal'; reason: string } | { kind: 'captured'; keyedByPointers?: true } | { kind: 'replayed'; keyedByPointers?: true };

/** A plan's pointer-keyed graph: captured, or 'unusable' (its outputs share a block). */
export type PointerGraph = { kind: 'captured'; captured: PointerCapturedPlan } | { kind: 'unusable' };

const REPLAYED: GraphRun = Object.freeze({ kind: 'replayed' });
const REPLAYED_AT_POINTERS: GraphRun = Object.freeze({ kind: 'replayed', keyedByPointers: true });
const CAPTURED: GraphRun = Object.freeze({ kind: 'captured' });
const CAPTURED_AT_POINTERS: GraphRun = Object.freeze({ kind: 'captured', keyedByPointers: true });

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
  /** Capture on the call's own addresses first and replay there when a call matches (see the header). */
  keyedByPointers: boolean;
  /** Runs the plan on `args` (normal: with the call's own temporaries and timings). */
  execute: (args: readonly ExecutorArgument[], normal: boolean) => Tensor[];
}

/** The graph state runGraphed keeps on a launch plan. */
export interface GraphedPlan {
  compiled: CompilePlan;
  graph?: PlanGraph;
  pointerGraph?: PointerGraph;
}

/**
 * The replay of a cudaGraph call that needs nothing built for it (the cached path: no closure,
 * no options object): the pointer-keyed graph when the call matches it, else the static-copy graph
 * when its scalars match; null when the call must go through runGraphed.
 */
export function replayCached(plan: GraphedPlan, device: DeviceContext, args: readonly ExecutorArgument[], staticOutputs: boolean, keyedByPointers: boolean): { outputs: Tensor[]; run: GraphRun } | null {
  if (keyedByPointers && plan.pointerGraph?.kind === 'captured') {
    const outputs = replayPointerPlan(device, plan.pointerGraph.captured, args);
    if (outputs !== null) return { outputs, run: REPLAYED_AT_POINTERS };
  }
  const graph = plan.graph;
  if (graph?.kind === 'captured' && sameScalars(graph.captured.args, args)) {
    return { outputs: replayPlan(device, graph.captured, args, staticOutputs), run: REPLAYED };
  }
  return null;
}

/** Destroys both graphs of a plan (releaseGraphs); the next cudaGraph call captures again. */
export function releasePlanGraphs(plan: GraphedPlan): void {
  if (plan.graph?.kind === 'captured') destroyCapturedPlan(plan.graph.captured);
  if (plan.pointerGraph?.kind === 'captured') destroyPointerCapturedPlan(plan.pointerGraph.captured);
  delete plan.graph;
  delete plan.pointerGraph;
}

/**
 * The cudaGraph path of one call (see the header): a plan's first call, a profiled call and a
 * refused plan run normally; the second call captures and launches the graph; later calls
 * replay it. `plan.graph` is updated in place.
 */
export function runGraphed(plan: GraphedPlan, args: readonly ExecutorArgument[], call: GraphedCall): { outputs: Tensor[]; run: GraphRun } {
  const normally = (reason: string): { outputs: Tensor[]; run: GraphRun } => ({ outputs: call.execute(args, true), run: { kind: 'normal', reason } });
  if (call.fresh) return normally('the first call of an input layout runs normally (it compiles and loads every kernel)');
  if (call.profiled) return normally('a profiled call runs without a graph (its kernels are timed one by one)');
  if (plan.graph === undefined) {
    const reason = captureRefusal(plan.compiled, { poisonOutputs: call.poisonOutputs });
    if (reason !== null) plan.graph = { kind: 'refused', reason };
  }
  if (plan.graph?.kind === 'refused') return normally(plan.graph.reason);
  const cached = replayCached(plan, call.device, args, call.staticOutputs, call.keyedByPointers);
  if (cached !== null) return cached;
  if (call.keyedByPointers && plan.pointerGraph === undefined) {
    // The first graphed call of a pointer-keyed plan: capture at the call's own addresses.
    const { captured, outputs } = capturePointerPlan(call.device, args, (own) => call.execute(own, false));
    plan.pointerGraph = captured === null ? { kind: 'unusable' } : { kind: 'captured', captured };
    return { outputs, run: CAPTURED_AT_POINTERS };
  }
  // Not captured yet, or captured with other scalar values (they are baked into the launches).
  if (plan.graph?.kind === 'captured') destroyCapturedPlan(plan.graph.captured);
  delete plan.graph;
  const captured = capturePlan(call.device, args, (staticArgs) => call.execute(staticArgs, false));
  plan.graph = { kind: 'captured', captured };
  // The capture ran nothing: this call's results come from the graph's first launch.
  return { outputs: replayPlan(call.device, captured, args, call.staticOutputs, true), run: CAPTURED };
}
