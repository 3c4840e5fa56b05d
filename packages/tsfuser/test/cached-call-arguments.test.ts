// The cached call's argument buffers (issue 38's host path: no per-call allocation of plans or
// argument buffers): each kernel step of a launch plan launches with the same argument buffer
// and the same launch configuration object on every call, and the bytes of every launch equal
// what packKernelArguments packs from scratch for that call's tensors and scalars — the step
// rewrites only pointers and scalars after its first call (step-arguments.ts), so a stale pointer
// or scalar would show here. Fake H100; new input tensors (new pointers) and new scalar values
// every call, the same layout; a kernel reading another's intermediate through a view. Through a
// real DeviceContext over a recording addon: each step prepares its launch once (the addon's
// prepareLaunch) and later calls pass only the id and that same buffer (launchPrepared). A kernel
// with fast divisors (codegen's NvfDivisorMagic parameter) keeps the words its first call packed.
import { Tensor, type KernelArgument, type TensorArgument } from '@tsfuser/device';
import { dataTypeSize } from '@tsfuser/fusion-ir';
import { FusionExecutorCache, packKernelArguments, type CompilePlan, type ExecutorArgument } from '@tsfuser/runtime';
import { describe, expect, it } from 'vitest';
import { FusionDefinition } from '../src/index.js';
import { fakeDevice, type FakeDevice } from './fake-device.js';
import { nullAddonDevice } from './null-addon-device.js';

interface Launched {
  kernel: string;
  config: object;
  buffer: Uint8Array;
  bytes: Uint8Array;
}

/** The fake device with each launch's configuration object, argument buffer and a copy of its bytes recorded. */
function recordingDevice(): { fake: FakeDevice; launched: Launched[] } {
  const fake = fakeDevice();
  const launched: Launched[] = [];
  const load = fake.device.loadModule.bind(fake.device);
  const device = fake.device as unknown as { loadModule: typeof load };
  device.loadModule = (image) => {
    const module = load(image);
    const get = module.getFunction.bind(module);
    (module as unknown as { getFunction: typeof get }).getFunction = (name) => {
      const fn = get(name);
      const launch = fn.launch.bind(fn);
      (fn as unknown as { launch: typeof launch }).launch = (config, buffer) => {
        launched.push({ kernel: name, config, buffer, bytes: buffer.slice() });
        launch(config, buffer);
      };
      return fn;
    };
    return module;
  };
  return { fake, launched };
}

/**
 * What every kernel step of `plan` should have been launched with for `args` and the call's
 * `outputs`. An intermediate's pointer is read from the launch of the step that writes it (the
 * call freed it since): a reader must see that same block, plus a view's offset.
 */
function expectedBytes(plan: CompilePlan, args: readonly ExecutorArgument[], outputs: readonly Tensor[], launches: readonly Launched[]): Uint8Array[] {
  const written = new Map<number, bigint>();
  plan.steps.forEach((step, s) => {
    const bytes = launches[s]?.bytes;
    if (bytes === undefined) return;
    step.refs.forEach((r, k) => {
      if (k < step.inputCount || r.kind !== 'buffer' || written.has(r.index)) return;
      const offset = step.kernel.kernel.args.slots[k]?.offset ?? 0;
      written.set(r.index, new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(offset, true));
    });
  });
  const bufferArgument = (index: number): TensorArgument => {
    const out = plan.outputs.findIndex((o) => o.kind === 'buffer' && o.index === index);
    if (out >= 0) return outputs[out] as Tensor;
    const b = plan.buffers[index];
    const dataPtr = written.get(index);
    if (b === undefined || dataPtr === undefined) throw new Error(`intermediate ${index} has no writer launch`);
    return { dataPtr, sizes: b.layout.sizes, strides: b.layout.strides };
  };
  return plan.steps.map((step) => {
    const values = step.refs.map((r): KernelArgument => {
      if (r.kind === 'arg') return args[r.index] as KernelArgument;
      if (r.kind === 'buffer') return bufferArgument(r.index);
      const v = plan.views[r.index];
      if (v === undefined) throw new Error(`no view ${r.index}`);
      const base: TensorArgument = v.base.kind === 'arg' ? (args[v.base.index] as Tensor) : bufferArgument(v.base.index);
      const dtype = v.base.kind === 'arg' ? (args[v.base.index] as Tensor).dtype : (plan.buffers[v.base.index]?.dtype ?? 'Float');
      return { dataPtr: base.dataPtr + BigInt(v.offset * dataTypeSize(dtype)), sizes: v.layout.sizes, strides: v.layout.strides };
    });
    return packKernelArguments(step.kernel.kernel.args, values);
  });
}

/** out0 = x * s + y, out1 = x + y: two inputs, a Float scalar, one kernel, two outputs. */
function pointwiseWithScalar(): FusionDefinition {
  return FusionDefinition.build((d) => {
    const x = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
    const y = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
    const s = d.defineScalar(null, 'Double');
    d.addOutput(d.ops.add(d.ops.mul(x, s), y));
    d.addOutput(d.ops.add(x, y));
  });
}

/**
 * sum(x, 1) broadcast back and sliced, added to a slice of y: two kernels, the second reading
 * the first's intermediate through a view (an expr_eval segment: broadcast + slice).
 */
function viewOfIntermediate(): FusionDefinition {
  return FusionDefinition.build((d) => {
    const x = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
    const y = d.defineTensor({ symbolicSizes: [-1, -1], contiguous: [true, true], dtype: 'Float' });
    const b = d.ops.broadcastInDim(d.ops.sum(x, [1]), [10, 20], [0]);
    d.addOutput(d.ops.add(d.ops.slice(y, [1, 0], [10, 20]), d.ops.slice(b, [1, 0], [10, 20])));
  });
}

