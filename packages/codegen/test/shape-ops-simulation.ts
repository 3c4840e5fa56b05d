// Test helpers for shape-op and tensor-factory kernels (the seeded generator, random inputs and
// the comparison live in @tsfuser/test-support's shape-ops-values.ts, shared with the GPU suite):
// simulate-and-compare — compile a fusion with the default registry (or one given),
// lower it, run the kernel IR in the CPU simulator on NaN-poisoned outputs and compare every
// element with the reference evaluator within a tolerance by dtype. Failure messages carry the
// label and the seed.
import { evaluate, HostTensor, type DataType, type EvalValue, type Fusion, type TensorView, type Val } from '@tsfuser/fusion-ir';
import { bindExtents, defaultSchedulerRegistry, permutedAllocationOrder, segmentFusion, viewLayouts, type RuntimeInfo, type SchedulerRegistry } from '@tsfuser/scheduler';
import { compileFusion, lowerFusion, type CompiledKernel, type Kernel } from '../src/index.js';
import { simulateKernel } from './kernel-simulator.js';
import { compareOutput, dtypeTolerance, normwiseSlack, runtimeInfoOf } from '@tsfuser/test-support';

export { baseSeed, compareOutput, dtypeTolerance, randomTensor, runtimeInfoOf, seeded } from '@tsfuser/test-support';

export interface Simulated {
  compiled: CompiledKernel;
  kernel: Kernel;
  info: RuntimeInfo;
}

/** Compiles and lowers like the executor does (the kernel IR object is returned too). */
export function lowerWith(fusion: Fusion, info: RuntimeInfo, registry: SchedulerRegistry = defaultSchedulerRegistry()): Simulated {
  const compiled = compileFusion(fusion, info, { registry });
  const { scheduler } = registry.pick(fusion, info);
  const scheduled = scheduler.schedule(fusion.clone().fusion, compiled.params);
  const lp = compiled.params.lparams;
  const kernel = lowerFusion(scheduled, { kernelName: compiled.kernelName, maxThreadsPerBlock: Math.max(1, lp.bdimx * lp.bdimy * lp.bdimz) });
  return { compiled, kernel, info };
}


/**
 * Simulates `fusion`'s kernel on `inputs` (outputs poisoned with NaN first) and throws, naming
 * `label`, unless every output element matches the reference evaluator.
 */
export function simulateAndCheck(fusion: Fusion, inputs: readonly EvalValue[], label: string, registry?: SchedulerRegistry): Simulated {
  const info = runtimeInfoOf(fusion, inputs);
  const sim = lowerWith(fusion, info, registry);
  const want = evaluate(fusion, inputs) as HostTensor[];
  const outputs = fusion.outputs.map((o, i) => poisonedOutput(o as TensorView, want[i] as HostTensor));
  const args = inputs.map((v) => (v instanceof HostTensor ? v : Number(v)));
  // A reduction sums in the kernel's order, not the evaluator's: compare norm-wise (normwiseSlack).
  const reduces = fusion.exprs().some((e) => e.kind === 'ReductionOp' || e.kind === 'WelfordOp');
  // A Float output computed through a Half / BFloat16 tensor of the fusion carries that tensor's
  // rounding (one of its ulps where a value sits on a rounding boundary: seen, seed 1168107120).
  const coarsest = coarsestFloatType(fusion);
  const empty = sim.compiled.launch.grid.some((g) => g === 0);
  const got = empty ? outputs : simulateKernel(sim.kernel, sim.compiled.launch, [...args, ...outputs]).slice(args.filter((a) => typeof a !== 'number').length);
  want.forEach((w, i) => {
    // Stride-ordered outputs: the evaluator allocates them with the same permuted strides.
    const o = fusion.outputs[i];
    if (o?.kind === 'tensorView' && permutedAllocationOrder(o) !== null && (got[i] as HostTensor).strides.join(',') !== w.strides.join(',')) {
      throw new Error(`${label}: output ${i} has strides [${(got[i] as HostTensor).strides.join(', ')}], the reference [${w.strides.join(', ')}]`);
    }
    compareOutput(w, got[i] as HostTensor, `${label}: output ${i}`, reduces ? normwiseSlack(w, coarsest) : undefined, coarsest);
  });
  return sim;
}

/** The float dtype of the fusion's tensors with the largest dtype tolerance (Float when none is coarser). */
function coarsestFloatType(fusion: Fusion): DataType {
  let coarsest: DataType = 'Float';
  for (const tv of fusion.allTvs()) if (dtypeTolerance(tv.dtype) > dtypeTolerance(coarsest)) coarsest = tv.dtype;
  return coarsest;
}

