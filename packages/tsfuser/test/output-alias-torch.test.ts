// In-place outputs against PyTorch (test-fixtures/torch-values/inplace-outputs.json, written by
// tools/torch-values/inplace_outputs_values.py): for each in-place PyTorch program the matching
// definition (add_output(t, alias_input=x)) must return PyTorch's values, leave the inputs'
// storage as PyTorch leaves it, and return the caller's own tensor wherever nvFuser's output is
// the input's buffer (an aliased input also returned, a visible aliased output). Run on the
// reference backend and on a GPU-like backend (a memory-backed device: device inputs are updated
// in place, every backend output is a fresh device buffer as FusionExecutorCache returns them).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HostTensor, type DataType as DType } from '@tsfuser/fusion-ir';
import { DataType, DefinitionError, FusionCache, FusionDefinition, Tensor, referenceBackend, type Backend } from '../src/index.js';
import { compareTensors, toleranceFor } from '../src/io/compare.js';
import { memoryDevice } from './memory-device.js';

interface FixtureTensor {
  dtype: 'float32' | 'float16';
  sizes: number[];
  strides: number[];
  storage: number[];
}
interface FixtureCase {
  inputs: FixtureTensor[];
  outputs: number[][];
  outputSharesInput: number[];
  inputsAfter: number[][];
}
const fixture = JSON.parse(readFileSync(new URL('../../../test-fixtures/torch-values/inplace-outputs.json', import.meta.url), 'utf8')) as { seed: number; cases: Record<string, FixtureCase> };

const dtypeOf = (t: FixtureTensor): DType => (t.dtype === 'float16' ? 'Half' : 'Float');

function hostInput(t: FixtureTensor): Tensor {
  const flat = HostTensor.fromValues(dtypeOf(t), [t.storage.length], t.storage);
  return Tensor.fromHost(new HostTensor(dtypeOf(t), t.sizes, t.strides, flat.data));
}


const build = (body: (fd: FusionDefinition) => void): FusionDefinition => FusionDefinition.build(body, { cache: new FusionCache() });

/** The nvFuser-style definition of each PyTorch program of the generator. */
const definitions: Record<string, () => FusionDefinition> = {
  add_returns_input: () =>
    build((fd) => {
      const x = fd.defineTensor(2);
      const y = fd.defineTensor(2);
      fd.addOutput(fd.ops.add(x, y), x);
      fd.addOutput(x);
    }),
  where_three_outputs: () =>
    build((fd) => {
      const x = fd.defineTensor(2);
      const relu = fd.ops.where(fd.ops.gt(x, 0.0), x, 0.0);
      fd.addOutput(relu);
      fd.addOutput(relu, x);
      fd.addOutput(relu);
      fd.addOutput(x);
    }),
  mul_visible_half: () =>
    build((fd) => {
      const x = fd.defineTensor(2, DataType.Half);
      const y = fd.defineTensor(2, DataType.Half);
      const product = fd.ops.mul(x, y);
      fd.addOutput(product);
      fd.addOutput(product, x);
    }),
  running_mean: () =>
    build((fd) => {
      const x = fd.defineTensor(2);
      const running = fd.defineTensor(1);
      const mean = fd.ops.mean(x, [0]);
      fd.addOutput(fd.ops.sub(x, fd.ops.broadcastInDim(mean, [8, 5], [1])));
      fd.addOutput(fd.ops.add(fd.ops.mul(running, 1 - 0.1), fd.ops.mul(mean, 0.1)), running);
    }),
  transposed_target: () =>
    build((fd) => {
      const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], strideOrder: [0, 1] });
      const y = fd.defineTensor(2);
      const sum = fd.ops.add(x, y);
      fd.addOutput(sum, x);
      fd.addOutput(sum);
    }),
  alias_replaced: () =>
    build((fd) => {
      // The second alias of the same output replaces the first (nvFuser keys aliases by output).
      const x = fd.defineTensor(2);
      const y = fd.defineTensor(2);
      const plusOne = fd.ops.add(x, 1.0);
      fd.addOutput(plusOne, x);
      fd.addOutput(plusOne, y);
    }),
  alias_twice: () =>
    build((fd) => {
      const x = fd.defineTensor(1);
      const tripled = fd.ops.mul(x, 3.0);
      fd.addOutput(tripled, x);
      fd.addOutput(tripled, x);
    }),
  view_of_updated: () =>
    build((fd) => {
      const x = fd.defineTensor(2);
      fd.addOutput(fd.ops.permute(x, [1, 0]));
      fd.addOutput(fd.ops.mul(x, 2.0), x);
    }),
  reduction_into_input: () =>
    build((fd) => {
      const x = fd.defineTensor(2);
      const r = fd.defineTensor(1);
      fd.addOutput(fd.ops.sum(x, [1]), r);
      fd.addOutput(r);
    }),
};

function expectValues(got: Tensor, want: number[], dtype: DType, what: string): void {
  const g = got.toHost().contiguous();
  const w = HostTensor.fromValues(dtype, g.sizes, want);
  const r = compareTensors(g, w, toleranceFor(dtype));
  expect(r.ok, `${what} (seed ${fixture.seed}): ${r.ok ? '' : r.reason}`).toBe(true);
}

function expectStorage(got: Tensor, want: number[], dtype: DType, what: string): void {
  const h = got.toHost();
  const flat = new HostTensor(dtype, [h.data.length], [1], h.data);
  expectValues(Tensor.fromHost(flat), want, dtype, what);
}

/**
 * A backend that returns what FusionExecutorCache returns: a fresh device buffer per computed
 * output and per returned input (a copy), and, for an output that is a metadata view of a device
 * input, a view of the caller's tensor (the expr_eval segment's alias).
 */
