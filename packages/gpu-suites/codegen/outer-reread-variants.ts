// Tuning experiment (GPU, issue 38): softmax over the outer dim (the sweep's softmax_outer and
// softmax_bwd_outer at [8192–16384, 4096]) under the outer persistent scheduler's re-read form
// (scheduler src/outer-persistent/reread-buffers.ts) with forced blocks — bdimx 8 / 16 / 32
// columns × 256 / 512 / 1024 threads — beside the heuristic, the register-persistent form
// (reread: false) and the segmented fallback without the outer persistent scheduler. Timed as
// `tsfuser bench` times (L2 flushed by a read, CUDA events, median of 20); each variant's outputs
// (poisoned first) are compared with the heuristic's on sampled elements (the heuristic itself is
// checked against the reference by `tsfuser run --check`: the full-size reference would take
// minutes on the host). Prints one table, fastest first per fusion, with GB/s of the minimum
// traffic (inputs read once, outputs written once).
//
//   bash gpu-bundle/run.sh codegen-outer-reread-variants

import { broadcast, cast, exp, Fusion, HostTensor, makeTensor, max, mul, reciprocal, sub, sum, type DataType, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { InnerPersistentScheduler, OuterPersistentScheduler, PointwiseScheduler, ReductionScheduler, SchedulerRegistry, type Scheduler } from '@tsfuser/scheduler';

interface Case {
  name: string;
  fusion: Fusion;
  sizes: number[][];
}

const overRows = (t: TensorView): TensorView => broadcast(t, [true, false]);
const f32 = (t: TensorView): TensorView => (t.dtype === 'Float' ? t : cast(t, 'Float'));

function softmaxCase(dtype: DataType, rows: number, cols: number, backward: boolean): Case {
  const f = new Fusion();
  const ins = Array.from({ length: backward ? 2 : 1 }, () => {
    const t = makeTensor(f, { shape: [-1, -1], dtype });
    f.addInput(t);
    return f32(t);
  });
  const [a, b] = ins as [TensorView, TensorView];
  let y: TensorView;
  if (backward) {
    y = mul(b, sub(a, overRows(sum(mul(a, b), [0]))));
  } else {
    const e = exp(sub(a, overRows(max(a, [0]))));
    y = mul(e, reciprocal(overRows(sum(e, [0]))));
  }
  f.addOutput(dtype === 'Float' ? y : cast(y, dtype));
  return { name: `${backward ? 'softmax_bwd_outer' : 'softmax_outer'} ${dtype} ${rows}x${cols}`, fusion: f, sizes: ins.map(() => [rows, cols]) };
}

function registries(rows: number): { name: string; schedulers: Scheduler[] }[] {
  const base = (): Scheduler[] => [new PointwiseScheduler(), new ReductionScheduler(), new InnerPersistentScheduler()];
  const out = [
    { name: 'heuristic', schedulers: [...base(), new OuterPersistentScheduler()] },
    { name: 'registers (reread: false)', schedulers: [...base(), new OuterPersistentScheduler({ reread: false })] },
    { name: 'fallback (no outer persistent)', schedulers: base() },
  ];
  for (const bdimx of [8, 16, 32]) {
    for (const threads of [256, 512, 1024]) {
      const batches = Math.ceil(rows / (threads / bdimx));
      out.push({ name: `reread bdimx=${bdimx} threads=${threads} (batches ${batches})`, schedulers: [...base(), new OuterPersistentScheduler({ reread: true, bdimx, batches })] });
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
  const device = DeviceContext.create(0);
  const flusher = l2Flusher(device);
  const cases = [
    softmaxCase('BFloat16', 8192, 4096, false),
    softmaxCase('Float', 8192, 4096, false),
    softmaxCase('BFloat16', 16384, 4096, false),
    softmaxCase('BFloat16', 8192, 4096, true),
  ];
  const lines: string[] = [];
  for (const c of cases) {
    const hosts = c.fusion.inputs.map((v, i) => {
      const sizes = c.sizes[i] as number[];
      return HostTensor.fromValues((v as TensorView).dtype, sizes, Array.from({ length: sizes.reduce((x, y) => x * y, 1) }, () => (Math.random() - 0.5) * 8));
    });
    const args = hosts.map((h) => Tensor.fromHost(h).toDevice(device));
    const elements = (c.sizes[0] as number[]).reduce((x, y) => x * y, 1);
    const bytes = (args.length + 1) * elements * ((c.fusion.inputs[0] as TensorView).dtype === 'Float' ? 4 : 2);
    const rows: { ms: number; text: string }[] = [];
    let want: number[][] | null = null;
    for (const r of registries((c.sizes[0] as number[])[0] as number)) {
      try {
        const registry = new SchedulerRegistry(r.schedulers);
        const check = new FusionExecutorCache(c.fusion, device, { registry, poisonOutputs: true });
        const got = check.runFusion(args).map((t) => {
          const n = t.toHost().toNumbers();
          t.dispose();
          return n;
        });
        want ??= got;
        let bad = 0;
        got.forEach((g, i) => {
          const w = (want as number[][])[i] ?? [];
          const tol = (c.fusion.inputs[0] as TensorView).dtype === 'Float' ? 1e-4 : 2e-2;
          for (let k = 0; k < w.length; k += 101) if (!(Math.abs((g[k] as number) - (w[k] as number)) <= tol * Math.max(1e-3, Math.abs(w[k] as number)))) bad += 1;
        });
        const timed = new FusionExecutorCache(c.fusion, device, { registry });
        const ms = timeDevice(device, flusher, () => {
          for (const t of timed.runFusion(args)) t.dispose();
        }, 20);
        rows.push({ ms, text: `| ${c.name} | ${r.name} | ${timed.stats.kernels} | ${(ms * 1000).toFixed(1)} µs | ${(bytes / (ms * 1e-3) / 1e9).toFixed(0)} GB/s | ${bad === 0 ? 'ok' : `${bad} MISMATCHES`} |` });
      } catch (error) {
        rows.push({ ms: Infinity, text: `| ${c.name} | ${r.name} | | error: ${(error as Error).message.split('\n')[0]?.slice(0, 100) ?? ''} | | |` });
      }
    }
    rows.sort((a, b) => a.ms - b.ms);
    lines.push(...rows.map((x) => x.text));
    for (const a of args) a.dispose();
    device.releasePool();
  }
  flusher.dispose();
  console.log('| fusion | variant | kernels | median | GB/s (min traffic) | check vs heuristic |\n|---|---|---:|---:|---:|---|');
  console.log(lines.join('\n'));
  device.dispose();
}

main();
