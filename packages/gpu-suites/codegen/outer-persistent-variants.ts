// Tuning experiment (GPU): batch-norm-like fusions (outer persistent pattern) under forced outer
// persistent choices (columns per block, persistent batch) and under the fallback the default
// registry would take without the outer persistent scheduler (reduction + pointwise segments,
// the input read twice), timed as `tsfuser bench` times (L2 flushed by a read, CUDA events,
// median of 20). Every variant's outputs are first checked against the reference evaluator on
// sampled elements. Prints one table, fastest first per fusion.
//
//   bash gpu-bundle/run.sh codegen-outer-persistent-variants

import { evaluate, HostTensor, type TensorView } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { InnerPersistentScheduler, OuterPersistentScheduler, PointwiseScheduler, ReductionScheduler, SchedulerRegistry, type Scheduler } from '@tsfuser/scheduler';
import { batchNormCase, buildOuter, minusMean, randomBatchNormInputs, type BatchNormCase, type OuterCase } from '@tsfuser/test-support';

function inputsOf(c: OuterCase | BatchNormCase): HostTensor[] {
  if (!('kind' in c)) return randomBatchNormInputs(c);
  return c.fusion.inputs.map((v, i) => {
    const sizes = c.sizes[i] as number[];
    return HostTensor.fromValues((v as TensorView).dtype, sizes, Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, () => (Math.random() - 0.5) * 8));
  });
}

function registries(): { name: string; schedulers: Scheduler[] }[] {
  const base = (): Scheduler[] => [new PointwiseScheduler(), new ReductionScheduler(), new InnerPersistentScheduler()];
  const out = [
    { name: 'heuristic', schedulers: [...base(), new OuterPersistentScheduler()] },
    { name: 'fallback (no outer persistent)', schedulers: base() },
  ];
  for (const bdimx of [8, 16, 32, 64]) for (const batches of [4, 8, 16, 32, 64]) out.push({ name: `bdimx=${bdimx} batches=${batches}`, schedulers: [...base(), new OuterPersistentScheduler({ bdimx, batches })] });
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
  const cases: (OuterCase | BatchNormCase)[] = [
    buildOuter('batch_norm', 'Float', [4096, 4096]),
    buildOuter('batch_norm', 'BFloat16', [4096, 4096]),
    buildOuter('minus_mean', 'Float', [1024, 16384]),
    batchNormCase('BFloat16', [8, 32, 32, 1024], true, []),
    batchNormCase('Float', [64, 28, 28, 256], true, []),
    minusMean([256, 4096], []),
  ];
  const lines: string[] = [];
  for (const c of cases) {
    const hosts = inputsOf(c);
    const want = evaluate(c.fusion, hosts) as HostTensor[];
    const wantNumbers = want.map((w) => w.toNumbers());
    const args = hosts.map((h) => Tensor.fromHost(h).toDevice(device));
    const bytes = [...args, ...want].reduce((a, t) => a + t.sizes.reduce((x, y) => x * y, 1) * (t.dtype === 'Float' ? 4 : 2), 0);
    const rows: { ms: number; text: string }[] = [];
    for (const r of registries()) {
      try {
        const registry = new SchedulerRegistry(r.schedulers);
        const check = new FusionExecutorCache(c.fusion, device, { registry, poisonOutputs: true });
        const outs = check.runFusion(args);
        let bad = 0;
        outs.forEach((t, i) => {
          const got = t.toHost().toNumbers();
          const w = wantNumbers[i] ?? [];
          const tol = t.dtype === 'Float' ? 1e-3 : 3e-2;
          for (let k = 0; k < w.length; k += 101) if (!(Math.abs((got[k] as number) - (w[k] as number)) <= tol * Math.max(1, Math.abs(w[k] as number)))) bad += 1;
          t.dispose();
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
    lines.push(...rows.filter((x) => x.ms < Infinity).slice(0, 8).map((x) => x.text));
    lines.push(...rows.filter((x) => x.text.includes('| heuristic |') || x.text.includes('| fallback')).map((x) => x.text));
    for (const a of args) a.dispose();
    device.releasePool();
  }
  flusher.dispose();
  console.log('| fusion | variant | kernels | median | GB/s (min traffic) | check |\n|---|---|---:|---:|---:|---|');
  console.log(lines.join('\n'));
  device.dispose();
}

main();