function runtimeLike(device: ReturnType<typeof memoryDevice>['device']): Backend {
  return {
    name: 'gpu',
    availability: () => ({ available: true }),
    run: async (fusion, inputs, options) => {
      const hosts = inputs.map((x) => (x instanceof Tensor ? Tensor.fromHost(x.toHost()) : x));
      const outs = await referenceBackend.run(fusion, hosts, options);
      return outs.map((o, i) => {
        const h = o.toHost();
        const base = hosts.findIndex((x) => x instanceof Tensor && x.toHost().data === h.data);
        const isInput = fusion.inputs.includes(fusion.outputs[i] as (typeof fusion.inputs)[number]);
        // The runtime's view of a host input is a view of its temporary device copy: copied.
        const caller = inputs[base];
        if (base >= 0 && !isInput && caller instanceof Tensor && caller.isDevice) return caller.asStrided(h.sizes, h.strides, h.offset);
        return Tensor.fromHost(h.contiguous()).toDevice(device);
      });
    },
  };
}

describe('in-place outputs return what PyTorch returns', () => {
  for (const [name, c] of Object.entries(fixture.cases)) {
    const make = definitions[name];
    it(`${name}: reference backend, host inputs`, async () => {
      expect(make, `no definition for fixture case ${name}`).toBeDefined();
      const fd = (make as () => FusionDefinition)();
      const inputs = c.inputs.map(hostInput);
      const expected = fd.referenceOutputs(inputs);
      const outs = await fd.execute(inputs, { backend: 'reference' });
      expect(outs.length).toBe(c.outputs.length);
      outs.forEach((o, i) => {
        const dtype = dtypeOf(c.inputs[0] as FixtureTensor);
        expectValues(o, c.outputs[i] as number[], dtype, `${name} output ${i}`);
        expectValues(expected[i] as Tensor, c.outputs[i] as number[], dtype, `${name} referenceOutputs ${i}`);
        const shares = c.outputSharesInput[i] as number;
        if (shares >= 0) expect(o, `${name} output ${i} is input ${shares} itself`).toBe(inputs[shares]);
      });
      inputs.forEach((x, i) => expectStorage(x, c.inputsAfter[i] as number[], dtypeOf(c.inputs[i] as FixtureTensor), `${name} input ${i} after`));
    });

    it(`${name}: GPU-like backend, device inputs updated in place`, async () => {
      const mem = memoryDevice();
      const fd = (definitions[name] as () => FusionDefinition)();
      const inputs = c.inputs.map((t) => hostInput(t).toDevice(mem.device));
      const outs = await fd.execute(inputs, { backend: runtimeLike(mem.device) });
      expect(outs.length).toBe(c.outputs.length);
      outs.forEach((o, i) => {
        expect(o.isDevice).toBe(true);
        expectValues(o, c.outputs[i] as number[], dtypeOf(c.inputs[0] as FixtureTensor), `${name} output ${i}`);
        const shares = c.outputSharesInput[i] as number;
        if (shares >= 0) expect(o, `${name} output ${i} is input ${shares} itself`).toBe(inputs[shares]);
      });
      inputs.forEach((x, i) => expectStorage(x, c.inputsAfter[i] as number[], dtypeOf(c.inputs[i] as FixtureTensor), `${name} input ${i} after`));
      // The backend's buffers that nothing returns (aliased outputs, copies of returned inputs) are freed.
      const inInput = (o: Tensor): boolean => inputs.some((x) => o.dataPtr >= x.dataPtr && o.dataPtr < x.dataPtr + BigInt(x.storageBytes));
      expect(mem.live()).toBe(inputs.length + new Set(outs.filter((o) => !inInput(o))).size);
    });
  }

  for (const [name, c] of Object.entries(fixture.cases)) {
    it(`${name}: GPU-like backend, host inputs updated in host memory`, async () => {
      const mem = memoryDevice();
      const fd = (definitions[name] as () => FusionDefinition)();
      const inputs = c.inputs.map(hostInput);
      const outs = await fd.execute(inputs, { backend: runtimeLike(mem.device) });
      expect(outs.length).toBe(c.outputs.length);
      outs.forEach((o, i) => {
        expectValues(o, c.outputs[i] as number[], dtypeOf(c.inputs[0] as FixtureTensor), `${name} output ${i}`);
        const shares = c.outputSharesInput[i] as number;
        if (shares >= 0) expect(o, `${name} output ${i} is input ${shares} itself`).toBe(inputs[shares]);
      });
      inputs.forEach((x, i) => expectStorage(x, c.inputsAfter[i] as number[], dtypeOf(c.inputs[i] as FixtureTensor), `${name} input ${i} after`));
      expect(mem.live()).toBe(new Set(outs.filter((o) => o.isDevice)).size);
    });
  }

  it('refuses two different outputs written into one input (nvFuser leaves the result unspecified)', () => {
    expect(() =>
      build((fd) => {
        const x = fd.defineTensor(1);
        fd.addOutput(fd.ops.add(x, 1.0), x);
        fd.addOutput(fd.ops.mul(x, 2.0), x);
      }),
    ).toThrow(DefinitionError);
    expect(() =>
      build((fd) => {
        const x = fd.defineTensor(1);
        fd.addOutput(fd.ops.add(x, 1.0), x);
        fd.addOutput(fd.ops.mul(x, 2.0), x);
      }),
    ).toThrow('addOutput: input 0 is already updated in place by output 0; a second output (1) written into the same input has no defined result (nvFuser writes both into one buffer in an unspecified order)');
  });
});
