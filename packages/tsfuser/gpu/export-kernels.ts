// Kernel export for tools/bench/kernel_ab.py: compiles bench workloads — the normalization ones
// (16384×4096 softmax, layer_norm, rms_norm) with the inner persistent heuristic and with any
// overrides given, any other workload of tensor inputs (cat, pad, RoPE, transposes, …) as the
// default scheduler registry schedules it — and writes each kernel's full CUDA source, launch dimensions and parameter
// layout (which fusion input or output each Tensor parameter is) plus manifest.json, so the
// Python harness can launch the very kernels tsfuser would, beside torch.compile, in one
// process. Needs no GPU (the H100's properties are the scheduler's default device).
//
//   bash gpu-bundle/run.sh tsfuser-export-kernels <dir> [workload,…] ['{"name": {overrides}, …}']
//   (a workload may be named `name@d0xd1x…`: the same workload at other sizes, see `atSizes`)
//   (inner persistent overrides, or {"pointwise": {…}} for the pointwise-scheduled workloads)
//   python3 tools/bench/kernel_ab.py <dir> [--mode blocked|interleaved] [--rounds N]

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileFusion } from '@tsfuser/codegen';
import { defaultSchedulerRegistry, InnerPersistentScheduler, makeRuntimeInfo, PointwiseScheduler, SchedulerRegistry, type InnerPersistentOverrides, type PointwiseOverrides } from '@tsfuser/scheduler';
import { benchWorkloads, normalizationWorkloads, type Workload } from '../src/bench/workloads.js';

export interface ExportedParam {
  kind: 'tensor' | 'scalar';
  rank: number;
  role: 'input' | 'output';
  position: number;
  dtype: string;
  offset: number;
  size: number;
}

export interface ExportedKernel {
  workload: string;
  variant: string;
  file: string;
  kernel: string;
  grid: [number, number, number];
  block: [number, number, number];
  smem: number;
  indexType: string;
  params: ExportedParam[];
  /**
   * The fast-division parameter after `params` (codegen's DivisorArgument), or null: per divisor
   * the index in `params` of the tensor and the dim whose size it divides by; kernel_ab.py packs
   * (magic, shift) for each as 32-bit words (divisor-magic.ts).
   */
  divisors: { offset: number; size: number; sources: { param: number; dim: number }[] } | null;
  argBytes: number;
  /** `positive`: kernel_ab.py fills it with values in [0.5, 1.5) (variances), as pytorch_bench.py does. */
  inputs: { sizes: number[]; dtype: string; positive?: boolean }[];
}

/**
 * A variant: inner persistent overrides (normalization workloads), or `{ pointwise: overrides }`
 * (pointwise-scheduled workloads: cat, pad, RoPE, permutes).
 */
export type ExportVariant = InnerPersistentOverrides | { pointwise: PointwiseOverrides };

/**
 * The kernels of the named workloads (all normalization workloads when none): a normalization
 * workload under the heuristic and each inner persistent variant, any other under the default
 * registry and, where it is pointwise, each `{ pointwise }` variant.
 */
