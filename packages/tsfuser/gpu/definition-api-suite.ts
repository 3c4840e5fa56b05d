// GPU checks of the FusionDefinition API beyond plain outputs (needs a GPU; not a vitest suite):
//
//   pnpm gpu:bundle tsfuser-definition-api && (on the GPU host) bash gpu-bundle/run.sh tsfuser-definition-api
//
// In-place outputs (add_output(t, alias_input=x)) on device inputs — contiguous, strided with
// gaps, host x given to the GPU backend, broadcast and expanded operands, running stats, an
// updated input also returned (the caller's tensor, written) — and
// stride-ordered outputs (pointwise kernels, a pointwise segment after a reduction, the refusal of
// a stride-ordered reduction result), expanded (None) inputs, lastCudaCode after a GPU execute and
// fd.profile()'s per-kernel times. Every
// case is checked element by element against values computed here or by the reference backend,
// with outputs poisoned before the kernels run. Last line: `N passed, M failed`.

import { HostTensor } from '@tsfuser/fusion-ir';
import { Tensor, type DeviceContext } from '@tsfuser/device';
import { FusionDefinition } from '../src/definition/fusion-definition.js';
import { FusionCache } from '../src/cache/fusion-cache.js';
import { createGpuBackend } from '../src/execute/gpu-backend.js';

const gpu = createGpuBackend({ poisonOutputs: true, cubinDirectory: null });
const results: { name: string; ok: boolean; detail: string }[] = [];

function floats(values: number[], sizes: number[], strides?: number[]): HostTensor {
  const data = new Float32Array(values);
  return new HostTensor('Float', sizes, strides ?? sizes.map((_, d) => sizes.slice(d + 1).reduce((a, b) => a * b, 1)), data);
}

function onDevice(host: HostTensor, device: DeviceContext): Tensor {
  // The whole storage travels, so strided views keep their gaps.
  const base = Tensor.from(host.data as Float32Array, [host.data.length], 'Float').toDevice(device);
  return base.asStrided(host.sizes, host.strides, host.offset);
}

function storageOf(t: Tensor): number[] {
  return Array.from(t.toHost().data as Float32Array);
}

async function check(name: string, body: () => Promise<string>): Promise<void> {
  try {
    results.push({ name, ok: true, detail: await body() });
  } catch (error) {
    results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
  }
}

function expectEqual(what: string, got: readonly number[], want: readonly number[]): void {
  if (got.length !== want.length || got.some((v, i) => !Object.is(v, want[i]) && Math.abs(v - (want[i] as number)) > 1e-5)) {
    throw new Error(`${what}: got [${got.join(', ')}], want [${want.join(', ')}]`);
  }
}

function addInPlace(): FusionDefinition {
  return FusionDefinition.build((fd) => {
    const x = fd.defineTensor(2);
    const y = fd.defineTensor(2);
    fd.addOutput(fd.ops.add(x, y), x);
  }, { cache: new FusionCache() });
}