function runCalls(fd: FusionDefinition, makeArgs: (device: FakeDevice['device'], call: number) => ExecutorArgument[], calls: number): { plan: CompilePlan; launched: Launched[]; perCall: Launched[][]; expected: Uint8Array[][] } {
  const { fake, launched } = recordingDevice();
  const cache = new FusionExecutorCache(fd.fusionIr(), fake.device, { concurrentSegments: false });
  const perCall: Launched[][] = [];
  const expected: Uint8Array[][] = [];
  let plan: CompilePlan | null = null;
  for (let call = 0; call < calls; call += 1) {
    const args = makeArgs(fake.device, call);
    const before = launched.length;
    const outputs = cache.runFusion(args);
    plan = cache.lastPlan();
    if (plan === null) throw new Error('no plan');
    perCall.push(launched.slice(before));
    expected.push(expectedBytes(plan, args, outputs, launched.slice(before)));
    for (const t of outputs) t.dispose();
    for (const a of args) if (a instanceof Tensor) a.dispose();
  }
  expect(cache.stats.launchPlans).toBe(1);
  return { plan: plan as CompilePlan, launched, perCall, expected };
}

function checkCalls(result: ReturnType<typeof runCalls>): void {
  const { perCall, expected } = result;
  const first = perCall[0] as Launched[];
  expect(first.length).toBeGreaterThan(0);
  perCall.forEach((launches, call) => {
    expect(launches.length).toBe(first.length);
    launches.forEach((l, k) => {
      // The same buffer and configuration objects every call: nothing allocated per launch.
      expect(l.buffer).toBe(first[k]?.buffer);
      expect(l.config).toBe(first[k]?.config);
      expect([...l.bytes], `call ${call}, launch ${k}`).toEqual([...(expected[call]?.[k] ?? [])]);
    });
  });
}

describe('cached call argument buffers', () => {
  it('one buffer per step, rewritten with each call\'s pointers and scalar', () => {
    const result = runCalls(
      pointwiseWithScalar(),
      (device, call) => [Tensor.emptyDevice(device, 'Float', [8, 16]), Tensor.emptyDevice(device, 'Float', [8, 16]), 0.5 + call],
      4,
    );
    checkCalls(result);
    // The pointers did change between calls (the fake allocator never reuses a block).
    expect(result.perCall[1]?.[0]?.bytes).not.toEqual(result.perCall[0]?.[0]?.bytes);
  });

  it('a view of an intermediate: the reader gets the block its writer wrote, every call', () => {
    const result = runCalls(viewOfIntermediate(), (device) => [Tensor.emptyDevice(device, 'Float', [10, 20]), Tensor.emptyDevice(device, 'Float', [10, 20])], 3);
    expect(result.plan.steps.length).toBe(2);
    expect(result.plan.steps[1]?.refs.some((r) => r.kind === 'view')).toBe(true);
    checkCalls(result);
  });

  it('a kernel with fast divisors: its magic numbers packed by the first call, the same bytes as a fresh pack on every call', () => {
    const fd = FusionDefinition.build((d) => {
      const x = d.defineTensor({ symbolicSizes: [-1, -1, -1], contiguous: [true, true, true], dtype: 'Float' });
      const y = d.defineTensor({ symbolicSizes: [-1, 1, -1], contiguous: [true, true, true], dtype: 'Float' });
      d.addOutput(d.ops.add(x, y));
    });
    const result = runCalls(fd, (device) => [Tensor.emptyDevice(device, 'Float', [6, 5, 3]), Tensor.emptyDevice(device, 'Float', [6, 1, 3])], 3);
    const args = result.plan.steps[0]?.kernel.kernel.args;
    expect(args?.divisors?.sources.length).toBeGreaterThan(0);
    expect(result.perCall[0]?.[0]?.bytes.length).toBe(args?.size);
    checkCalls(result);
  });

  it('a DeviceContext whose addon prepares launches: one prepareLaunch per step, then launchPrepared with the step\'s buffer', () => {
    const nul = nullAddonDevice({ record: true });
    const cache = new FusionExecutorCache(viewOfIntermediate().fusionIr(), nul.device, { concurrentSegments: false });
    const calls = 4;
    for (let call = 0; call < calls; call += 1) {
      const args = [Tensor.emptyDevice(nul.device, 'Float', [10, 20]), Tensor.emptyDevice(nul.device, 'Float', [10, 20])];
      const before = nul.launchedPrepared.length;
      const outputs = cache.runFusion(args);
      const plan = cache.lastPlan() as CompilePlan;
      const launched = nul.launchedPrepared.slice(before);
      expect(launched.map((l) => l.id)).toEqual([0, 1]);
      const expected = expectedBytes(plan, args, outputs, launched.map((l, k) => ({ kernel: `${k}`, config: {}, buffer: l.buffer, bytes: l.bytes })));
      launched.forEach((l, k) => {
        expect(l.buffer).toBe(nul.prepared[k]?.buffer);
        expect([...l.bytes], `call ${call}, step ${k}`).toEqual([...(expected[k] ?? [])]);
      });
      for (const t of [...outputs, ...args]) t.dispose();
    }
    // Prepared by the first call only.
    expect(nul.prepared).toHaveLength(2);
    expect(nul.launchedPrepared).toHaveLength(2 * calls);
  });
});
