// Property: scheduling never changes what a fusion computes. Random pointwise/broadcast/reduction
// fusions are cloned, the clone gets a random schedule (cache, split, merge, reorder, rFactor,
// propagation, parallelization, inlining), and evaluate(clone) must equal evaluate(original)
// bit for bit on fresh random inputs. Illegal random transforms must raise TransformError only.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Fusion,
  HostTensor,
  TransformError,
  add,
  broadcast,
  evaluate,
  inlineAllAt,
  inlineMost,
  makeSymbolicTensor,
  max,
  mul,
  parallelizeAllLike,
  printFusion,
  propagateTransforms,
  sum,
  welford,
  type TensorView,
  type Val,
} from '../src/index.js';
import { randomTensor } from './eval-helpers.js';

type Step =
  | { kind: 'split'; axis: number; factor: number; inner: boolean }
  | { kind: 'merge'; axis: number }
  | { kind: 'reorder'; from: number; to: number };

interface Plan {
  sizes: number[];
  bcast: 'none' | 'inner' | 'outer';
  reduce: number[] | null;
  redOp: 'sum' | 'max' | 'welford';
  intermediateOutput: boolean;
  cacheInput: boolean;
  cacheOutput: boolean;
  steps: Step[];
  rFactorMask: number;
  parallelAxis0: boolean;
  inline: 'most' | 'random' | 'allAt' | 'none';
  inlineSeeds: number[];
}

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('split' as const), axis: fc.nat(5), factor: fc.integer({ min: 1, max: 5 }), inner: fc.boolean() }),
  fc.record({ kind: fc.constant('merge' as const), axis: fc.nat(5) }),
  fc.record({ kind: fc.constant('reorder' as const), from: fc.nat(5), to: fc.nat(5) }),
);

const planArb: fc.Arbitrary<Plan> = fc
  .integer({ min: 1, max: 3 })
  .chain((rank) =>
    fc.record({
      sizes: fc.array(fc.integer({ min: 1, max: 7 }), { minLength: rank, maxLength: rank }),
      bcast: fc.constantFrom('none' as const, 'inner' as const, 'outer' as const),
      reduce: fc.option(fc.subarray(Array.from({ length: rank }, (_, d) => d), { minLength: 1 }), { nil: null }),
      redOp: fc.constantFrom('sum' as const, 'max' as const, 'welford' as const),
      intermediateOutput: fc.boolean(),
      cacheInput: fc.boolean(),
      cacheOutput: fc.boolean(),
      steps: fc.array(stepArb, { maxLength: 6 }),
      rFactorMask: fc.nat(15),
      parallelAxis0: fc.boolean(),
      inline: fc.constantFrom('most' as const, 'random' as const, 'allAt' as const, 'none' as const),
      inlineSeeds: fc.array(fc.nat(6), { minLength: 12, maxLength: 12 }),
    }),
  );

interface Built {
  fusion: Fusion;
  reference: TensorView;
  input: TensorView;
}

function build(plan: Plan): Built {
  const fusion = new Fusion();
  const rank = plan.sizes.length;
  const t0 = makeSymbolicTensor(fusion, rank);
  fusion.addInput(t0);
  let t2: TensorView;
  if (plan.bcast === 'none' || rank === 1) {
    t2 = mul(t0, 2);
  } else {
    const t1 = makeSymbolicTensor(fusion, 1);
    fusion.addInput(t1);
    const keep = plan.bcast === 'inner' ? rank - 1 : 0;
    t2 = add(t0, broadcast(t1, Array.from({ length: rank }, (_, d) => d !== keep)));
  }
  if (plan.reduce === null) {
    const out = add(t2, 1);
    fusion.addOutput(out);
    return { fusion, reference: out, input: t0 };
  }
  if (plan.redOp === 'welford') {
    // The reference is varSum; the avg and N siblings must follow it.
    const w = welford(t2, plan.reduce);
    if (plan.intermediateOutput) fusion.addOutput(t2);
    fusion.addOutput(add(w.avg, w.varSum));
    fusion.addOutput(w.n);
    return { fusion, reference: w.varSum, input: t0 };
  }
  const r = plan.redOp === 'sum' ? sum(t2, plan.reduce) : max(t2, plan.reduce);
  const out = add(r, 1);
  if (plan.intermediateOutput) fusion.addOutput(t2);
  fusion.addOutput(out);
  return { fusion, reference: r, input: t0 };
}

function inputsFor(plan: Plan, fusion: Fusion): HostTensor[] {
  return fusion.inputs.map((v, i) => {
    const sizes = i === 0 ? plan.sizes : [plan.bcast === 'inner' ? (plan.sizes[plan.sizes.length - 1] as number) : (plan.sizes[0] as number)];
    void v;
    return randomTensor('Float', sizes);
  });
}