async function main(): Promise<void> {
  const availability = gpu.availability();
  if (!availability.available) {
    console.log(`GPU unavailable: ${availability.reason}`);
    process.exitCode = 1;
    return;
  }
  const device = gpu.device(0);
  const run = { backend: gpu } as const;

  await check('alias: contiguous device x', async () => {
    const x = onDevice(floats([1, 2, 3, 4, 5, 6], [2, 3]), device);
    const y = onDevice(floats([10, 20, 30, 40, 50, 60], [2, 3]), device);
    const outs = await addInPlace().execute([x, y], run);
    if (outs.length !== 0) throw new Error(`hidden alias returned ${outs.length} outputs`);
    expectEqual('x', storageOf(x), [11, 22, 33, 44, 55, 66]);
    expectEqual('y', storageOf(y), [10, 20, 30, 40, 50, 60]);
    return 'x updated, y untouched';
  });

  await check('alias: strided device x with gaps, broadcast y', async () => {
    const x = onDevice(floats([0, 1, 2, -1, 3, 4, 5, -1], [2, 3], [4, 1]), device);
    const y = onDevice(floats([100, 200, 300], [2, 3], [0, 1]), device);
    await addInPlace().execute([x, y], run);
    // The view spans storage elements 0…6 (sizes [2, 3], strides [4, 1]); element 3 is the gap.
    expectEqual('x storage', storageOf(Tensor.fromHost(x.toHost())), [100, 201, 302, -1, 103, 204, 305]);
    return 'gaps kept';
  });

  await check('alias: host x through the GPU backend', async () => {
    const x = Tensor.fromHost(floats([1, 2, 3, 4], [2, 2], [1, 2]));
    const y = Tensor.fromHost(floats([1, 1, 1, 1], [2, 2]));
    await addInPlace().execute([x, y], run);
    expectEqual('x', storageOf(x), [2, 3, 4, 5]);
    return 'host storage updated';
  });

  // nvFuser: an input updated in place and also returned (fd.add_output(T4, T0); fd.add_output(T0))
  // returns the input's storage, written: the updated values (issue 37); applyOutputAliases returns
  // the caller's tensor for it.
  await check('alias: an input updated in place and also returned gives the updated values', async () => {
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor(1);
      const y = f.defineTensor(1);
      f.addOutput(f.ops.add(x, y), x);
      f.addOutput(x);
    }, { cache: new FusionCache() });
    const x = onDevice(floats([1, 2, 3], [3]), device);
    const y = onDevice(floats([10, 20, 30], [3]), device);
    const outs = await fd.execute([x, y], run);
    if (outs.length !== 1) throw new Error(`expected 1 visible output (T0), got ${outs.length}`);
    expectEqual('x', storageOf(x), [11, 22, 33]);
    expectEqual('returned T0', outs[0]?.toArray().map(Number) ?? [], [11, 22, 33]);
    return 'the returned input holds the update';
  });

  // A reduction over an expanded (stride-0) input is refused by every GPU scheduler so far (the
  // reduction scheduler's own message says so): the in-place update runs over a dense input.
  await check('alias: running stats (mean over rows) written into the running buffer', async () => {
    const fd = FusionDefinition.build((f) => {
      const x = f.defineTensor({ shape: [-1, -1], contiguity: [true, true] });
      const running = f.defineTensor({ shape: [-1], contiguity: [true] });
      const mean = f.ops.mean(x, [0]);
      f.addOutput(f.ops.relu(x));
      f.addOutput(f.ops.add(f.ops.mul(running, 0.5), f.ops.mul(mean, 0.5)), { aliasInput: running });
    }, { cache: new FusionCache() });
    const x = onDevice(floats([1, -2, 3, 1, -2, 3, 1, -2, 3, 1, -2, 3], [4, 3]), device);
    const running = onDevice(floats([10, 10, 10], [3]), device);
    const outs = await fd.execute([x, running], run);
    if (outs.length !== 1) throw new Error(`expected 1 visible output, got ${outs.length}`);
    expectEqual('relu', outs[0]?.toArray().map(Number) ?? [], [1, 0, 3, 1, 0, 3, 1, 0, 3, 1, 0, 3]);
    expectEqual('running', storageOf(running), [5.5, 4, 6.5]);
    return 'running stats updated';
  });

  // Stride-ordered outputs: written through permuted strides by pointwise kernels; compared
  // with the reference backend element by element, strides included.
  async function againstReference(fd: FusionDefinition, hostInputs: HostTensor[]): Promise<string> {
    const want = await fd.execute(hostInputs.map((h) => Tensor.fromHost(h)), { backend: 'reference' });
    const got = await fd.execute(hostInputs.map((h) => onDevice(h, device)), run);
    if (got.length !== want.length) throw new Error(`${got.length} outputs, the reference has ${want.length}`);
    want.forEach((w, i) => {
      const g = got[i] as Tensor;
      if (g.strides.join(',') !== w.strides.join(',')) throw new Error(`output ${i}: strides [${g.strides.join(', ')}], the reference [${w.strides.join(', ')}]`);
      // Storage order: the permuted layout itself, not only the logical values.
      expectEqual(`output ${i} storage`, storageOf(g), storageOf(w));
      expectEqual(`output ${i}`, g.toArray().map(Number), w.toArray().map(Number));
    });
    return got.map((g) => `[${g.strides.join(', ')}]`).join(' ');
  }

  await check('stride_order outputs (add_output(stride_order=) and fd.ops.stride_order)', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1, -1], contiguity: true });
      f.addOutput(f.ops.neg(t0), { strideOrder: [0, 2, 1] });
      f.addOutput(f.ops.strideOrder(f.ops.abs(t0), [1, 2, 0]));
    }, { cache: new FusionCache() });
    const values = Array.from({ length: 24 }, (_, i) => i - 12);
    const strides = await againstReference(fd, [floats(values, [2, 3, 4])]);
    if (strides !== '[1, 8, 2] [4, 8, 1]') throw new Error(`strides ${strides}, want [1, 8, 2] [4, 8, 1]`);
    return strides;
  });

  await check('stride_order outputs, vectorized and transposed, 64×40×256', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1, -1], contiguity: true });
      const t1 = f.defineTensor({ shape: [-1, -1, -1], contiguity: true });
      const s = f.ops.add(t0, t1);
      f.addOutput(f.ops.mul(s, 0.5), { strideOrder: [1, 2, 0] });
      f.addOutput(f.ops.strideOrder(s, [0, 1, 2]));
      f.addOutput(f.ops.exp(t1));
    }, { cache: new FusionCache() });
    const n = 64 * 40 * 256;
    const a = Array.from({ length: n }, (_, i) => Math.sin(i) * 3);
    const b = Array.from({ length: n }, (_, i) => Math.cos(i * 0.7));
    return againstReference(fd, [floats(a, [64, 40, 256]), floats(b, [64, 40, 256])]);
  });

  await check('stride_order output after a reduction (reduction + pointwise segments)', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1], contiguity: true });
      const total = f.ops.sum(t0, [1], true);
      f.addOutput(f.ops.sub(t0, total), { strideOrder: [0, 1] });
    }, { cache: new FusionCache() });
    const values = Array.from({ length: 48 * 96 }, (_, i) => (i % 17) - 8);
    return againstReference(fd, [floats(values, [48, 96])]);
  });

  await check('stride_order output read again by a reduction (pointwise + reduction segments)', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1], contiguity: true });
      const t = f.ops.strideOrder(f.ops.mul(t0, 3), [0, 1]);
      f.addOutput(t);
      f.addOutput(f.ops.sum(t, [1]));
    }, { cache: new FusionCache() });
    const values = Array.from({ length: 40 * 72 }, (_, i) => (i % 13) - 6);
    return againstReference(fd, [floats(values, [40, 72])]);
  });

  await check('a reduction result with a stride order of its own (reduction + copy segments)', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1, -1], contiguity: true });
      f.addOutput(f.ops.sum(t0, [2]), { strideOrder: [0, 1] });
    }, { cache: new FusionCache() });
    const values = Array.from({ length: 24 * 40 * 33 }, (_, i) => ((i * 7) % 23) - 11);
    const detail = await againstReference(fd, [floats(values, [24, 40, 33])]);
    const [out] = await fd.execute([onDevice(floats(values, [24, 40, 33]), device)], run);
    if (out?.strides.join(',') !== '1,24') throw new Error(`strides [${out?.strides.join(', ') ?? ''}], want [1, 24]`);
    return `${detail}; strides [1, 24]`;
  });

  await check('expanded (None) input and lastCudaCode', async () => {
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1], contiguity: [null, true] });
      const t1 = f.defineTensor({ shape: [-1, -1], contiguity: [true, true] });
      f.addOutput(f.ops.mul(t0, t1));
    }, { cache: new FusionCache() });
    const t0 = onDevice(floats([1, 2, 3], [4, 3], [0, 1]), device);
    const t1 = onDevice(floats(Array.from({ length: 12 }, (_, i) => i), [4, 3]), device);
    const [out] = await fd.execute([t0, t1], run);
    expectEqual('mul', out?.toArray().map(Number) ?? [], Array.from({ length: 12 }, (_, i) => i * ((i % 3) + 1)));
    const code = fd.lastCudaCode();
    if (!code.includes('__global__')) throw new Error('lastCudaCode has no kernel');
    return `${code.split('\n').length} lines of CUDA`;
  });

  await check('profile: per-kernel device times of a segmented fusion', async () => {
    // sum over rows then subtract: a reduction kernel and a pointwise kernel (2 segments).
    const fd = FusionDefinition.build((f) => {
      const t0 = f.defineTensor({ shape: [-1, -1], contiguity: true });
      const total = f.ops.sum(t0, [1], true);
      f.addOutput(f.ops.sub(t0, total), { strideOrder: [0, 1] });
    }, { cache: new FusionCache() });
    const rows = 4096;
    const cols = 4096;
    const x = onDevice(floats(Array.from({ length: rows * cols }, (_, i) => (i % 7) - 3), [rows, cols]), device);
    await fd.execute([x], run);
    const t0 = performance.now();
    await fd.execute([x], { ...run, profile: true });
    const wallMs = performance.now() - t0;
    const p = fd.profile();
    if (p.segments !== p.kernelProfiles.length || p.segments < 2) throw new Error(`expected ≥ 2 kernels, got ${p.segments} (${p.kernelProfiles.length} profiles)`);
    for (const k of p.kernelProfiles) {
      if (!(k.timeMs > 0 && k.timeMs < wallMs)) throw new Error(`${k.name}: time ${k.timeMs} ms outside (0, wall ${wallMs.toFixed(3)} ms)`);
      if (!(k.inputBytes >= rows * 4 && k.outputBytes >= rows * 4)) throw new Error(`${k.name}: bytes in ${k.inputBytes} out ${k.outputBytes}`);
    }
    const sum = p.kernelProfiles.reduce((s, k) => s + k.timeMs, 0);
    if (Math.abs(sum - p.kernelTimeMs) > 1e-9) throw new Error(`kernelTimeMs ${p.kernelTimeMs} is not the sum ${sum}`);
    return p.kernelProfiles.map((k) => `${k.scheduler} ${k.timeMs.toFixed(4)} ms ${k.effectiveBandwidthGbs.toFixed(0)} GB/s`).join('; ');
  });

  for (const r of results) console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${r.name}: ${r.detail}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
