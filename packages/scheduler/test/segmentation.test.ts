// Segmentation with nvFuser's acceptors: the issue-#785 fusions (two kernels each), layer_norm /
// softmax / rms_norm (one normalization kernel each), pointwise (one kernel), two reduction
// patterns (two kernels, the reason naming both), a row too large to keep on chip; golden
// `segmented_fusion` and `fusion_ir_segments` dumps; segmentPlanFor (the runtime's Segmenter)
// over the default registry and over nvFuser's acceptors; a fast-check property over random
// fusions with reductions, Welford and broadcasts back (segments cover every expression once,
// read only fusion inputs and earlier segments, and evaluate in order to exactly the whole
// fusion's outputs, on fresh random inputs).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Fusion, HostTensor, add, broadcast, checkGolden, evaluate, exp, makeTensor, max, mul, sub, sum, tanh, varMean,
  type EvalValue, type TensorView, type Val,
} from '@tsfuser/fusion-ir';
import {
  fusionIrSegmentsToString, makeRuntimeInfo, nvFuserAcceptors, segmentFusion, segmentPlanFor, segmentedFusionToString,
  type SegmentedFusion,
} from '../src/index.js';
import * as fx from './segmentation-fixtures.js';

const GOLDEN = fileURLToPath(new URL('../../../test-fixtures/golden/scheduler/segmentation/', import.meta.url));
function expectGolden(text: string, name: string): void {
  const r = checkGolden(text, join(GOLDEN, name), process.env.UPDATE_GOLDEN === '1');
  if (!r.ok) expect.fail(r.diff);
}

const infoOf = (x: fx.Fixture) => makeRuntimeInfo(x.fusion, x.sizes.map((s) => (s === null ? null : { sizes: s })));
const segment = (x: fx.Fixture): SegmentedFusion => segmentFusion(x.fusion, infoOf(x));
const types = (sf: SegmentedFusion): string[] => sf.groups.map((g) => g.schedulerType);

/** Fresh random inputs for a fixture (scalars: a random double). */
function randomInputs(x: fx.Fixture): EvalValue[] {
  return x.fusion.inputs.map((v, i) => {
    const sizes = x.sizes[i];
    if (v.kind !== 'tensorView' || sizes === null || sizes === undefined) return Math.random() * 2;
    const n = sizes.reduce((a, b) => a * b, 1);
    return HostTensor.fromValues(v.dtype, sizes, Array.from({ length: n }, () => Math.random() * 2 - 1));
  });
}

/** Runs the groups in order on the reference evaluator; checks coverage and the read-before-write order. */
function evaluateSegments(sf: SegmentedFusion, inputs: readonly EvalValue[]): Map<Val, EvalValue> {
  const f = sf.original;
  const values = new Map<Val, EvalValue>(f.inputs.map((v, i) => [v, inputs[i] as EvalValue]));
  const seen = new Set<unknown>();
  for (const g of sf.groups) {
    for (const e of g.exprs) {
      expect(seen.has(e), `an expression is in two segments`).toBe(false);
      seen.add(e);
    }
    const args = g.inputs.map((v) => {
      const value = values.get(v);
      if (value === undefined) throw new Error(`segment ${g.id} reads ${v.kind === 'tensorView' ? `T${v.name}` : 'a scalar'} before it is produced`);
      return value;
    });
    const outs = evaluate(g.fusion, args);
    g.outputs.forEach((v, i) => values.set(v, outs[i] as EvalValue));
  }
  const tensorExprCount = f.exprs().filter((e) => e.outputs.some((o) => o.kind === 'tensorView')).length;
  expect(seen.size).toBe(tensorExprCount);
  return values;
}

function expectSameAsWhole(sf: SegmentedFusion, inputs: readonly EvalValue[]): void {
  const whole = evaluate(sf.original, inputs);
  const values = evaluateSegments(sf, inputs);
  sf.original.outputs.forEach((v, i) => {
    expect((values.get(v) as HostTensor).toNumbers()).toEqual((whole[i] as HostTensor).toNumbers());
  });
}

describe('segmentFusion with nvFuser acceptors', () => {
  it('issue #785 pow+sum: 2 kernels (reduction, pointwise), unconnected graphs named', () => {
    const x = fx.issue785PowSum();
    const sf = segment(x);
    expect(types(sf)).toEqual(['reduction', 'pointwise']);
    expect(sf.independent[0]?.reason).toContain('reduction, inner_persistent, outer_persistent, inner_outer_persistent: the fusion is 2 unconnected tensor graphs ({T4} and {T3})');
    expectSameAsWhole(sf, randomInputs(x));
  });

  it('issue #785 gelu backward + bias grad: 2 kernels, the whole gelu backward in one pointwise kernel', () => {
    const x = fx.issue785GeluBiasGrad();
    const sf = segment(x);
    expect(types(sf)).toEqual(['reduction', 'pointwise']);
    expect(sf.groups[0]?.exprs).toHaveLength(1);
    expectSameAsWhole(sf, randomInputs(x));
  });

  it.each([
    ['layer_norm', fx.layerNorm],
    ['softmax', fx.softmax],
    ['rms_norm', fx.rmsNorm],
  ])('%s: one inner persistent kernel', (_name, make) => {
    const x = make();
    const sf = segment(x);
    expect(types(sf)).toEqual(['inner_persistent']);
    expect(sf.edges).toEqual([]);
    expectSameAsWhole(sf, randomInputs(x));
  });

  it('pointwise only: one pointwise kernel', () => {
    const x = fx.pointwiseOnly();
    expect(types(segment(x))).toEqual(['pointwise']);
  });

  it('two reduction patterns: 2 kernels, the edge reason names both reductions', () => {
    const x = fx.twoReductionPatterns();
    const sf = segment(x);
    expect(sf.groups.length).toBeGreaterThanOrEqual(2);
    const reasons = [...sf.edges.map((e) => e.reason), ...sf.independent.map((p) => p.reason)].join('\n');
    expect(reasons).toContain('reduction, inner_persistent: T3 is a second reduction pattern (T3 reduces [0, 1], T2 reduces [1])');
    expectSameAsWhole(sf, randomInputs(x));
  });

  it('softmax whose row does not fit on chip: no persistent kernel, the reason gives the bytes', () => {
    const x = fx.softmax([2, 1, 1 << 17]);
    const sf = segment(x);
    expect(sf.groups.length).toBeGreaterThanOrEqual(2);
    expect(types(sf)).not.toContain('inner_persistent');
    const dump = fusionIrSegmentsToString(sf);
    expect(dump).toMatch(/inner_persistent: persistent buffers T1 need 262144 bytes per row \(524288 as computed, 262144 projected to the inputs\), more than the 227328 bytes/);
    expect(dump).toMatch(/inner_persistent: persistent buffers T5 need 524288 bytes per row, more than the 227328 bytes/);
  });
});

