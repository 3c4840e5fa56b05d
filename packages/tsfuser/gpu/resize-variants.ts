// Tuning experiment (GPU): the resize bench workloads (cat3_dim0_bf16, cat3_dim1_bf16, pad_bf16,
// rope_bf16) under several pointwise schedules — the heuristic, the flat 1-D schedule the 2-D
// resize rule replaced (scheduler pointwise/resize/two-d.ts), and 2-D with blockDim.x 32 / 64 / 128 / 256
// × unroll 1 / 2 / 4 — each kernel launched alone on preallocated outputs, timed as `tsfuser
// bench` times (CUDA events, L2 flushed), beside the device-to-device copy floor; every variant's
// output is compared in full, bit for bit, with the heuristic kernel's, and the heuristic kernel's
// output of the pad and the cats with the values written out on the host (bf16 bits moved as
// F.pad / torch.cat move them). Then the heuristic kernel under the cache hints of
// cache-hint-variants.ts (Inductor marks its cat / pad loads evict_last), and with its extents as
// fast divisors or literals (index-math-variants.ts: what its run-time divisions cost; applied to
// the kernel with codegen's fast division off, which is also timed as a schedule), and for
// RoPE hand-written kernels reading x's partner once (rope-bound-kernels.ts). Prints one table.
//
//   bash gpu-bundle/run.sh tsfuser-resize-variants [workload,…|all] [cache|index]
//   (cache: the cache hints only; index: the heuristic, its unroll 2, 2-D 128 × 2 and 256 × 2, the index-math variants)

import { DeviceContext, Tensor, isAvailable } from '@tsfuser/device';
import { FusionExecutor, runtimeInfoFor, schedulerDevice } from '@tsfuser/runtime';
import { bindExtents, PointwiseScheduler, SchedulerRegistry, tensorSizes, type PointwiseOverrides } from '@tsfuser/scheduler';
import type { HostTensor, TensorView } from '@tsfuser/fusion-ir';
import { compileFusion } from '@tsfuser/codegen';
import { CACHE_VARIANTS, patchCacheHints } from './cache-hint-variants.js';
import { kernelParamNames, patchConstantExtents, patchFastDivision } from './index-math-variants.js';
import { ropeBoundKernels } from './rope-bound-kernels.js';
import { randomHost, toDeviceInput, Random } from '../src/bench/device-inputs.js';
import { copyBandwidth, l2Flusher, timeDevice } from '../src/bench/timing.js';
import { printVariantTable, variantErrorRow, variantRow } from './variant-table.js';
import { resizeWorkloads } from '../src/bench/resize-workloads.js';

const ITERS = 30;

/** The bf16 bits F.pad(x, (8, 8, 1, 1)) / torch.cat of three 2-D inputs write, or null (RoPE: computed). */
function expectedBits(name: string, inputs: readonly HostTensor[]): Uint16Array | null {
  const bits = inputs.map((t) => t.data as Uint16Array);
  const [rows, cols] = inputs[0]?.sizes ?? [0, 0];
  if (rows === undefined || cols === undefined) return null;
  if (name === 'pad_bf16') {
    const oc = cols + 16;
    const out = new Uint16Array((rows + 2) * oc);
    for (let r = 0; r < rows; r += 1) out.set((bits[0] as Uint16Array).subarray(r * cols, (r + 1) * cols), (r + 1) * oc + 8);
    return out;
  }
  if (name === 'cat3_dim0_bf16') {
    const out = new Uint16Array(3 * rows * cols);
    bits.forEach((b, k) => out.set(b, k * rows * cols));
    return out;
  }
  if (name === 'cat3_dim1_bf16') {
    const out = new Uint16Array(rows * 3 * cols);
    for (let r = 0; r < rows; r += 1) bits.forEach((b, k) => out.set(b.subarray(r * cols, (r + 1) * cols), r * 3 * cols + k * cols));
    return out;
  }
  return null;
}

function variants(rank: number): { name: string; overrides: PointwiseOverrides }[] {
  const out: { name: string; overrides: PointwiseOverrides }[] = [
    { name: 'heuristic', overrides: {} },
    // The heuristic's kernel with C divisions by its run-time extents (codegen's fast division
    // off): the before of issue 38's fast division, in the same run.
    { name: 'heuristic, fast division off', overrides: { fastDivision: false } },
    { name: '1D (heuristic block / unroll)', overrides: { breakPoint: 0 } },
    // The heuristic's schedule at unroll 2 (issue 38, H200: pad's 2-D variants at unroll 2 were
    // 3% faster than at unroll 1, the rule for every resize fusion).
    { name: 'heuristic, unroll=2', overrides: { unroll: 2 } },
  ];
  // RoPE (rank 4): the batch on blockIdx.y, so cos / sin's row is (flat / D) / H with no modulo
  // by S — two run-time divisions a thread instead of three.
  if (rank > 2) out.push({ name: '2D break point 1 (outer dim on blockIdx.y)', overrides: { breakPoint: 1 } });
  for (const unroll of [1, 2, 4]) out.push({ name: `1D bdimx=128 unroll=${unroll}`, overrides: { breakPoint: 0, bdimx: 128, unroll } });
  for (const bdimx of [32, 64, 128, 256]) for (const unroll of [1, 2, 4]) out.push({ name: `2D bdimx=${bdimx} unroll=${unroll}`, overrides: { breakPoint: rank - 1, bdimx, unroll } });
  return out;
}

