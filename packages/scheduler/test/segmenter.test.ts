// Segmentation: segment counts and schedulers of known fusions (issue #785's pow+sum, bias add +
// bias grad, softmax), golden `fusion_ir_segments` / `segmented_fusion` dumps, and a fast-check
// property over random fusions mixing pointwise ops and reductions: segments partition the
// tensor expressions, read only fusion inputs and earlier segments' outputs, and evaluating the
// segments in order gives exactly what evaluating the whole fusion gives.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Fusion, HostTensor, add, broadcast, checkGolden, div, evaluate, exp, makeTensor, max, mul, pow, sub, sum, unaryOp,
  type EvalValue, type TensorView, type Val,
} from '@tsfuser/fusion-ir';
import {
  ReductionScheduler, SchedulerRegistry, defaultSchedulerRegistry, fusionIrSegmentsToString, makeRuntimeInfo, segmentFusion, segmentedFusionToString,
  isTensorExprForTests, recomputableExprs,
} from './segmenter-helpers.js';

const GOLDEN = fileURLToPath(new URL('../../../test-fixtures/golden/scheduler/segmenter/', import.meta.url));
function expectGolden(text: string, name: string): void {
  const r = checkGolden(text, join(GOLDEN, name), process.env.UPDATE_GOLDEN === '1');
  if (!r.ok) expect.fail(r.diff);
}
// Pointwise + reduction only: these tests show segmentation without a normalization scheduler
// (the default registry also has the persistent ones; segmentation.test.ts and
// outer-persistent-heuristics.test.ts cover them).
const registry = new SchedulerRegistry(defaultSchedulerRegistry().schedulers.filter((x) => x.type === 'pointwise' || x.type === 'reduction'));

function powSum(): Fusion {
  const f = new Fusion();
  const t4 = makeTensor(f, { shape: [-1, -1, -1] });
  const t6 = makeTensor(f, { shape: [-1, -1, -1] });
  f.addInput(t4);
  f.addInput(t6);
  f.addOutput(sum(t4, [0, 1]));
  f.addOutput(pow(t6, 3));
  return f;
}

function biasAddGrad(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1] });
  const b = makeTensor(f, { shape: [-1] });
  f.addInput(x);
  f.addInput(b);
  const y = add(x, broadcast(b, [true, false]));
  f.addOutput(unaryOp('gelu', y));
  f.addOutput(sum(y, [0]));
  return f;
}

function softmax(): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1] });
  f.addInput(x);
  const m = max(x, [1]);
  const e = exp(sub(x, broadcast(m, [false, true])));
  f.addOutput(div(e, broadcast(sum(e, [1]), [false, true])));
  return f;
}

describe('segmentFusion', () => {
  it('a pointwise fusion is one pointwise segment', () => {
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1] });
    f.addInput(a);
    f.addOutput(mul(add(a, 1), 2));
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 9] }]), registry);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['pointwise']);
    expect(sf.edges).toEqual([]);
    expect(fusionIrSegmentsToString(sf)).toContain('One segment: a single scheduler accepts the whole fusion.');
  });

  it('issue #785 pow+sum: two kernels (reduction, pointwise), and the dump says why they are separate', () => {
    const f = powSum();
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [16, 512, 4096] }, { sizes: [16, 512, 4096] }]), registry);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['reduction', 'pointwise']);
    expect(sf.independent).toHaveLength(1);
    expect(sf.independent[0]?.reason).toMatch(/no scheduler accepts them together — pointwise: .*reduction: /);
    expectGolden(fusionIrSegmentsToString(sf), 'pow_sum.fusion_ir_segments.txt');
    expectGolden(segmentedFusionToString(sf), 'pow_sum.segmented_fusion.txt');
  });

  it('bias add + gelu + bias grad: one reduction kernel writing gelu(y) inside its loops (as nvFuser); with pre-reduction outputs refused, pointwise then reduction with the refusal reasons', () => {
    const f = biasAddGrad();
    const info = makeRuntimeInfo(f, [{ sizes: [64, 128] }, { sizes: [128] }]);
    const sf = segmentFusion(f, info, registry);
    expect(sf.groups.map((g) => g.schedulerType)).toEqual(['reduction']);
    expectGolden(fusionIrSegmentsToString(sf), 'bias_add_grad.fusion_ir_segments.txt');
    const split = segmentFusion(f, info, registry.replacing(new ReductionScheduler({ preReductionOutputs: false })));
    expect(split.groups.map((g) => g.schedulerType)).toEqual(['pointwise', 'reduction']);
    expect(split.edges).toHaveLength(1);
    expect(split.edges[0]?.reason).toContain('reduction: output T');
    expectGolden(fusionIrSegmentsToString(split), 'bias_add_grad_split.fusion_ir_segments.txt');
  });

  it('softmax without a normalization scheduler: reduction segments (exp written inside the loops of the sum) and a pointwise one, each edge explained', () => {
    const f = softmax();
    const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [64, 1000] }]), registry);
    expect(sf.groups.length).toBeGreaterThanOrEqual(2);
    expect(sf.groups.map((g) => g.schedulerType)).toContain('reduction');
    expectGolden(fusionIrSegmentsToString(sf), 'softmax.fusion_ir_segments.txt');
  });
});

