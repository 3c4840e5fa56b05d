// Condition-aware comparison of the GPU suite: an ill-conditioned composition gets slack equal to
// what a one-ulp input move does to the exact result; a well-conditioned one gets (almost) none.
import { describe, expect, it } from 'vitest';
import { add, cos, evaluate, exp, Fusion, HostTensor, makeTensor, mul } from '@tsfuser/fusion-ir';
import { compareTensors } from '../src/io/compare.js';
import { inputSensitivity, SENSITIVITY_MAX_ELEMENTS } from '../src/io/sensitivity.js';

function unary(build: (x: ReturnType<typeof makeTensor>) => ReturnType<typeof makeTensor>): Fusion {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype: 'Float' });
  f.addInput(x);
  f.addOutput(build(x));
  return f;
}

describe('inputSensitivity', () => {
  it('cos(exp(2x)) near x = 2.19: the H100 result (6.7e-6 off) fails the Float tolerance but is within a one-ulp input move', () => {
    // random_17_Float_r4 of the GPU suite (seed 706135), element 11: GPU 0.48575201630592346.
    const f = unary((x) => cos(exp(add(x, x))));
    const x = HostTensor.fromValues('Float', [2], [2.1948599815368652, 0.25]);
    const want = evaluate(f, [x]) as HostTensor[];
    const ref = want[0] as HostTensor;
    expect(ref.getNumber(0)).toBeCloseTo(0.4857587218284607, 12);
    const gpu = HostTensor.fromValues('Float', [2], [0.48575201630592346, ref.getNumber(1)]);
    expect(compareTensors(gpu, ref).ok).toBe(false);
    const slack = inputSensitivity(f, [x], want);
    expect(slack?.[0]?.[0]).toBeGreaterThan(1e-5);
    expect(compareTensors(gpu, ref, undefined, slack?.[0]).ok).toBe(true);
  });

  it('a well-conditioned fusion keeps the dtype tolerance: a real error still fails', () => {
    const f = unary((x) => mul(add(x, 1), 0.5));
    const values = Array.from({ length: 64 }, () => Math.random() * 4 - 2);
    const x = HostTensor.fromValues('Float', [64], values);
    const want = evaluate(f, [x]) as HostTensor[];
    const ref = want[0] as HostTensor;
    const slack = inputSensitivity(f, [x], want);
    expect(slack?.[0]?.length).toBe(64);
    for (const s of slack?.[0] ?? []) expect(s).toBeLessThan(1e-6);
    const wrong = HostTensor.fromValues('Float', [64], ref.toNumbers().map((v, i) => (i === 7 ? v + 1e-4 : v)));
    const r = compareTensors(wrong, ref, undefined, slack?.[0]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.mismatch?.index).toBe(7);
  });

  it('perturbs a broadcast (stride-0) input in its storage: slack of 2·x is twice the rounded one-ulp move of x', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1, -1], dtype: 'Float' });
    f.addInput(x);
    f.addOutput(mul(x, 2));
    // 3 stored values seen as 3×1000: materializing the logical elements is what the scaling must avoid.
    const input = new HostTensor('Float', [3, 1000], [1, 0], new Float32Array([1.5, -3, 0.25]));
    const want = evaluate(f, [input]) as HostTensor[];
    const slack = inputSensitivity(f, [input], want)?.[0];
    expect(slack?.length).toBe(3000);
    for (const [row, v] of [[0, 1.5], [1, -3], [2, 0.25]] as const) {
      // x·(1 ± 2^-23) rounded to Float (1.5·2^-23 above 1.5 ties to 2^-22).
      const move = Math.max(...[1, -1].map((sign) => Math.abs(2 * (Math.fround(v * (1 + sign * 2 ** -23)) - v))));
      expect(move).toBeGreaterThan(0);
      for (const col of [0, 999]) expect(slack?.[row * 1000 + col]).toBe(move);
    }
  });

  it('gives no slack above SENSITIVITY_MAX_ELEMENTS output elements (the dtype tolerance applies)', () => {
    const f = unary((x) => mul(x, 2));
    const big = HostTensor.empty('Float', [SENSITIVITY_MAX_ELEMENTS + 1]);
    expect(inputSensitivity(f, [big], [big])).toBeUndefined();
  });
});
