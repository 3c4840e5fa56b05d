// The scatter part of tsfuser-indexing-suite (GPU only): scatter and index_put_accumulate
// through FusionExecutorCache (default registry: the launch plan's copy of self, then the greedy
// scatter kernel; pointwise segments around it), into poisoned outputs, against the reference
// evaluator — the fixtures at two sizes and N seeded random cases (scatterMismatch: scatter
// exact with unique indices, index_put_accumulate within the atomics' rounding bound); then a
// timing of index_put_accumulate at embedding-backward size (8192 rows of 4096 bf16 into a
// [128256, 4096] table) with its copy; and, when asked, a scatter with an index = size that must
// fail the launch (trap).

import { evaluate, HostTensor } from '@tsfuser/fusion-ir';
import { FusionExecutorCache, type ExecutorArgument } from '@tsfuser/runtime';
import { l2Flusher, Tensor, timeDevice, type DeviceContext } from '@tsfuser/device';
import { randomScatterCase, scatterCases, scatterInputs, scatterMismatch, seededRandom, type ScatterCase } from '@tsfuser/test-support';

export interface SuiteRow {
  name: string;
  ok: boolean;
  detail: string;
}

function upload(device: DeviceContext, inputs: readonly HostTensor[]): Tensor[] {
  return inputs.map((x) => Tensor.fromHost(x).toDevice(device));
}

/** One case through the executor cache; returns the kernel count, throws on a mismatch. */
function runCase(device: DeviceContext, c: ScatterCase, seed: number): string {
  const inputs = scatterInputs(c, seededRandom(seed));
  const want = evaluate(c.fusion, inputs) as HostTensor[];
  const owned = upload(device, inputs);
  const cache = new FusionExecutorCache(c.fusion, device, { poisonOutputs: true });
  try {
    const outs = cache.runFusion(owned as ExecutorArgument[]);
    device.synchronize();
    const got = outs.map((o) => o.toHost());
    for (const o of outs) o.dispose();
    const m = scatterMismatch(c, inputs, got, want);
    if (m !== null) throw new Error(m);
    return `${cache.stats.kernels} kernel(s)`;
  } finally {
    for (const t of owned) t.dispose();
  }
}

export function runScatterCases(device: DeviceContext, rows: SuiteRow[], seed: number, randomCount: number): void {
  for (const [r, k] of [[37, 131], [1024, 1000]] as const) {
    scatterCases(r, k).forEach((c, i) => {
      const name = `${c.name} [${r}, ${k}]`;
      try {
        rows.push({ name, ok: true, detail: runCase(device, c, seed + i) });
      } catch (error) {
        rows.push({ name, ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
      }
    });
  }
  const next = seededRandom(seed + 1);
  for (let k = 0; k < randomCount; k += 1) {
    const c = randomScatterCase(next, k);
    const name = `${c.name} (seed ${seed + 1})`;
    try {
      rows.push({ name, ok: true, detail: runCase(device, c, Math.floor(next() * 2 ** 31)) });
    } catch (error) {
      rows.push({ name, ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
    }
  }
}

/** index_put_accumulate of 8192 bf16 rows of 4096 into [128256, 4096] (the copy of the table included). */
export function timeIndexPutAccumulate(device: DeviceContext, rows: SuiteRow[]): void {
  const [tokens, vocab, hidden] = [8192, 128256, 4096];
  const c = scatterCases(4, 4).find((x) => x.name === 'index_put_accumulate_BFloat16') as ScatterCase;
  const next = seededRandom(11);
  const idx = Tensor.fromHost(HostTensor.fromValues('Int', [tokens], Array.from({ length: tokens }, () => BigInt(Math.floor(next() * vocab))))).toDevice(device);
  const acc = Tensor.emptyDevice(device, 'BFloat16', [vocab, hidden]);
  const value = Tensor.emptyDevice(device, 'BFloat16', [tokens, hidden]);
  acc.poison();
  value.poison();
  const flusher = l2Flusher(device);
  const cache = new FusionExecutorCache(c.fusion, device);
  try {
    const run = (): void => {
      for (const o of cache.runFusion([acc, idx, value])) o.dispose();
    };
    run();
    device.synchronize();
    device.releasePool();
    const ms = timeDevice(device, flusher, run, 10);
    const copyBytes = 2 * vocab * hidden * 2;
    const addBytes = 2 * tokens * hidden * 2 + tokens * 8;
    rows.push({
      name: `timing: index_put_accumulate ${tokens} rows into [${vocab}, ${hidden}] bf16`,
      ok: true,
      detail: `${(ms * 1000).toFixed(1)} µs for the copy of the table (${(copyBytes / 1e9).toFixed(2)} GB moved) + the atomic adds (${(addBytes / 1e6).toFixed(0)} MB), ${cache.stats.kernels} kernels`,
    });
  } finally {
    flusher.dispose();
    value.dispose();
    acc.dispose();
    idx.dispose();
  }
}

/** A scatter index = size must fail the launch (device-side trap). Leaves the context unusable: run last. */
export function scatterOutOfRange(device: DeviceContext, rows: SuiteRow[]): void {
  const name = 'out-of-range scatter index traps (device-side check)';
  const c = scatterCases(8, 12).find((x) => x.name === 'scatter_dim1_Float') as ScatterCase;
  const owned = upload(device, scatterInputs(c, seededRandom(2), true));
  try {
    const cache = new FusionExecutorCache(c.fusion, device);
    cache.runFusion(owned);
    device.synchronize();
    rows.push({ name, ok: false, detail: 'the launch succeeded: an index outside the output was not caught' });
  } catch (error) {
    rows.push({ name, ok: true, detail: `launch failed as expected: ${(error as Error).message.split('\n')[0] ?? ''}` });
  }
}
