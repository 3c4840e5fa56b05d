// Packing a generated kernel's arguments: codegen states the layout (CompiledKernel.args), the
// runtime packs values into it with the device layer's one packer.
import { describe, expect, it } from 'vitest';
import { add, Fusion, makeTensor } from '@tsfuser/fusion-ir';
import { makeRuntimeInfo } from '@tsfuser/scheduler';
import { argumentLayout, compileFusion } from '@tsfuser/codegen';
import { kernelParameterLayout, packKernelArguments } from '../src/index.js';

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
});