export function exportKernels(workloads: readonly string[] | undefined, variants: Record<string, ExportVariant>): { kernel: ExportedKernel; source: string }[] {
  const normalization = new Set(normalizationWorkloads().map((w) => w.name));
  const pool = workloads === undefined ? normalizationWorkloads() : benchWorkloads();
  const baseName = (spec: string): string => spec.split('@')[0] ?? spec;
  const unknown = (workloads ?? []).filter((n) => !pool.some((w) => w.name === baseName(n)));
  if (unknown.length > 0) throw new Error(`export-kernels: unknown workload(s) ${unknown.join(', ')}; known: ${pool.map((w) => w.name).join(', ')}`);
  // In the registry's order (as before `@sizes` existed), each spec at its sizes.
  const chosenWorkloads = workloads === undefined
    ? pool
    : pool.flatMap((w) => workloads.filter((spec) => baseName(spec) === w.name).map((spec) => (spec.includes('@') ? atSizes(w, spec, spec.slice(spec.indexOf('@') + 1)) : w)));
  const out: { kernel: ExportedKernel; source: string }[] = [];
  for (const w of chosenWorkloads) {
    const fusion = w.build().fusionIr();
    const info = makeRuntimeInfo(fusion, w.inputs.map((i) => ({ sizes: i.sizes })));
    const persistent = normalization.has(baseName(w.name));
    const pointwise = !persistent && defaultSchedulerRegistry().pick(fusion, info).scheduler.type === 'pointwise';
    const chosen: [string, SchedulerRegistry][] = [['heuristic', persistent ? new SchedulerRegistry([new InnerPersistentScheduler({})]) : defaultSchedulerRegistry()]];
    for (const [name, v] of Object.entries(variants)) {
      if ('pointwise' in v) {
        if (pointwise) chosen.push([name, new SchedulerRegistry([new PointwiseScheduler(v.pointwise)])]);
      } else if (persistent) {
        chosen.push([name, new SchedulerRegistry([new InnerPersistentScheduler(v)])]);
      }
    }
    for (const [variant, registry] of chosen) {
      if (!/^[A-Za-z0-9_.-]+$/.test(variant)) throw new Error(`export-kernels: variant name "${variant}" must be letters, digits, _ . -`);
      const k = compileFusion(fusion, info, { registry });
      const params = k.args.slots.map((s): ExportedParam => ({
        kind: s.param.kind,
        rank: s.param.kind === 'tensor' ? s.param.rank : 0,
        role: s.param.role,
        position: s.param.position,
        dtype: s.param.dtype,
        offset: s.offset,
        size: s.size,
      }));
      out.push({
        source: k.source,
        kernel: {
          workload: w.name,
          variant,
          file: `${w.name}__${variant}.cu`,
          kernel: k.kernelName,
          grid: k.launch.grid,
          block: k.launch.block,
          smem: k.launch.sharedMemBytes,
          indexType: k.indexType,
          params,
          divisors: k.args.divisors === null ? null : { offset: k.args.divisors.offset, size: k.args.divisors.size, sources: k.args.divisors.sources.map((d) => ({ param: d.slot, dim: d.dim })) },
          argBytes: k.args.size,
          inputs: w.inputs.map((i) => ({ sizes: [...i.sizes], dtype: i.dtype, ...(i.positive === true ? { positive: true } : {}) })),
        },
      });
    }
  }
  return out;
}

/**
 * `w` at other sizes (`spec` = `name@d0xd1x…`, kernel_ab.py times it with `name`'s PyTorch
 * function): input 0 takes the given sizes; every other input of the same rank keeps its size-1
 * dims and takes the new size elsewhere (RoPE's cos [1, S, 1, D] follows x [B, S, H, D]).
 */
function atSizes(w: Workload, spec: string, text: string): Workload {
  const sizes = text.split('x').map(Number);
  const first = w.inputs[0];
  if (first === undefined || sizes.length !== first.sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new Error(`export-kernels: ${spec}: give ${first?.sizes.length ?? 0} positive sizes joined by x`);
  }
  return {
    ...w,
    name: spec,
    inputs: w.inputs.map((i, k) => ({ ...i, sizes: k === 0 ? sizes : i.sizes.length === sizes.length ? i.sizes.map((n, d) => (n === 1 ? 1 : sizes[d] ?? n)) : i.sizes })),
  };
}

function main(): void {
  const dir = process.argv[2];
  if (dir === undefined) {
    console.error('usage: tsfuser-export-kernels <dir> [workload,…] [\'{"variant": {overrides}}\']');
    process.exitCode = 2;
    return;
  }
  const workloads = process.argv[3]?.split(',').filter((s) => s.length > 0);
  const variants = JSON.parse(process.argv[4] ?? '{}') as Record<string, ExportVariant>;
  const exported = exportKernels(workloads, variants);
  mkdirSync(dir, { recursive: true });
  for (const e of exported) writeFileSync(join(dir, e.kernel.file), e.source);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(exported.map((e) => e.kernel), null, 1));
  console.log(`export-kernels: ${exported.length} kernels → ${dir}`);
}

if (process.argv[1]?.endsWith('tsfuser-export-kernels.mjs') === true) main();
