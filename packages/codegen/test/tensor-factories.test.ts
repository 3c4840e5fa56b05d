// Tensor factories inside kernels: full / zeros / ones (FullOp) and iota / arange (IotaOp)
// feeding pointwise math, and as outputs of their own. The factory's value is an expression of
// the kernel (a fill value, start + index·step), never a separate kernel or a load. Each case is
// simulated against the reference evaluator on random inputs (seed printed on failure).
import { add, arange, broadcast, cast, Fusion, full, fullLike, iota, makeTensor, mul, ones, shape, size, softmax, sub, sum, zeros, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { describe, expect, it } from 'vitest';
import { baseSeed, randomTensor, seeded, simulateAndCheck } from './shape-ops-simulation.js';

const seed = baseSeed();

function check(fusion: Fusion, inputs: Parameters<typeof simulateAndCheck>[1], label: string): ReturnType<typeof simulateAndCheck> {
  return simulateAndCheck(fusion, inputs, `${label} (TSFUSER_SEED=${seed})`);
}

describe('tensor factories in pointwise kernels', () => {
  it('a traced `x * 0.125` (a 0-dim full feeding a mul) is one kernel with the constant inline', () => {
    for (const dtype of ['Float', 'Half', 'BFloat16'] as const) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype });
      f.addInput(x);
      f.addOutput(cast(mul(cast(x, 'Float'), full(f, [], 0.125, 'Double')), dtype));
      const r = seeded(seed);
      const { compiled } = check(f, [randomTensor(dtype, [37, 129], r)], `x*0.125 ${dtype}`);
      expect(compiled.params.schedulerType).toBe('pointwise');
      expect(compiled.dumps.cuda).toMatch(/= 1\.25\d*e-0?1;/);
    }
  });

  it('full / zeros / ones / fullLike with symbolic sizes and a scalar-input fill value', () => {
    const r = seeded(seed + 1);
    for (const dtype of ['Float', 'Half', 'Int32', 'Int'] as const satisfies readonly DataType[]) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype });
      const s = f.newSymbolicScalar('Double');
      f.addInput(x);
      f.addInput(s);
      const filled = fullLike(x, s);
      f.addOutput(add(x, filled));
      f.addOutput(sub(mul(x, ones(f, shape(x), dtype)), zeros(f, [size(x, 0), size(x, 1)], dtype)));
      check(f, [randomTensor(dtype, [5, 300], r), 2.5], `fullLike/ones/zeros ${dtype}`);
    }
  });

  it('a full broadcast against a tensor, and a full as the only output', () => {
    const r = seeded(seed + 2);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1] });
    f.addInput(x);
    const col = full(f, [size(x, 0)], -3, 'Float');
    f.addOutput(add(x, broadcast(col, [false, true])));
    check(f, [randomTensor('Float', [9, 1000], r)], 'full broadcast');
    const g = new Fusion();
    const y = makeTensor(g, { shape: [-1, -1] });
    g.addInput(y);
    g.addOutput(full(g, shape(y), 7, 'Half'));
    check(g, [randomTensor('Float', [3, 517], r)], 'full output');
  });

  it('iota and arange: alone, broadcast against a tensor, in Int and float dtypes', () => {
    const r = seeded(seed + 3);
    for (const dtype of ['Int', 'Int32', 'Float', 'Double', 'Half'] as const satisfies readonly DataType[]) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: [-1, -1], dtype });
      f.addInput(x);
      const rows = iota(f, size(x, 0), 3, 2, dtype);
      const cols = iota(f, size(x, 1), 0, 1, dtype);
      f.addOutput(add(x, broadcast(rows, [false, true])));
      f.addOutput(mul(x, broadcast(cols, [true, false])));
      check(f, [randomTensor(dtype, [7, 301], r)], `iota ${dtype}`);
    }
    const g = new Fusion();
    g.addOutput(arange(g, 2, 1000, 3, 'Float'));
    check(g, [], 'arange Float output');
    const h = new Fusion();
    h.addOutput(arange(h, -5, 40, 1, 'Int'));
    check(h, [], 'arange Int output');
  });

  it('a factory feeding several consumers and a dynamic iota length', () => {
    const r = seeded(seed + 4);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1] });
    const start = f.newSymbolicScalar('Double');
    f.addInput(x);
    f.addInput(start);
    const i = iota(f, size(x, 0), start, 0.5, 'Float');
    f.addOutput(add(x, i));
    f.addOutput(mul(i, i));
    check(f, [randomTensor('Float', [4099], r), -1.25], 'iota two consumers');
  });
});

describe('tensor factories in reduction and persistent kernels', () => {
  it('sum(x * 0.125), sum(x + iota) over inner and outer dims', () => {
    const r = seeded(seed + 5);
    for (const [dims, sizes] of [[[1], [64, 1000]], [[0], [300, 96]], [[0, 1], [17, 33]]] as const) {
      const scaled = (f: Fusion, x: TensorView): TensorView => mul(x, full(f, [], 0.125, 'Float'));
      const shifted = (f: Fusion, x: TensorView): TensorView => add(x, broadcast(iota(f, size(x, 1), 0, 0.01, 'Float'), [true, false]));
      for (const [name, body] of [['x*0.125', scaled], ['x+iota', shifted]] as const) {
        const f = new Fusion();
        const x = makeTensor(f, { shape: [-1, -1] });
        f.addInput(x);
        f.addOutput(sum(body(f, x), [...dims]));
        const { compiled } = check(f, [randomTensor('Float', [...sizes], r)], `sum(${name}) over [${dims.join(',')}]`);
        expect(compiled.params.schedulerType).toBe('reduction');
      }
    }
  });

  it('softmax(x * scale) with the scale a 0-dim full: one inner persistent kernel', () => {
    const r = seeded(seed + 6);
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Half' });
    f.addInput(x);
    f.addOutput(cast(softmax(mul(cast(x, 'Float'), full(f, [], 0.125, 'Float')), 1), 'Half'));
    const { compiled } = check(f, [randomTensor('Half', [32, 1024], r)], 'scaled softmax');
    expect(compiled.params.schedulerType).toBe('inner_persistent');
  });
});
