// GPU smoke suite for @tsfuser/runtime (not a vitest suite: it needs a GPU).
//
//   pnpm gpu:bundle && (on the GPU host) bash gpu-bundle/run.sh runtime-smoke
//
// Compiles handwritten kernels with NVRTC (cold, then through CubinCache: memory and disk
// hits), launches them on fresh random data with poisoned outputs, checks every element,
// times with CUDA events, and checks the error paths (CompileError with NVRTC's log,
// CudaError for bad launches). Prints a table last; exits 1 if any check failed. Writes
// results.json to $OUT when that is set.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostTensor } from '@tsfuser/fusion-ir';
import {
  CompileError,
  CubinCache,
  CudaError,
  DeviceContext,
  Tensor,
  parameterLayout,
  isAvailable,
  packArguments,
  type KernelFunction,
} from '@tsfuser/device';
import { BROKEN_SOURCE, POINTWISE_SOURCE } from './kernels.js';

interface Row {
  check: string;
  ok: boolean;
  detail: string;
}

const rows: Row[] = [];
const metrics: Record<string, number | string> = {};

function check(name: string, body: () => string): void {
  try {
    rows.push({ check: name, ok: true, detail: body() });
  } catch (error) {
    const e = error as Error;
    rows.push({ check: name, ok: false, detail: `${e.name}: ${e.message.split('\n').slice(0, 3).join(' | ')}` });
  }
}

function expectThrow<E extends Error>(kind: new (...args: never[]) => E, work: () => void): E {
  try {
    work();
  } catch (error) {
    if (error instanceof kind) return error;
    throw new Error(`expected ${kind.name}, got ${(error as Error).name}: ${(error as Error).message}`);
  }
  throw new Error(`expected ${kind.name}, nothing was thrown`);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

function randomFloats(n: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 1) out[i] = (Math.random() - 0.5) * 200;
  return out;
}

const affineLayout = parameterLayout([
  { kind: 'tensor', rank: 2 },
  { kind: 'tensor', rank: 2 },
  { kind: 'scalar', dtype: 'Float' },
  { kind: 'scalar', dtype: 'Float' },
]);

function affineLaunch(fn: KernelFunction, device: DeviceContext, x: Tensor, y: Tensor): () => void {
  const args = packArguments(affineLayout, [x.asKernelArgument(), y.asKernelArgument(), 2, 1]);
  const blocks = Math.min(Math.ceil(x.numel / 256), device.properties.smCount * 8);
  return () => fn.launch({ grid: blocks, block: 256 }, args);
}

/** Runs y = x*2+1 on `x` (host, any strides) into a poisoned contiguous y; counts wrong elements. */
function runAffine(fn: KernelFunction, device: DeviceContext, x: Tensor): { wrong: number; unwritten: number } {
  const xd = x.toDevice(device);
  const y = Tensor.emptyDevice(device, 'Float', x.sizes);
  try {
    y.poison();
    affineLaunch(fn, device, xd, y)();
    device.synchronize();
    const got = y.toHost();
    const input = x.toHost();
    let wrong = 0;
    let unwritten = 0;
    for (let i = 0; i < got.numel; i += 1) {
      const value = got.getNumber(i);
      const expected = Math.fround(Math.fround(input.getNumber(i) * 2) + 1);
      if (Number.isNaN(value)) unwritten += 1;
      else if (value !== expected) wrong += 1;
    }
    return { wrong, unwritten };
  } finally {
    xd.dispose();
    y.dispose();
  }
}

