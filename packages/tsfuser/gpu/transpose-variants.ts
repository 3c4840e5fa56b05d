// Tuning experiment (GPU): the transpose bench workloads (transpose_f32, transpose_bf16 through
// the transpose scheduler; permute_bshd_bf16 through the pointwise scheduler) under several
// schedules — the heuristic; for the 2-D transposes tile 32 / 64 × blockDim.x 64 / 128 / 256 ×
// the widest and half the widest vector; for the head-merge permute blockDim.x 128 / 256 × unroll
// 1 / 2 / 4 — each kernel launched alone on a preallocated output and timed as `tsfuser bench`
// times (CUDA events, L2 flushed by a read), beside the device-to-device copy floor. Every
// variant's output is compared in full, bit for bit, with the permutation written out on the host
// (the values only move). Prints one table.
//
//   bash gpu-bundle/run.sh tsfuser-transpose-variants [workload,…]

import { DeviceContext, Tensor, isAvailable } from '@tsfuser/device';
import { FusionExecutor, runtimeInfoFor, schedulerDevice } from '@tsfuser/runtime';
import { bindExtents, PointwiseScheduler, SchedulerRegistry, tensorSizes, TransposeScheduler, type Scheduler } from '@tsfuser/scheduler';
import { dataTypeSize, type HostTensor, type TensorView } from '@tsfuser/fusion-ir';
import { randomHost, toDeviceInput, Random } from '../src/bench/device-inputs.js';
import { copyBandwidth, l2Flusher, timeDevice } from '../src/bench/timing.js';
import { printVariantTable, variantErrorRow, variantRow } from './variant-table.js';
import { transposeWorkloads } from '../src/bench/transpose-workloads.js';

const ITERS = 30;

/** The bytes of `x` permuted by `perm` and written row-major (what .permute(perm).contiguous() holds). */
function permutedBytes(x: HostTensor, perm: readonly number[]): Uint8Array {
  const width = dataTypeSize(x.dtype);
  const src = new Uint8Array(x.data.buffer, x.data.byteOffset, x.data.byteLength);
  const outSizes = perm.map((p) => x.sizes[p] ?? 1);
  const inStrides = x.sizes.map((_, d) => x.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
  const out = new Uint8Array(src.length);
  const rank = outSizes.length;
  const index = new Array<number>(rank).fill(0);
  const inner = outSizes[rank - 1] ?? 1;
  const innerStride = inStrides[perm[rank - 1] ?? 0] ?? 1;
  for (let o = 0; o < src.length / width; o += inner) {
    let base = 0;
    for (let d = 0; d < rank - 1; d += 1) base += (index[d] ?? 0) * (inStrides[perm[d] ?? 0] ?? 0);
    for (let k = 0; k < inner; k += 1) out.set(src.subarray((base + k * innerStride) * width, (base + k * innerStride + 1) * width), (o + k) * width);
    for (let d = rank - 2; d >= 0; d -= 1) {
      index[d] = (index[d] ?? 0) + 1;
      if ((index[d] ?? 0) < (outSizes[d] ?? 1)) break;
      index[d] = 0;
    }
  }
  return out;
}

function variants(name: string, dtypeBytes: number): { name: string; scheduler: Scheduler }[] {
  if (name === 'permute_bshd_bf16') {
    const out: { name: string; scheduler: Scheduler }[] = [{ name: 'heuristic', scheduler: new PointwiseScheduler() }];
    for (const bdimx of [128, 256]) for (const unroll of [1, 2, 4]) out.push({ name: `pointwise 1D bdimx=${bdimx} unroll=${unroll}`, scheduler: new PointwiseScheduler({ breakPoint: 0, bdimx, unroll }) });
    return out;
  }
  const widest = 16 / dtypeBytes;
  const out: { name: string; scheduler: Scheduler }[] = [{ name: 'heuristic', scheduler: new TransposeScheduler() }];
  for (const tileSize of [32, 64]) {
    for (const bdimx of [64, 128, 256]) {
      for (const v of [widest, widest / 2]) {
        out.push({ name: `tile=${tileSize} bdimx=${bdimx} vec=${v}`, scheduler: new TransposeScheduler({ tileSize, bdimx, vectorizeFactor1: v, vectorizeFactor2: v }) });
      }
    }
  }
  return out;
}

function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU');
    process.exitCode = 1;
    return;
  }
  const wanted = process.argv[2]?.split(',');
  const device = DeviceContext.create(0);
  const flusher = l2Flusher(device);
  const floor = copyBandwidth(device, flusher, ITERS);
  const rng = new Random(11);
  const rows: string[] = [];
  let different = 0;
  for (const w of transposeWorkloads().filter((x) => wanted === undefined || wanted.includes(x.name))) {
    const definition = w.build();
    const fusion = definition.fusionIr();
    const spec = w.inputs[0];
    if (spec === undefined) continue;
    const strides = spec.sizes.map((_, d) => spec.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
    const input = toDeviceInput(device, randomHost(spec.dtype, spec.sizes, strides, rng), false);
    const perm = w.name === 'permute_bshd_bf16' ? [0, 2, 1, 3] : [1, 0];
    const want = permutedBytes(input.host, perm);
    const args = [input.tensor];
    const info = runtimeInfoFor(fusion, args, schedulerDevice(device.properties));
    const ref = fusion.outputs[0] as TensorView;
    const out = Tensor.emptyDevice(device, ref.dtype, tensorSizes(ref, bindExtents(fusion, info)));
    const values = [input.tensor.asKernelArgument(), out.asKernelArgument()];
    for (const v of variants(w.name, dataTypeSize(spec.dtype))) {
      try {
        const exec = FusionExecutor.compile(device, fusion, info, { registry: new SchedulerRegistry([v.scheduler]) });
        out.poison();
        exec.launch(values);
        const data = out.toHost().data;
        const same = Buffer.compare(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), want) === 0;
        if (!same) different += 1;
        const ms = timeDevice(device, flusher, () => exec.launch(values), ITERS);
        rows.push(variantRow(w.name, v.name, exec.kernel.launch, ms, w.bytes, floor, same));
      } catch (error) {
        rows.push(variantErrorRow(w.name, v.name, error));
      }
    }
    out.dispose();
    input.owner.dispose();
    device.releasePool();
  }
  flusher.dispose();
  printVariantTable(floor, ITERS, rows);
  if (different > 0) process.exitCode = 1;
  device.dispose();
}

main();
