// slice (steps, negative and out-of-range bounds), pad (negative widths crop, a value) and cat in
// the reference evaluator against values PyTorch computed (test-fixtures/torch-values/resize.json,
// written by tools/torch-values/resize_values.py): the GPU tests of these ops trust the evaluator.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { add, cat, evaluate, Fusion, HostTensor, makeTensor, pad, slice } from '../src/index.js';

interface Fixture {
  slice: { shape: number[]; starts: number[]; stops: number[]; steps: number[]; sizes: number[]; expected: number[] }[];
  pad: { shape: number[]; widths: number[]; value: number; sizes: number[]; expected: number[] }[];
  cat: { shapes: number[][]; dim: number; sizes: number[]; expected: number[] }[];
}

const fixture = JSON.parse(readFileSync(fileURLToPath(new URL('../../../test-fixtures/torch-values/resize.json', import.meta.url)), 'utf8')) as Fixture;

/** The generator's input: arange(numel) * 0.5 - 3 (float32), reshaped. */
function input(shape: number[], shift = 0): HostTensor {
  const n = shape.reduce((a, b) => a * b, 1);
  return HostTensor.fromValues('Float', shape, Array.from({ length: n }, (_, k) => k * 0.5 - 3 + shift));
}

function check(out: HostTensor, sizes: number[], expected: number[]): void {
  expect(out.sizes).toEqual(sizes);
  expect(out.contiguous().toNumbers()).toEqual(expected);
}

describe('resize ops match PyTorch', () => {
  it('slice: x[start:stop:step, …]', () => {
    for (const c of fixture.slice) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: c.shape.map(() => -1) });
      f.addInput(x);
      f.addOutput(slice(x, c.starts, c.stops, c.steps));
      check(evaluate(f, [input(c.shape)])[0] as HostTensor, c.sizes, c.expected);
    }
  });

  it('pad: F.pad(x, widths, value)', () => {
    for (const c of fixture.pad) {
      const f = new Fusion();
      const x = makeTensor(f, { shape: c.shape.map(() => -1) });
      f.addInput(x);
      f.addOutput(pad(x, c.widths, c.value));
      check(evaluate(f, [input(c.shape)])[0] as HostTensor, c.sizes, c.expected);
    }
  });

  it('cat: torch.cat(xs, dim)', () => {
    for (const c of fixture.cat) {
      const f = new Fusion();
      const xs = c.shapes.map((s) => makeTensor(f, { shape: s.map(() => -1) }));
      xs.forEach((x) => f.addInput(x));
      f.addOutput(cat(xs.map((x) => add(x, 0)), c.dim));
      check(evaluate(f, c.shapes.map((s, k) => input(s, 100 * k)))[0] as HostTensor, c.sizes, c.expected);
    }
  });
});