function main(): number {
  const availability = isAvailable();
  console.log('availability:', JSON.stringify(availability));
  if (!availability.available) {
    console.log(`SMOKE: runtime unavailable: ${availability.reason ?? '?'}`);
    return 1;
  }
  const device = DeviceContext.create(0);
  const p = device.properties;
  const nvrtc = device.nvrtcVersion();
  console.log(
    `device: ${p.name} sm_${p.computeCapability.major}${p.computeCapability.minor}, ${p.smCount} SMs, ` +
      `${(p.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB, L2 ${(p.l2CacheBytes / 2 ** 20).toFixed(0)} MiB, ` +
      `smem opt-in ${p.maxSharedMemoryPerBlockOptin} B; NVRTC ${nvrtc.major}.${nvrtc.minor} (${nvrtc.path}); ` +
      `driver ${availability.driverVersion ?? '?'}`,
  );
  Object.assign(metrics, { device: p.name, arch: p.arch, nvrtc: `${nvrtc.major}.${nvrtc.minor}`, driver: availability.driverVersion ?? 0 });

  const cacheDir = mkdtempSync(join(tmpdir(), 'tsfuser-smoke-cache-'));
  let fn: KernelFunction | undefined;
  let shared: KernelFunction | undefined;
  try {
    check('device query', () => `${p.name}, ${p.arch}, ${p.smCount} SMs, L2 ${p.l2CacheBytes} B`);

    check('nvrtc compile (cold, no cache)', () => {
      const compiled = device.compile(POINTWISE_SOURCE, { options: ['--std=c++17'] });
      metrics.compileColdMs = compiled.compileMs;
      return `${compiled.compileMs.toFixed(1)} ms, cubin ${compiled.cubin.length} B, log ${JSON.stringify(compiled.log.trim())}`;
    });

    check('CubinCache miss → memory → disk', () => {
      const cache = new CubinCache({ directory: cacheDir });
      const miss = device.compile(POINTWISE_SOURCE, { options: ['--std=c++17'], cache });
      const memory = device.compile(POINTWISE_SOURCE, { options: ['--std=c++17'], cache });
      const fresh = new CubinCache({ directory: cacheDir });
      const disk = device.compile(POINTWISE_SOURCE, { options: ['--std=c++17'], cache: fresh });
      if (miss.source !== 'compiled' || memory.source !== 'memory' || disk.source !== 'disk') {
        throw new Error(`sources ${miss.source}/${memory.source}/${disk.source}`);
      }
      if (disk.cubin.length !== miss.cubin.length) throw new Error('disk cubin differs in size');
      Object.assign(metrics, { cacheMissMs: miss.compileMs, cacheMemoryHitMs: memory.compileMs, cacheDiskHitMs: disk.compileMs });
      return `miss ${miss.compileMs.toFixed(1)} ms, memory ${memory.compileMs.toFixed(3)} ms, disk ${disk.compileMs.toFixed(3)} ms`;
    });

    check('module load + get function', () => {
      const compiled = device.compile(POINTWISE_SOURCE, { options: ['--std=c++17'] });
      const start = performance.now();
      const module = device.loadModule(compiled.cubin);
      fn = module.getFunction('pointwise_affine');
      shared = module.getFunction('shared_roundtrip');
      const ms = performance.now() - start;
      metrics.moduleLoadMs = ms;
      return `${ms.toFixed(2)} ms; regs ${fn.attribute('numRegs')}, binary sm_${fn.attribute('binaryVersion')}`;
    });

    check('argument layout matches the driver', () => {
      if (fn === undefined) throw new Error('no function');
      const info = fn.parameterInfo();
      if (info === null) return 'cuFuncGetParamInfo not available (driver < 12.4); skipped';
      const ours = affineLayout.slots.map((s) => `${s.offset}+${s.size}`).join(',');
      const theirs = info.map((s) => `${s.offset}+${s.size}`).join(',');
      if (ours !== theirs) throw new Error(`ours ${ours}, driver ${theirs}`);
      return theirs;
    });

    for (const [rows0, cols] of [
      [37, 129],
      [4096, 4096],
    ] as const) {
      check(`y = x*2+1, [${rows0}, ${cols}] contiguous`, () => {
        if (fn === undefined) throw new Error('no function');
        const x = Tensor.from(randomFloats(rows0 * cols), [rows0, cols], 'Float');
        const { wrong, unwritten } = runAffine(fn, device, x);
        if (wrong + unwritten > 0) throw new Error(`${wrong} wrong, ${unwritten} unwritten of ${x.numel}`);
        return `all ${x.numel} elements exact`;
      });
    }

    check('y = x*2+1, transposed input (strides [1, rows])', () => {
      if (fn === undefined) throw new Error('no function');
      const [r, c] = [300, 517];
      const transposed = Tensor.fromHost(new HostTensor('Float', [r, c], [1, r], randomFloats(r * c)));
      const { wrong, unwritten } = runAffine(fn, device, transposed);
      if (wrong + unwritten > 0) throw new Error(`${wrong} wrong, ${unwritten} unwritten of ${transposed.numel}`);
      return `all ${transposed.numel} elements exact`;
    });

    check('launch timing (events, 16M floats)', () => {
      if (fn === undefined) throw new Error('no function');
      const n = 4096 * 4096;
      const x = Tensor.from(randomFloats(n), [4096, 4096], 'Float').toDevice(device);
      const y = Tensor.emptyDevice(device, 'Float', [4096, 4096]);
      try {
        const launch = affineLaunch(fn, device, x, y);
        for (let i = 0; i < 5; i += 1) launch();
        device.synchronize();
        const times: number[] = [];
        for (let i = 0; i < 30; i += 1) times.push(device.time(launch));
        const ms = median(times);
        const gbs = (n * 8) / (ms * 1e-3) / 1e9;
        Object.assign(metrics, { kernelMedianMs: ms, kernelGBps: gbs });
        return `median ${(ms * 1000).toFixed(1)} µs, ${gbs.toFixed(0)} GB/s (read+write)`;
      } finally {
        x.dispose();
        y.dispose();
      }
    });

    check('host launch overhead (tiny kernel, 2000 launches)', () => {
      if (fn === undefined) throw new Error('no function');
      const x = Tensor.from(randomFloats(32), [1, 32], 'Float').toDevice(device);
      const y = Tensor.emptyDevice(device, 'Float', [1, 32]);
      try {
        const args = packArguments(affineLayout, [x.asKernelArgument(), y.asKernelArgument(), 2, 1]);
        const k = fn;
        const launch = (): void => k.launch({ grid: 1, block: 32 }, args);
        for (let i = 0; i < 100; i += 1) launch();
        device.synchronize();
        const count = 2000;
        const start = performance.now();
        for (let i = 0; i < count; i += 1) launch();
        const enqueueUs = ((performance.now() - start) * 1000) / count;
        device.synchronize();
        const packStart = performance.now();
        for (let i = 0; i < count; i += 1) packArguments(affineLayout, [x.asKernelArgument(), y.asKernelArgument(), 2, 1]);
        const packUs = ((performance.now() - packStart) * 1000) / count;
        Object.assign(metrics, { launchEnqueueUs: enqueueUs, packArgumentsUs: packUs });
        return `${enqueueUs.toFixed(2)} µs per launch (enqueue), ${packUs.toFixed(2)} µs per packArguments`;
      } finally {
        x.dispose();
        y.dispose();
      }
    });

    check('Tensor round trips (Int, Half, Bool, poison)', () => {
      const ints = Tensor.from(new BigInt64Array([1n, -2n, 2n ** 40n]), [3], 'Int').toDevice(device);
      const halves = Tensor.from([0.5, -1.25, 65504], [3], 'Half').toDevice(device);
      const bools = Tensor.from(new Uint8Array([1, 0, 1]), [3], 'Bool').toDevice(device);
      const copy = halves.toDevice(device);
      try {
        const got = JSON.stringify([ints.toArray().map(String), halves.toArray(), bools.toArray(), copy.toArray()]);
        const want = JSON.stringify([['1', '-2', String(2n ** 40n)], [0.5, -1.25, 65504], [1, 0, 1], [0.5, -1.25, 65504]]);
        if (got !== want) throw new Error(`got ${got}`);
        copy.poison();
        if (!copy.toArray().every((v) => Number.isNaN(v))) throw new Error('poisoned Half is not all NaN');
        ints.poison();
        if (!ints.toArray().every((v) => v === -1n)) throw new Error('poisoned Int is not all -1');
        return 'ok';
      } finally {
        for (const t of [ints, halves, bools, copy]) t.dispose();
      }
    });

    check('bad kernel source → CompileError with log', () => {
      const error = expectThrow(CompileError, () => device.compile(BROKEN_SOURCE, { name: 'broken.cu' }));
      if (!error.log.includes('undeclared_identifier')) throw new Error(`log lacks the identifier: ${error.log}`);
      return error.log.split('\n').find((line) => line.includes('error')) ?? error.log.slice(0, 80);
    });

    check('launch with 2048 threads per block → CudaError', () => {
      if (fn === undefined) throw new Error('no function');
      const k = fn;
      const error = expectThrow(CudaError, () => k.launch({ grid: 1, block: 2048 }, new Uint8Array(affineLayout.size)));
      return `${error.call}: ${error.errorName}`;
    });

    check('launch with a short argument buffer → CudaError', () => {
      if (fn === undefined) throw new Error('no function');
      const k = fn;
      const error = expectThrow(CudaError, () => k.launch({ grid: 1, block: 32 }, new Uint8Array(16)));
      return `${error.call}: ${error.errorName}`;
    });

    check('missing function → CudaError', () => {
      const compiled = device.compile(POINTWISE_SOURCE, { options: ['--std=c++17'] });
      const module = device.loadModule(compiled.cubin);
      try {
        const error = expectThrow(CudaError, () => module.getFunction('no_such_kernel'));
        return `${error.call}: ${error.errorName}`;
      } finally {
        module.unload();
      }
    });

    check('dynamic shared memory > 48 KiB needs the attribute', () => {
      if (shared === undefined) throw new Error('no function');
      const k = shared;
      const n = 1024;
      const out = Tensor.emptyDevice(device, 'Float', [n]);
      try {
        const bytes = Math.min(100 * 1024, p.maxSharedMemoryPerBlockOptin);
        const args = packArguments(parameterLayout([{ kind: 'pointer' }, { kind: 'scalar', dtype: 'Int32' }]), [out.dataPtr, n]);
        const refused = expectThrow(CudaError, () => k.launch({ grid: n / 256, block: 256, sharedBytes: bytes }, args));
        k.setMaxDynamicSharedMemory(bytes);
        out.poison();
        k.launch({ grid: n / 256, block: 256, sharedBytes: bytes }, args);
        device.synchronize();
        const got = out.toArray();
        for (let i = 0; i < n; i += 1) {
          const expected = Math.floor(i / 256) * 256 + (255 - (i % 256));
          if (got[i] !== expected) throw new Error(`out[${i}] = ${String(got[i])}, want ${expected}`);
        }
        return `${bytes} B: refused (${refused.errorName}) without, ran with the attribute`;
      } finally {
        out.dispose();
      }
    });

    check('context still healthy after errors', () => {
      if (fn === undefined) throw new Error('no function');
      const x = Tensor.from(randomFloats(1000), [10, 100], 'Float');
      const { wrong, unwritten } = runAffine(fn, device, x);
      if (wrong + unwritten > 0) throw new Error(`${wrong} wrong, ${unwritten} unwritten`);
      return 'ok';
    });

    check('no leaked device allocations', () => {
      if (device.liveAllocationCount !== 0) throw new Error(`${device.liveAllocationCount} live allocations`);
      const info = device.memoryInfo();
      return `free ${(info.free / 2 ** 30).toFixed(1)} of ${(info.total / 2 ** 30).toFixed(1)} GiB`;
    });
  } finally {
    device.dispose();
    rmSync(cacheDir, { recursive: true, force: true });
  }

  const width = Math.max(...rows.map((r) => r.check.length));
  console.log('');
  console.log(`${'check'.padEnd(width)}  result  detail`);
  for (const row of rows) console.log(`${row.check.padEnd(width)}  ${row.ok ? 'PASS  ' : 'FAIL  '}  ${row.detail}`);
  const failed = rows.filter((r) => !r.ok).length;
  console.log(`\nmetrics: ${JSON.stringify(metrics)}`);
  console.log(`SMOKE: ${rows.length - failed} passed, ${failed} failed`);
  const out = process.env.OUT;
  if (out !== undefined && out !== '') {
    writeFileSync(join(out, 'runtime-smoke.json'), JSON.stringify({ date: new Date().toISOString(), rows, metrics }, null, 2));
  }
  return failed === 0 ? 0 : 1;
}

process.exitCode = main();
