// Packing a generated kernel's arguments: codegen states the layout (CompiledKernel.args), the
// runtime packs values into it with the device layer's one packer.
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { argumentLayout, compileFusion, divisorMagic } from '@tsfuser/codegen';
import { kernelParameterLayout, packKernelArguments } from '../src/index.js';
import { StepArguments } from '../src/executor/step-arguments.js';

function addFusion(): Fusion {
  const f = new Fusion();
  const a = makeTensor(f, { shape: [-1, -1] });
  const b = makeTensor(f, { shape: [-1, -1] });
  f.addInput(a);
  f.addInput(b);
  f.addOutput(add(a, b));
  return f;
}

describe('packKernelArguments', () => {
  it('packs kernel arguments in the CUDA ABI layout', () => {
    const f = addFusion();
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 8] }, { sizes: [8, 8] }]));
    expect(k.args.size).toBe(3 * 24);
    const bytes = packKernelArguments(k.args, [0x1000n, 0x2000n, 0x3000n].map((p) => ({ dataPtr: p, sizes: [8, 8], strides: [8, 1] })));
    const view = new DataView(bytes.buffer);
    expect(view.getBigUint64(24, true)).toBe(0x2000n);
    expect(view.getInt32(24 + 8, true)).toBe(8);
    expect(view.getInt32(24 + 16, true)).toBe(8);
    expect(view.getInt32(24 + 20, true)).toBe(1);
    const layout = argumentLayout([{ kind: 'scalar', name: 'b', dtype: 'Bool', role: 'input', position: 0 }, { kind: 'scalar', name: 'd', dtype: 'Double', role: 'input', position: 1 }], 'Int');
    expect(layout.slots.map((s) => s.offset)).toEqual([0, 8]);
    expect(() => packKernelArguments(layout, [true])).toThrow(/1 values for 2 parameters/);
  });

  it('maps the generated layout onto the same offsets the device packer computes', () => {
    const f = addFusion();
    const k = compileFusion(f, makeRuntimeInfo(f, [{ sizes: [8, 8] }, { sizes: [8, 8] }]));
    const parameters = kernelParameterLayout(k.args);
    expect(parameters.slots.map((s) => s.offset)).toEqual(k.args.slots.map((s) => s.offset));
    expect(parameters.size).toBe(k.args.size);
  });

  it('appends the fast divisors\' (magic, shift) words, computed from the sizes the layout names', () => {
    // t0 [n, 5, 3] + t1 [n, 1, 3]: the 2-D schedule recovers t1's row from blockIdx.y by / and %.
    const sizes = [[12, 5, 3], [12, 1, 3], [12, 5, 3]];
    const f = new Fusion();
    const a = makeTensor(f, { shape: [-1, -1, -1] });
    const b = makeTensor(f, { shape: [-1, 1, -1] });
    f.addInput(a);
    f.addInput(b);
    f.addOutput(add(a, b));
    const k = compileFusion(f, makeRuntimeInfo(f, sizes.slice(0, 2).map((s) => ({ sizes: s }))));
    const d = k.args.divisors;
    expect(d).not.toBeNull();
    const values = sizes.map((s, i) => ({ dataPtr: BigInt(0x1000 * (i + 1)), sizes: s, strides: s.map((_, j) => s.slice(j + 1).reduce((a, b) => a * b, 1)) }));
    const bytes = packKernelArguments(k.args, values);
    expect(bytes.length).toBe(k.args.size);
    const view = new DataView(bytes.buffer);
    const words = (d?.sources ?? []).flatMap((s) => [divisorMagic(sizes[s.slot]?.[s.dim] as number).magic, divisorMagic(sizes[s.slot]?.[s.dim] as number).shift]);
    expect(words.length).toBeGreaterThan(0);
    expect(Array.from({ length: words.length }, (_, w) => view.getUint32((d?.offset ?? 0) + 4 * w, true))).toEqual(words);
    expect(divisorMagic(5).magic).toBeGreaterThan(2 ** 31); // packed as an Int32 bit pattern
    const parameters = kernelParameterLayout(k.args);
    expect(parameters.size).toBe(k.args.size);
    expect(parameters.parameters.length).toBe(k.args.slots.length + words.length);
    // A plan step's buffer, packed in full once: the same bytes.
    const step = new StepArguments(parameters, k.args);
    step.packAll(values);
    expect([...step.bytes]).toEqual([...bytes]);
    expect(() => packKernelArguments(k.args, values.slice(0, 2))).toThrow(/2 values for 3 parameters/);
  });
});