describe('segmentation dumps (goldens)', () => {
  it.each([
    ['issue785_pow_sum', fx.issue785PowSum],
    ['issue785_gelu_bias_grad', fx.issue785GeluBiasGrad],
    ['layer_norm', fx.layerNorm],
    ['softmax', fx.softmax],
    ['rms_norm', fx.rmsNorm],
    ['two_reduction_patterns', fx.twoReductionPatterns],
  ])('%s', (name, make) => {
    const sf = segment(make());
    expectGolden(segmentedFusionToString(sf), `${name}.segmented_fusion.txt`);
    expectGolden(fusionIrSegmentsToString(sf), `${name}.fusion_ir_segments.txt`);
  });
});

describe('segmentPlanFor (the runtime Segmenter)', () => {
  it('default registry: softmax is one inner_persistent group the runtime compiles, with both dumps', () => {
    const x = fx.softmax();
    const plan = segmentPlanFor(x.fusion, infoOf(x));
    expect(plan.groups.map((g) => g.schedulerType)).toEqual(['inner_persistent']);
    for (const g of plan.groups) {
      expect(g.fusion.inputs).toHaveLength(g.inputs.length);
      expect(g.fusion.outputs).toHaveLength(g.outputs.length);
    }
    expect(plan.dumps.segmentedFusion).toMatch(/^Segmented_Fusion Dump: -- fusion segments:/);
    expect(plan.dumps.fusionIrSegments).toMatch(/^Fusion IR with segments: 1 segment/);
  });

  it('nvFuser acceptors: softmax is one inner_persistent group over the whole fusion', () => {
    const x = fx.softmax();
    const plan = segmentPlanFor(x.fusion, infoOf(x), nvFuserAcceptors());
    expect(plan.groups.map((g) => g.schedulerType)).toEqual(['inner_persistent']);
    expect(plan.groups[0]?.outputs).toEqual(x.fusion.outputs);
  });
});

// ---- property: random fusions with reductions, Welford and broadcasts back ---------------------

interface Step {
  op: number;
  a: number;
  b: number;
  axis: number;
}

function buildRandom(steps: readonly Step[], nInputs: number): Fusion {
  const f = new Fusion();
  const vals: TensorView[] = [];
  for (let i = 0; i < nInputs; i += 1) {
    const t = makeTensor(f, { shape: [-1, -1] });
    f.addInput(t);
    vals.push(t);
  }
  const back = (r: TensorView, axis: number): TensorView => broadcast(r, axis === 0 ? [true, false] : [false, true]);
  for (const s of steps) {
    const a = vals[s.a % vals.length] as TensorView;
    const b = vals[s.b % vals.length] as TensorView;
    const axis = s.axis % 2;
    switch (s.op % 7) {
      case 0:
        vals.push(add(a, b));
        break;
      case 1:
        vals.push(mul(tanh(a), 0.5));
        break;
      case 2:
        vals.push(back(sum(a, [axis]), axis));
        break;
      case 3:
        vals.push(sub(a, back(max(a, [axis]), axis)));
        break;
      case 4: {
        const { var: v, mean } = varMean(a, [axis], 0);
        vals.push(mul(sub(a, back(mean, axis)), back(v, axis)));
        break;
      }
      case 5:
        vals.push(exp(mul(a, 0.25)));
        break;
      default:
        vals.push(sub(a, b));
    }
  }
  const last = vals[vals.length - 1] as TensorView;
  f.addOutput(last);
  const extra = vals[nInputs + ((steps[0]?.b ?? 0) % Math.max(1, vals.length - nInputs))];
  if (extra !== undefined && extra !== last && !f.inputs.includes(extra)) f.addOutput(extra);
  return f;
}

describe('segmentation property (fast-check)', () => {
  it('segments partition the expressions, respect data order, and evaluate to the whole fusion', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ op: fc.nat(13), a: fc.nat(20), b: fc.nat(20), axis: fc.nat(1) }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 9 }),
        (steps, nInputs, m, n) => {
          const f = buildRandom(steps, nInputs);
          const x: fx.Fixture = { name: 'random', fusion: f, sizes: f.inputs.map(() => [m, n]) };
          const sf = segment(x);
          for (const g of sf.groups) expect(g.schedulerType).not.toBe('expr_eval');
          expectSameAsWhole(sf, randomInputs(x));
        },
      ),
      { numRuns: 80 },
    );
  });
});
