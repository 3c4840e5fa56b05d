// Shared by the GPU suites that run layer_norm backward (inner-outer-persistent-suite.ts, and the
// rows it adds to normalization-suite.ts): run one case through FusionExecutorCache with the
// default registry twice (outputs poisoned; the grid barrier's counter and the work buffers are
// reused across launches) and compare every element with the reference evaluator; time one case
// (L2 flushed by a read, CUDA events, median of 20) under a registry variant.

import { evaluate, HostTensor } from '@tsfuser/fusion-ir';
import { DeviceContext, Tensor, type L2Flusher } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { timeFusion } from './suite-report.js';
import {
  InnerOuterPersistentScheduler, InnerPersistentScheduler, OuterPersistentScheduler, PointwiseScheduler, ReductionScheduler, SchedulerRegistry,
  defaultSchedulerRegistry, segmentPlanFor, type InnerOuterPersistentOverrides,
} from '@tsfuser/scheduler';
import { layerNormBackwardInputs, type LayerNormBackwardCase } from '@tsfuser/test-support';

export interface Result {
  name: string;
  ok: boolean;
  detail: string;
  category: string;
}

function categoryOf(c: LayerNormBackwardCase, registry: SchedulerRegistry): string {
  try {
    return segmentPlanFor(c.fusion, c.info, registry).groups.map((g) => g.schedulerType ?? 'none').join('+');
  } catch (error) {
    return `unsegmented (${(error as Error).message.slice(0, 60)})`;
  }
}

function tolerance(c: LayerNormBackwardCase): number {
  const out = c.dtype === 'Half' ? 4e-3 : c.dtype === 'BFloat16' ? 3e-2 : 1e-5;
  return out + 2e-7 * Math.sqrt(Math.max(c.rows, c.hidden)) * 16;
}

function compare(c: LayerNormBackwardCase, want: readonly HostTensor[], got: readonly HostTensor[], run: number): string | null {
  const tol = tolerance(c);
  for (let i = 0; i < want.length; i += 1) {
    const w = (want[i] as HostTensor).toFloat64Array();
    const g = (got[i] as HostTensor).toFloat64Array();
    if (g.length !== w.length) return `run ${run} output ${i}: ${g.length} elements, want ${w.length}`;
    // grad_weight / grad_bias sum over the rows: bound relative to the size of what was summed.
    const scale = i === 0 ? 1 : Math.sqrt(c.rows) * 2;
    for (let k = 0; k < w.length; k += 1) {
      const x = w[k] as number;
      const y = g[k] as number;
      if (!(Math.abs(x - y) <= tol * Math.max(scale, Math.abs(x)))) return `run ${run} output ${i} element ${k}: got ${y}, want ${x} (tolerance ${tol.toExponential(2)})`;
    }
  }
  return null;
}

export function runLayerNormBackwardCase(device: DeviceContext, c: LayerNormBackwardCase, registry: SchedulerRegistry = defaultSchedulerRegistry()): Result {
  const category = categoryOf(c, registry);
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true, registry });
  const base = { name: c.name, category };
  try {
    for (let run = 0; run < 2; run += 1) {
      const inputs = layerNormBackwardInputs(c);
      const want = evaluate(c.fusion, inputs) as HostTensor[];
      const outs = cache.runFusion(inputs.map((h) => Tensor.fromHost(h)));
      device.synchronize();
      const bad = compare(c, want, outs.map((t) => t.toHost()), run);
      for (const t of outs) t.dispose();
      if (bad !== null) return { ...base, ok: false, detail: bad };
    }
    return { ...base, ok: true, detail: `${cache.stats.kernels} kernel(s)` };
  } catch (error) {
    const e = error as Error;
    return { ...base, ok: false, detail: `${e.name}: ${e.message.split('\n').slice(0, 4).join(' | ')}` };
  }
}

/**
 * The default registry's outputs against the segmented fallback's, on the same inputs: the check
 * at sizes where the reference evaluator is too slow. Both are poisoned, run once.
 */
export function compareWithSegmented(device: DeviceContext, c: LayerNormBackwardCase, inputs: readonly HostTensor[], overrides: InnerOuterPersistentOverrides = {}): Result {
  const registry = registryFor(overrides);
  const bulk = overrides.bulkLoadRows === true ? `_bulk${(overrides.bulkStages ?? 1) > 1 ? `_${overrides.bulkStages ?? 1}_stages` : ''}` : '';
  const label = `${overrides.groupInnerReductions === false ? '_ungrouped' : ''}${overrides.prefetchNextRow === true ? '_prefetch' : ''}${bulk}`;
  const base = { name: `${c.name}${label}_vs_segmented`, category: `${categoryOf(c, registry)}${label} vs segmented` };
  try {
    const run = (r: SchedulerRegistry): HostTensor[] => {
      const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true, registry: r });
      const outs = cache.runFusion(inputs.map((h) => Tensor.fromHost(h)));
      device.synchronize();
      const hosts = outs.map((t) => t.toHost());
      for (const t of outs) t.dispose();
      return hosts;
    };
    const want = run(registryFor('segmented'));
    const got = run(registry);
    const bad = compare(c, want, got, 0);
    device.releasePool();
    return bad === null ? { ...base, ok: true, detail: 'matches' } : { ...base, ok: false, detail: bad };
  } catch (error) {
    const e = error as Error;
    return { ...base, ok: false, detail: `${e.name}: ${e.message.split('\n').slice(0, 4).join(' | ')}` };
  }
}

export interface Timing {
  name: string;
  variant: string;
  ms: number;
  gbps: number;
  kernels: number;
}

/** The default registry with the inner-outer persistent scheduler under `overrides`, or without it. */
export function registryFor(variant: InnerOuterPersistentOverrides | 'segmented'): SchedulerRegistry {
  const base = [new PointwiseScheduler(), new ReductionScheduler(), new InnerPersistentScheduler(), new OuterPersistentScheduler()];
  return new SchedulerRegistry(variant === 'segmented' ? base : [...base, new InnerOuterPersistentScheduler(variant)]);
}

/** Median device time of the whole fusion; bandwidth of input + output bytes (as tsfuser bench). */
export function timeLayerNormBackward(
  device: DeviceContext,
  flusher: L2Flusher,
  c: LayerNormBackwardCase,
  variant: InnerOuterPersistentOverrides | 'segmented',
  inputs: readonly HostTensor[] = layerNormBackwardInputs(c),
): Timing {
  const t = timeFusion(device, flusher, c.fusion, inputs, registryFor(variant));
  return { name: c.name, variant: variant === 'segmented' ? 'segmented' : JSON.stringify(variant), ...t };
}
