// Runs runGraph's fusion groups through tsfuser's GPU path: each group's subgraph is lowered
// once with parseJitIR (lowerJitGraph) and executed by the GPU backend's FusionExecutorCache,
// so guarded TorchScript graphs run their fused regions as generated kernels. Running-stat
// updates of training batch norm are written back into the graph inputs, as the reference
// executor does. Invariant: outputs are host tensors in the group's output order.

import { HostTensor } from '@tsfuser/fusion-ir';
import { LoweringError } from '@tsfuser/codegen';
import { lowerJitGraph, type FusionGroupCall, type FusionGroupExecutor, type JitLowering, type RunValue } from '@tsfuser/graph-fuser';
import type { Graph } from '@tsfuser/jit-ir';
import { Tensor } from '@tsfuser/device';
import { type ExecutorArgument, type FusionExecutorCache } from '@tsfuser/runtime';
import { SchedulingError } from '@tsfuser/scheduler';
import type { GpuBackend } from '../execute/gpu-backend.js';

export interface GpuGroupExecutor {
  executor: FusionGroupExecutor;
  /** The executor cache of a group's subgraph (kernel counts, compile reports). */
  cacheOf(subgraph: Graph): FusionExecutorCache | undefined;
}

export interface GpuGroupExecutorOptions {
  device?: number;
  /**
   * Runs a group the GPU path cannot schedule or lower (SchedulingError / LoweringError) some
   * other way, e.g. on the reference evaluator; called once per group, later calls go straight
   * to it. Without it such a group is an error.
   */
  fallback?: (call: FusionGroupCall, reason: Error) => RunValue[];
}

export function gpuGroupExecutor(backend: GpuBackend, options: GpuGroupExecutorOptions = {}): GpuGroupExecutor {
  const device = options.device ?? 0;
  const lowerings = new WeakMap<Graph, JitLowering>();
  const rejected = new WeakMap<Graph, Error>();
  const executor: FusionGroupExecutor = (call) => {
    const earlier = rejected.get(call.subgraph);
    if (earlier !== undefined && options.fallback !== undefined) return options.fallback(call, earlier);
    let lowering = lowerings.get(call.subgraph);
    if (lowering === undefined) {
      lowering = lowerJitGraph(call.subgraph);
      lowerings.set(call.subgraph, lowering);
    }
    const args: ExecutorArgument[] = [];
    lowering.inputs.forEach((v, i) => {
      if (v === null) return;
      const value = call.inputs[i];
      if (value instanceof HostTensor) args.push(Tensor.fromHost(value));
      else if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') args.push(value);
      else throw new Error(`fusion group ${call.index}: input ${i} is not a tensor or scalar`);
    });
    if (lowering.rng !== null) {
      const { seed, offset } = call.rng.take(lowering.rng.draws);
      args.push(seed, offset);
    }
    let outputs: Tensor[];
    try {
      outputs = backend.executorCache(lowering.fusion, device).runFusion(args);
    } catch (error) {
      if (options.fallback === undefined || !(error instanceof SchedulingError || error instanceof LoweringError)) throw error;
      rejected.set(call.subgraph, error);
      return options.fallback(call, error);
    }
    const hosts = outputs.map((t) => {
      const h = t.toHost();
      t.dispose();
      return h;
    });
    for (const u of lowering.inputUpdates) {
      const target = call.inputs[u.graphInput];
      const src = hosts[u.fusionOutput];
      if (target instanceof HostTensor && src !== undefined) for (let k = 0; k < target.numel; k += 1) target.setFlat(k, src.get(k));
    }
    return hosts.slice(0, call.subgraph.outputs.length) as RunValue[];
  };
  return {
    executor,
    cacheOf: (subgraph) => {
      const lowering = lowerings.get(subgraph);
      return lowering === undefined ? undefined : backend.executorCache(lowering.fusion, device);
    },
  };
}
