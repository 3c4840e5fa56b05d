// triu and erfcinv in the reference evaluator against values PyTorch computed
// (test-fixtures/torch-values/triu-erfcinv.json; torch has no erfcinv, so the fixture holds
// −ndtri(x / 2) / √2 in float64).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Fusion, HostTensor, erfcinv, evaluate, makeTensor, printMath, triu, type DataType } from '../src/index.js';
import { relErr } from './eval-helpers.js';

interface TriuCase {
  shape: number[];
  diagonal: number;
  dtype?: DataType;
  input: number[];
  expected: number[];
}
interface Fixture {
  erfcinv_double: { input: (number | string)[]; expected: (number | string)[] };
  erfcinv_float: { input: number[]; expected: number[] };
  triu: TriuCase[];
}

const fixture = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/triu-erfcinv.json', import.meta.url)), 'utf8'),
) as Fixture;

const decode = (v: number | string): number => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number));

function runUnary(dtype: DataType, values: number[]): number[] {
  const f = new Fusion();
  const x = makeTensor(f, { shape: [-1], dtype });
  f.addInput(x);
  f.addOutput(erfcinv(x));
  return (evaluate(f, [HostTensor.fromValues(dtype, [values.length], values)])[0] as HostTensor).toNumbers();
}

describe('erfcinv', () => {
  it('matches PyTorch in float64 (1e-300 … 2, outside [0, 2] NaN)', () => {
    const xs = fixture.erfcinv_double.input.map(decode);
    const want = fixture.erfcinv_double.expected.map(decode);
    runUnary('Double', xs).forEach((v, i) => expect(relErr(v, want[i] as number), `erfcinv(${xs[i]}) = ${v}, torch ${want[i]}`).toBeLessThan(1e-13));
  });
  it('matches PyTorch rounded to float', () => {
    const { input, expected } = fixture.erfcinv_float;
    // ±0 compare equal (torch's −ndtri(0.5) is −0).
    runUnary('Float', input).forEach((v, i) => expect(v === expected[i], `erfcinv(${input[i]}) = ${v}, torch ${expected[i]}`).toBe(true));
  });
  it('prints as nvFuser does', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1] });
    f.addInput(x);
    f.addOutput(erfcinv(x));
    expect(printMath(f)).toContain('= erfcinvf(T0_g[ iS0{i0} ]);');
  });
});

describe('triu', () => {
  for (const c of fixture.triu) {
    it(`${c.dtype ?? 'Float'} [${c.shape.join(', ')}] diagonal ${c.diagonal} matches torch.triu`, () => {
      const dtype = c.dtype ?? 'Float';
      const f = new Fusion();
      const x = makeTensor(f, { shape: c.shape.map(() => -1), dtype });
      f.addInput(x);
      f.addOutput(triu(x, c.diagonal));
      const input = HostTensor.fromValues(dtype, c.shape, dtype === 'Int' ? c.input.map(BigInt) : c.input);
      const out = evaluate(f, [input])[0] as HostTensor;
      expect(out.sizes).toEqual(c.shape);
      expect(out.toNumbers()).toEqual(c.expected);
    });
  }
  it('needs two dims and an integral diagonal', () => {
    const f = new Fusion();
    const x = makeTensor(f, { shape: [-1] });
    expect(() => triu(x)).toThrow(/triu: input tensor for triu must have 2 or more dims, but got T0/);
    const y = makeTensor(f, { shape: [-1, -1] });
    expect(() => triu(y, 0.5)).toThrow(/diagonal 0.5 is not an integer/);
    expect(() => triu(y, f.constant(1.5, 'Double'))).toThrow(/diagonal must have integral type, got Double/);
  });
});
