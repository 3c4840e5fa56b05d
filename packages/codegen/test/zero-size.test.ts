// Zero-size tensors through every scheduler: empty outputs launch nothing (and the kernel is
// still compilable), reductions over empty dims give PyTorch's identities (sum 0, prod 1,
// max -inf, min +inf) for every kept element, metadata-only fusions of empty tensors are
// views. Simulated against the reference evaluator (outputs poisoned first).
import { defaultSchedulerRegistry, makeRuntimeInfo } from '@tsfuser/scheduler';
import { compileFusion } from '../src/index.js';
import { add, evaluate, Fusion, HostTensor, makeTensor, max, min, mul, prod, softmax, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { baseSeed, randomTensor, seeded, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();
const REDUCTIONS = { sum, prod, max, min } as const;

function reductionFusion(op: keyof typeof REDUCTIONS, dims: number[], dtype: DataType): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1, -1], dtype });
  f.addInput(x);
  f.addOutput(REDUCTIONS[op](mul(x, 2) as TensorView, dims));
  return f;
}

describe('zero-size tensors', () => {
  it('reductions over an empty dim give the identity for every kept element', () => {
    const r = seeded(seed);
    for (const op of ['sum', 'prod', 'max', 'min'] as const) {
      for (const dtype of ['Float', 'Half'] as const) {
        for (const [dims, sizes] of [[[1], [5, 0]], [[0], [0, 7]], [[0, 1], [0, 3]], [[1], [300, 0]]] as const) {
          const f = reductionFusion(op, [...dims], dtype);
          const label = `${op} ${dtype} over [${dims.join(',')}] of [${sizes.join(',')}] (TSFUSER_SEED=${seed})`;
          const { compiled } = simulateAndCheck(f, [randomTensor(dtype, [...sizes], r)], label);
          expect(compiled.params.schedulerType, label).toBe('reduction');
        }
      }
    }
  });

  it('empty outputs: pointwise, reduction keeping an empty dim, persistent rows of an empty batch', () => {
    const r = seeded(seed + 1);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    const y = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    f.addInput(y);
    f.addOutput(add(x, y));
    const { compiled } = simulateAndCheck(f, [randomTensor('Float', [0, 9], r), randomTensor('Float', [0, 9], r)], 'empty pointwise');
    expect(compiled.launch.grid.some((g) => g === 0)).toBe(true);
    simulateAndCheck(reductionFusion('sum', [1], 'Float'), [randomTensor('Float', [0, 9], r)], 'sum keeping an empty dim');
    const g = new Fusion();
    const z = makeTensor(g, { shape: [-1, -1] });
    g.addInput(z);
    g.addOutput(softmax(z, 1));
    // No kernel scheduler takes a softmax over zero rows; no_op (last) does: nothing to launch.
    const info = makeRuntimeInfo(g, [{ sizes: [0, 64] }]);
    const pick = defaultSchedulerRegistry().pick(g, info);
    expect(pick.scheduler.type).toBe('no_op');
    expect(pick.rejected.find((x) => x.type === 'inner_persistent')?.reason).toMatch(/no rows/);
    expect(() => compileFusion(g, info)).toThrow(/needs no kernel \(no_op: every output is empty\)/);
    expect((evaluate(g, [randomTensor('Float', [0, 64], r)])[0] as HostTensor).sizes).toEqual([0, 64]);
  });
});