function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU');
    process.exitCode = 1;
    return;
  }
  const wanted = process.argv[2] === undefined || process.argv[2] === 'all' ? undefined : process.argv[2].split(',');
  const mode = process.argv[3];
  const INDEX_MODE_SCHEDULES = ['heuristic', 'heuristic, fast division off', 'heuristic, unroll=2', '2D break point 1 (outer dim on blockIdx.y)', '2D bdimx=128 unroll=2', '2D bdimx=256 unroll=2'];
  const device = DeviceContext.create(0);
  const flusher = l2Flusher(device);
  const floor = copyBandwidth(device, flusher, ITERS);
  const rng = new Random(7);
  const rows: string[] = [];
  let different = 0;
  for (const w of resizeWorkloads().filter((x) => wanted === undefined || wanted.includes(x.name))) {
    const fusion = w.build().fusionIr();
    const inputs = w.inputs.map((i) => {
      const strides = i.sizes.map((_, d) => i.sizes.slice(d + 1).reduce((a, b) => a * b, 1));
      return toDeviceInput(device, randomHost(i.dtype, i.sizes, strides, rng), false);
    });
    const args = inputs.map((i) => i.tensor);
    const info = runtimeInfoFor(fusion, args, schedulerDevice(device.properties));
    const ref = fusion.outputs[0] as TensorView;
    const out = Tensor.emptyDevice(device, ref.dtype, tensorSizes(ref, bindExtents(fusion, info)));
    const values = [...args.map((a) => a.asKernelArgument()), out.asKernelArgument()];
    let reference: Uint8Array | undefined;
    const schedules = variants(ref.domain.logicalNoReductions().length);
    for (const v of mode === 'cache' ? schedules.slice(0, 1) : mode === 'index' ? schedules.filter((x) => INDEX_MODE_SCHEDULES.includes(x.name)) : schedules) {
      try {
        const exec = FusionExecutor.compile(device, fusion, info, { registry: new SchedulerRegistry([new PointwiseScheduler(v.overrides)]) });
        out.poison();
        exec.launch(values);
        const data = out.toHost().data;
        const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
        if (reference === undefined) {
          reference = bytes.slice();
          const want = expectedBits(w.name, inputs.map((i) => i.host));
          if (want !== null) {
            const ok = Buffer.compare(bytes, new Uint8Array(want.buffer, want.byteOffset, want.byteLength)) === 0;
            if (!ok) different += 1;
            rows.push(`| ${w.name} | heuristic output vs values written out on the host | | | | | ${ok ? 'same' : 'DIFFERENT'} |`);
          }
        }
        const same = Buffer.compare(bytes, reference) === 0;
        if (!same) different += 1;
        const ms = timeDevice(device, flusher, () => exec.launch(values), ITERS);
        rows.push(variantRow(w.name, v.name, exec.kernel.launch, ms, w.bytes, floor, same));
      } catch (error) {
        rows.push(variantErrorRow(w.name, v.name, error));
      }
    }
    // The source rewrites below start from plain extent declarations: the kernel without
    // codegen's fast division (whose divisors they would otherwise declare twice).
    const kernel = compileFusion(fusion, info, { registry: new SchedulerRegistry([new PointwiseScheduler({ fastDivision: false })]) });
    const outSizes = out.sizes;
    const names = kernelParamNames(kernel.source);
    const extent = (param: string, dim: number): number => {
      const slot = kernel.args.slots[names.indexOf(param)];
      const sizes = slot === undefined ? undefined : slot.param.role === 'output' ? outSizes : inputs[slot.param.position]?.host.sizes;
      const n = sizes?.[dim];
      if (n === undefined) throw new Error(`no size for ${param}.logical_size[${dim}]`);
      return n;
    };
    const sources: { name: string; kind: 'cache' | 'index'; source: () => string }[] = [
      ...CACHE_VARIANTS.map((cv) => ({ name: `heuristic, ${cv.name}`, kind: 'cache' as const, source: () => patchCacheHints(kernel.source, cv.load, cv.store) })),
      { name: 'heuristic, fast division (IntDivider magic, __constant__)', kind: 'index', source: () => patchFastDivision(kernel.source, extent) },
      { name: 'heuristic, constant extents (bound)', kind: 'index', source: () => patchConstantExtents(kernel.source, extent) },
      // rope_bf16 at the bench's sizes under the 1-D heuristic launch only (the kernels assume it)
      ...(w.name === 'rope_bf16' && w.inputs[0]?.sizes[3] === 128 && kernel.launch.block[0] === 256 && kernel.launch.block[1] === 1
        ? ropeBoundKernels(kernel.source, kernel.kernelName, extent).map((k) => ({ name: k.name, kind: 'index' as const, source: () => k.source }))
        : []),
    ];
    for (const cv of sources.filter((x) => (mode === 'index' ? x.kind === 'index' : mode === 'cache' ? x.kind === 'cache' : true))) {
      try {
        const exec = FusionExecutor.fromKernel(device, { ...kernel, source: cv.source() });
        out.poison();
        exec.launch(values);
        const data = out.toHost().data;
        const same = reference !== undefined && Buffer.compare(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), reference) === 0;
        if (!same) different += 1;
        const ms = timeDevice(device, flusher, () => exec.launch(values), ITERS);
        rows.push(variantRow(w.name, cv.name, null, ms, w.bytes, floor, same));
      } catch (error) {
        rows.push(variantErrorRow(w.name, cv.name, error));
      }
    }
    out.dispose();
    for (const i of inputs) i.owner.dispose();
    device.releasePool();
  }
  flusher.dispose();
  printVariantTable(floor, ITERS, rows);
  if (different > 0) process.exitCode = 1;
  device.dispose();
}

main();