// ---- property: random fusions of pointwise ops and reductions --------------------------------

interface Step { op: number; a: number; b: number; axis: number }

function buildRandom(steps: readonly Step[]): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1] });
  const y = makeTensor(f, { shape: [-1, -1] });
  f.addInput(x);
  f.addInput(y);
  const vals: TensorView[] = [x, y];
  for (const s of steps) {
    const a = vals[s.a % vals.length] as TensorView;
    const b = vals[s.b % vals.length] as TensorView;
    switch (s.op % 4) {
      case 0:
        vals.push(add(a, b));
        break;
      case 1:
        vals.push(mul(unaryOp('tanh', a), 0.5));
        break;
      case 2: {
        // reduce over one axis and broadcast back (keeps every tensor 2-D)
        const r = sum(a, [s.axis % 2]);
        vals.push(broadcast(r, s.axis % 2 === 0 ? [true, false] : [false, true]));
        break;
      }
      default:
        vals.push(sub(a, b));
    }
  }
  const last = vals[vals.length - 1] as TensorView;
  f.addOutput(last);
  const extra = vals[2 + ((steps[0]?.b ?? 0) % Math.max(1, vals.length - 2))];
  if (extra !== undefined && extra !== last && !f.inputs.includes(extra)) f.addOutput(extra);
  return f;
}

function runSegments(f: Fusion, inputs: readonly HostTensor[], sizes: readonly number[]): Map<Val, EvalValue> {
  const sf = segmentFusion(f, makeRuntimeInfo(f, [{ sizes: [...sizes] }, { sizes: [...sizes] }]), registry);
  const values = new Map<Val, EvalValue>(f.inputs.map((v, i) => [v, inputs[i] as HostTensor]));
  const seen = new Set<unknown>();
  // Pointwise tensors of fusion inputs alone may be recomputed by several segments (step 4'):
  // every other expression is in exactly one.
  const recomputable = recomputableExprs(f, f.exprs());
  for (const g of sf.groups) {
    for (const e of g.exprs) {
      if (recomputable.has(e)) continue;
      expect(seen.has(e)).toBe(false);
      seen.add(e);
    }
    const args = g.inputs.map((v) => {
      const value = values.get(v);
      if (value === undefined) throw new Error(`segment ${g.id} reads T${v.name} before it is produced`);
      return value;
    });
    const outs = evaluate(g.fusion, args);
    g.outputs.forEach((v, i) => values.set(v, outs[i] as EvalValue));
  }
  expect(seen.size).toBe(f.exprs().filter((e) => isTensorExprForTests(e) && !recomputable.has(e)).length);
  return values;
}

describe('segmentation property', () => {
  it('segments partition the fusion (recomputed input-only pointwise tensors aside) and evaluate in order to the same outputs (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ op: fc.nat(7), a: fc.nat(20), b: fc.nat(20), axis: fc.nat(1) }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        (steps, m, n) => {
          const f = buildRandom(steps);
          const inputs = [0, 1].map(() => HostTensor.fromValues('Float', [m, n], Array.from({ length: m * n }, () => Math.random() * 2 - 1)));
          const whole = evaluate(f, inputs);
          const values = runSegments(f, inputs, [m, n]);
          f.outputs.forEach((v, i) => {
            const got = values.get(v) as HostTensor;
            expect(got.toNumbers()).toEqual((whole[i] as HostTensor).toNumbers());
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
