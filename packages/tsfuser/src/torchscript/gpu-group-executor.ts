// Runs runGraph's fusion groups through tsfuser's GPU path: each group's subgraph is lowered
// once with parseJitIR (lowerJitGraph) and executed by the GPU backend's FusionExecutorCache,
// so guarded TorchScript graphs run their fused regions as generated kernels. Running-stat
// updates of training batch norm are written back into the graph inputs, as the reference
// executor does. Invariant: outputs are host tensors in the group's output order.

import { HostTensor } from '@tsfuser/fusion-ir';
import { lowerJitGraph, type FusionGroupExecutor, type JitLowering, type RunValue } from '@tsfuser/graph-fuser';
import type { Graph } from '@tsfuser/jit-ir';
import { Tensor, type ExecutorArgument, type FusionExecutorCache } from '@tsfuser/runtime';
import type { GpuBackend } from '../execute/gpu-backend.js';

export interface GpuGroupExecutor {
  executor: FusionGroupExecutor;
  /** The executor cache of a group's subgraph (kernel counts, compile reports). */
  cacheOf(subgraph: Graph): FusionExecutorCache | undefined;
}

export function gpuGroupExecutor(backend: GpuBackend, device = 0): GpuGroupExecutor {
  const lowerings = new WeakMap<Graph, JitLowering>();
  const executor: FusionGroupExecutor = (call) => {
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
    const outputs = backend.executorCache(lowering.fusion, device).runFusion(args);
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
