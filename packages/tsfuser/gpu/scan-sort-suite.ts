// GPU check of scans and sorts (not a vitest suite: it needs a GPU).
//
//   node tools/gpu-bundle.mjs tsfuser-scan-sort-suite && (on the GPU host) bash gpu-bundle/run.sh tsfuser-scan-sort-suite [--random N] [--seed S]
//
// Every scan/sort fixture (test-support scan-sort-fixtures.ts: cumsum/cumprod/cummin/cummax,
// argsort, topk in every dtype, long and short rows, strided dims, ties, NaN) and N (default 60)
// random cases from a seed, each compiled through the default registry (the greedy scheduler's
// kernels), launched into poisoned outputs and compared with the reference evaluator element by
// element (float sums and products within the rounding of another order, everything else
// identical: scanSortMismatch); the cumsum with pointwise work around it through
// FusionExecutorCache (three segments); then timings of cumsum over rows of [16384, 4096] f32
// and topk(k=8) over rows of [16384, 256] f32 against the copy bandwidth. Prints a table and
// `N passed, M failed`; exits 1 on any failure.

import { evaluate, HostTensor, type Fusion } from '@tsfuser/fusion-ir';
import { DeviceContext, isAvailable, l2Flusher, Tensor, timeDevice } from '@tsfuser/device';
import { FusionExecutor, FusionExecutorCache, runtimeInfoFor, schedulerDevice } from '@tsfuser/runtime';
import { cumsumWithPointwise, randomScanSortCase, scanSortCases, scanSortInput, scanSortMismatch, seededRandom, type ScanSortCase } from '@tsfuser/test-support';
import { toDeviceInput } from '../src/bench/device-inputs.js';
import { copyBandwidth } from '../src/bench/timing.js';

interface Row {
  name: string;
  ok: boolean;
  detail: string;
}

function argValue(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  const v = i < 0 ? undefined : process.argv[i + 1];
  return v === undefined ? fallback : Number(v);
}

function runCase(device: DeviceContext, c: ScanSortCase, host: HostTensor): string | null {
  const input = toDeviceInput(device, host, false);
  const outputs: Tensor[] = [];
  try {
    const want = evaluate(c.fusion, [host]) as HostTensor[];
    const exec = FusionExecutor.compile(device, c.fusion, runtimeInfoFor(c.fusion, [input.tensor], schedulerDevice(device.properties)));
    if (exec.kernel.params.schedulerType !== 'greedy') return `scheduled by ${exec.kernel.params.schedulerType}, not greedy`;
    for (const w of want) {
      const t = Tensor.emptyDevice(device, w.dtype, w.sizes);
      t.poison();
      outputs.push(t);
    }
    exec.launch([input.tensor.asKernelArgument(), ...outputs.map((o) => o.asKernelArgument())]);
    device.synchronize();
    const problem = scanSortMismatch(c.fusion, host, outputs.map((o) => o.toHost()), want);
    return problem === null ? null : `${problem} (${exec.kernel.params.kernel.kind})`;
  } finally {
    for (const o of outputs) o.dispose();
    input.owner.dispose();
  }
}

function checkSegmented(device: DeviceContext, rows: Row[]): void {
  const fusion = cumsumWithPointwise();
  const sizes = [300, 2500];
  const host = scanSortInput('Half', sizes, 'normal', seededRandom(11));
  const input = toDeviceInput(device, host, false);
  try {
    const cache = new FusionExecutorCache(fusion, device, { poisonOutputs: true });
    const [out] = cache.runFusion([input.tensor]);
    const got = (out as Tensor).toHost().toFloat64Array();
    const want = (evaluate(fusion, [host])[0] as HostTensor).toFloat64Array();
    let bad = 0;
    let first = '';
    for (let i = 0; i < want.length; i += 1) {
      // Float sums in another order, then rounded to Half: two Half ulps of the result plus the sum's slack.
      const w = want[i] as number;
      if (!(Math.abs((got[i] as number) - w) <= 2 ** -9 * Math.abs(w) + 1e-3 * Math.sqrt(sizes[1] as number))) {
        if (bad === 0) first = `element ${i}: ${got[i]} vs ${w}`;
        bad += 1;
      }
    }
    rows.push({ name: 'cast(cumsum(x * 2)) + 1 [300, 2500] via FusionExecutorCache', ok: bad === 0, detail: bad === 0 ? `ok, ${cache.stats.kernels} kernels` : `${bad} mismatches, first ${first}` });
  } finally {
    input.owner.dispose();
  }
}