/** Runs `f`; a TransformError means "illegal here, skip"; any other error fails the property. */
function attempt(f: () => void): boolean {
  try {
    f();
    return true;
  } catch (e) {
    if (e instanceof TransformError) return false;
    throw e;
  }
}

function applySchedule(plan: Plan, fusion: Fusion, reference: TensorView, input: TensorView): void {
  if (plan.cacheInput) input.cacheAfter();
  const outputs = fusion.outputs.filter((o): o is TensorView => o.kind === 'tensorView');
  if (plan.cacheOutput) for (const o of outputs) if (o !== reference && o.uses.length === 0) o.cacheBefore();
  let ref = reference;
  for (const s of plan.steps) {
    const n = ref.nDims();
    if (s.kind === 'split') attempt(() => ref.split(s.axis % n, s.factor, s.inner));
    else if (s.kind === 'merge' && n > 1) attempt(() => ref.merge(s.axis % (n - 1)));
    else if (s.kind === 'reorder') attempt(() => ref.reorder({ [s.from % n]: s.to % n }));
  }
  const reductionAxes = ref.domain.loop.flatMap((id, k) => (id.isReduction() ? [k] : []));
  if (reductionAxes.length >= 2) {
    const chosen = reductionAxes.filter((_, k) => ((plan.rFactorMask >> k) & 1) === 1);
    if (chosen.length > 0 && chosen.length < reductionAxes.length) ref = ref.rFactor(chosen);
  }
  if (plan.parallelAxis0 && !ref.axis(0).isReduction()) ref.axis(0).parallelize('BIDx');
  propagateTransforms(ref);
  parallelizeAllLike(ref);
  if (plan.inline === 'most') inlineMost(fusion);
  if (plan.inline === 'allAt') inlineAllAt(ref, (plan.inlineSeeds[0] as number) % (ref.nDims() + 1));
  if (plan.inline === 'random') {
    fusion.allTvs().forEach((tv, k) => {
      attempt(() => tv.inlineAt((plan.inlineSeeds[k % plan.inlineSeeds.length] as number) % (tv.nDims() + 1)));
    });
  }
}

/** Every loop ID of every tensor derives from its logical (or root) IDs through Split/Merge. */
function loopsDeriveFromLogical(fusion: Fusion): boolean {
  return fusion.allTvs().every((tv) => {
    const start = new Set<Val>([...tv.domain.logical, ...(tv.domain.root ?? [])]);
    const reaches = (v: Val): boolean => start.has(v) || (v.definition !== null && v.definition.inputs.every(reaches));
    return tv.domain.loop.every(reaches) && tv.computeAtPosition <= tv.nDims();
  });
}

/** Outputs of one multi-output expr (Welford) keep identical loop structure and positions. */
function siblingsMatch(fusion: Fusion): boolean {
  const shape = (tv: TensorView): string =>
    `${tv.domain.loop.map((id) => `${id.iterType}:${id.parallelType}:${id.extent.constNumber() ?? '?'}`).join(',')}@${tv.computeAtPosition}`;
  return fusion.exprs().every((e) => {
    const outs = e.outputs.filter((o): o is TensorView => o.kind === 'tensorView');
    return outs.every((o) => shape(o) === shape(outs[0] as TensorView));
  });
}

function sameBits(a: HostTensor, b: HostTensor): boolean {
  const x = a.toNumbers();
  const y = b.toNumbers();
  return a.sizes.join() === b.sizes.join() && x.every((v, i) => Object.is(v, y[i]) || (v === y[i]) || (Number.isNaN(v) && Number.isNaN(y[i] as number)));
}

describe('schedules never change results (fast-check)', () => {
  it('evaluate(scheduled clone) equals evaluate(unscheduled) bit for bit', () => {
    fc.assert(
      fc.property(planArb, (plan) => {
        const { fusion, reference, input } = build(plan);
        const text = printFusion(fusion);
        const { fusion: copy, map } = fusion.clone();
        applySchedule(plan, copy, map.get(reference) as TensorView, map.get(input) as TensorView);
        expect(printFusion(fusion)).toBe(text); // the original is untouched
        expect(loopsDeriveFromLogical(copy)).toBe(true);
        expect(siblingsMatch(copy)).toBe(true);
        const inputs = inputsFor(plan, fusion);
        const want = evaluate(fusion, inputs) as HostTensor[];
        const got = evaluate(copy, inputs) as HostTensor[];
        expect(got.length).toBe(want.length);
        got.forEach((g, i) => expect(sameBits(g, want[i] as HostTensor)).toBe(true));
      }),
      { numRuns: 200 },
    );
  });
});