/**
 * An output buffer as the runtime allocates it (output-allocation.ts): dense over the dims that
 * are not expanded broadcasts, in the output's allocation order (its stride order, when it has
 * one), stride 0 on expanded dims (a view of the un-expanded result), filled with -12345 (-7 /
 * false for integers and Bool) so an element the kernel never writes shows.
 */
export function poisonedOutput(tv: TensorView, value: HostTensor): HostTensor {
  const logical = tv.domain.logicalNoReductions();
  const expanded = value.sizes.map((_, d) => logical[d]?.isBroadcast() === true && logical[d]?.expandedExtent !== null);
  const order = permutedAllocationOrder(tv) ?? value.sizes.map((_, d) => d);
  const strides = new Array<number>(value.sizes.length).fill(0);
  let stride = 1;
  for (let k = order.length - 1; k >= 0; k -= 1) {
    const d = order[k] as number;
    if (expanded[d] === true) continue;
    strides[d] = stride;
    stride *= Math.max(1, value.sizes[d] as number);
  }
  // An expanded dim of extent 0 does not empty the storage: the runtime allocates the base the
  // kernel writes (device allocationSpan).
  const n = value.sizes.some((x, d) => x === 0 && expanded[d] !== true) ? 0 : stride;
  // A finite sentinel, not NaN: an unwritten element must not pass where the reference is NaN.
  const poison = value.dtype === 'Bool' ? false : value.dtype === 'Int' ? -7n : value.dtype === 'Int32' ? -7 : -12345;
  const storage = HostTensor.fromValues(value.dtype, [n], new Array<number | boolean | bigint>(n).fill(poison));
  return new HostTensor(value.dtype, [...value.sizes], strides, storage.data);
}

/** Element-wise comparison of a kernel's output (any strides) with the reference. */

/**
 * The segments of `fusion` (default registry) with the values their inputs take at run time:
 * fusion inputs, kernel outputs (dense, as the evaluator computes them) and expr_eval outputs as
 * views over their input's storage (as the executor passes them on: possibly not dense).
 */
export function segmentsWithInputs(fusion: Fusion, inputs: readonly EvalValue[]): { type: string; fusion: Fusion; inputs: EvalValue[] }[] {
  const sf = segmentFusion(fusion, runtimeInfoOf(fusion, inputs), defaultSchedulerRegistry());
  const values = new Map<Val, EvalValue>(fusion.inputs.map((v, i) => [v, inputs[i] as EvalValue]));
  return sf.groups.map((g) => {
    const groupInputs = g.inputs.map((v) => {
      const value = values.get(v);
      if (value === undefined) throw new Error(`segment ${g.id} reads ${v.name} before it is computed`);
      return value;
    });
    // A kernel writes its outputs densely; the evaluator may return a view (a permute's output
    // with permuted strides), which a later segment would then read through strides its kernel
    // never sees at run time.
    // (A stride-ordered output keeps the evaluator's permuted strides: the executor allocates it so.)
    const dense = (o: EvalValue, k: number): EvalValue => {
      const tv = g.fusion.outputs[k];
      const ordered = tv?.kind === 'tensorView' && permutedAllocationOrder(tv) !== null;
      return o instanceof HostTensor && !ordered ? o.contiguous() : o;
    };
    const outs = g.schedulerType === 'expr_eval' ? viewsOf(g.fusion, groupInputs) : evaluate(g.fusion, groupInputs).map(dense);
    g.outputs.forEach((v, k) => values.set(v, outs[k] as EvalValue));
    return { type: g.schedulerType, fusion: g.fusion, inputs: groupInputs };
  });
}

/** The outputs of a metadata-only fusion as views of its inputs' storage (viewLayouts). */
export function viewsOf(fusion: Fusion, inputs: readonly EvalValue[]): HostTensor[] {
  const info = runtimeInfoOf(fusion, inputs);
  const layouts = viewLayouts(fusion, info.inputs.map((i) => (i.kind === 'tensor' ? i : null)), bindExtents(fusion, info));
  return fusion.outputs.map((o, i) => {
    const l = layouts.get(o as TensorView);
    if (l === undefined) throw new Error(`output ${i} is not a view`);
    const src = inputs[l.input] as HostTensor;
    return new HostTensor(src.dtype, l.sizes, l.strides, src.data, src.offset + l.offset);
  });
}

/** An expr_eval segment: each output's view over its input's storage reads what the evaluator computes. */
export function checkViews(fusion: Fusion, inputs: readonly EvalValue[], label: string): void {
  const want = evaluate(fusion, inputs) as HostTensor[];
  viewsOf(fusion, inputs).forEach((got, i) => compareOutput(want[i] as HostTensor, got, `${label}: view output ${i}`));
}