function timeCase(device: DeviceContext, rows: Row[], name: string, fusion: Fusion, sizes: number[], bytes: number): void {
  const host = scanSortInput('Float', sizes, 'normal', seededRandom(5));
  const input = toDeviceInput(device, host, false);
  const flusher = l2Flusher(device);
  const outputs: Tensor[] = [];
  try {
    const exec = FusionExecutor.compile(device, fusion, runtimeInfoFor(fusion, [input.tensor], schedulerDevice(device.properties)));
    for (const o of fusion.outputs) {
      if (o.kind !== 'tensorView') continue;
      const outSizes = o.domain.logicalNoReductions().map((id, d) => id.extent.constNumber() ?? (sizes[d] as number));
      outputs.push(Tensor.emptyDevice(device, o.dtype, outSizes));
    }
    const values = [input.tensor.asKernelArgument(), ...outputs.map((o) => o.asKernelArgument())];
    const ms = timeDevice(device, flusher, () => exec.launch(values), 30);
    const copyGbs = copyBandwidth(device, flusher, 10);
    const gbs = bytes / (ms * 1e-3) / 1e9;
    rows.push({
      name: `timing: ${name}`,
      ok: true,
      detail: `${exec.kernel.params.schedulerType} ${exec.kernel.params.schedulerType === 'greedy' ? exec.kernel.params.kernel.kind : ''}, ${(ms * 1000).toFixed(1)} µs, ${gbs.toFixed(0)} GB/s (${((100 * gbs) / copyGbs).toFixed(0)}% of copy ${copyGbs.toFixed(0)} GB/s), grid ${exec.kernel.launch.grid.join('x')} block ${exec.kernel.launch.block.join('x')}`,
    });
  } finally {
    flusher.dispose();
    for (const o of outputs) o.dispose();
    input.owner.dispose();
  }
}

function main(): void {
  const availability = isAvailable();
  if (!availability.available) {
    console.log(`no GPU: ${availability.reason ?? 'unknown reason'}`);
    process.exitCode = 1;
    return;
  }
  const device = DeviceContext.create(0);
  const seed = argValue('--seed', 20261124);
  const randomCount = argValue('--random', 60);
  const rows: Row[] = [];
  const cases = scanSortCases().map((c, i) => ({ c, host: scanSortInput(c.dtype, c.sizes, c.values, seededRandom(seed + i)) }));
  const rand = seededRandom(seed);
  for (let i = 0; i < randomCount; i += 1) {
    const c = randomScanSortCase(rand, i);
    cases.push({ c, host: scanSortInput(c.dtype, c.sizes, c.values, rand) });
  }
  for (const { c, host } of cases) {
    if (process.env['SUITE_PROGRESS'] === '1') process.stderr.write(`${c.name}\n`);
    try {
      const problem = runCase(device, c, host);
      rows.push({ name: c.name, ok: problem === null, detail: problem ?? 'ok' });
    } catch (error) {
      rows.push({ name: c.name, ok: false, detail: `${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}` });
    }
  }
  try {
    checkSegmented(device, rows);
  } catch (error) {
    rows.push({ name: 'cumsum with pointwise around it', ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
  }
  const byName = new Map(scanSortCases().map((c) => [c.name, c]));
  const timed: [string, string, number[], number][] = [
    ['cumsum f32 rows of [16384, 4096]', 'cumsum_Float_long_rows', [16384, 4096], 2 * 4 * 16384 * 4096],
    ['topk(k=8) f32 rows of [16384, 256]', 'topk8_Float_256', [16384, 256], 4 * 16384 * 256 + (4 + 8) * 8 * 16384],
  ];
  for (const [name, fixture, sizes, bytes] of timed) {
    try {
      timeCase(device, rows, name, (byName.get(fixture) as ScanSortCase).fusion, sizes, bytes);
    } catch (error) {
      rows.push({ name: `timing: ${name}`, ok: false, detail: (error as Error).message.split('\n')[0] ?? '' });
    }
  }
  const failed = rows.filter((x) => !x.ok);
  for (const x of failed) console.log(`FAIL ${x.name}: ${x.detail} (seed ${seed})`);
  console.log('| case | result |\n|---|---|');
  for (const x of rows.filter((y) => y.name.startsWith('timing') || y.name.includes('FusionExecutorCache'))) console.log(`| ${x.name} | ${x.detail} |`);
  console.log(`${rows.length - failed.length} passed, ${failed.length} failed`);
  process.exitCode = failed.length === 0 ? 0 : 1;
}

main();
