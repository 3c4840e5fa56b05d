// In-place outputs on the GPU under every scheduler kind (needs a GPU; not a vitest suite):
//
//   pnpm gpu:bundle tsfuser-inplace-suite && (on the GPU host) bash gpu-bundle/run.sh tsfuser-inplace-suite [seed]
//
// For each case of gpu/inplace-cases.ts (pointwise, reduction, inner/outer/inner-outer
// persistent, transpose, greedy, expr_eval) the definition runs through FusionExecutorCache on
// device inputs and again on host inputs, outputs poisoned, and is checked against the reference
// backend run on host copies: the same outputs (values within the case's tolerance), every
// input's whole storage afterwards (the aliased one written, the others untouched), the caller's
// own tensor returned wherever nvFuser returns the input's buffer, and a segment of the case's
// scheduler in the plan that ran. Last line: `N passed, M failed`.

import { HostTensor } from '@tsfuser/fusion-ir';
import type { Tensor } from '@tsfuser/device';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { compareTensors, toleranceFor, type Tolerance } from '../src/io/compare.js';
import { INPLACE_CASES, hostClone, planSchedulers, type InplaceCase } from './inplace-cases.js';

const seed = Number(process.argv[2] ?? 3707);
const gpu = createGpuBackend({ poisonOutputs: true, cubinDirectory: null });
const rows: { name: string; where: string; schedulers: string; ok: boolean; detail: string }[] = [];

function toleranceOf(c: InplaceCase, t: Tensor): Tolerance {
  return t.dtype === 'Float' ? { rtol: c.rtol, atol: 1e-5 } : toleranceFor(t.dtype);
}

/** The whole storage of a tensor as a 1-D host tensor (gaps of strided inputs included). */
function storageOf(t: Tensor): HostTensor {
  const h = t.toHost();
  return new HostTensor(h.dtype, [h.data.length], [1], h.data);
}

function expectClose(what: string, got: HostTensor, want: HostTensor, tolerance: Tolerance): void {
  const r = compareTensors(got, want, tolerance);
  if (!r.ok) throw new Error(`${what}: ${r.reason}${r.mismatch === undefined ? '' : ` (first at ${JSON.stringify(r.mismatch)})`}`);
}

async function runCase(c: InplaceCase, where: 'device' | 'host'): Promise<void> {
  const [r, k] = c.dims;
  const fd = c.build(r, k);
  const hostInputs = c.inputs(seed, r, k);
  // The oracle: the reference backend on host copies (it writes them, not the originals).
  const expectedInputs = hostInputs.map(hostClone);
  const expected = await fd.execute(expectedInputs, { backend: 'reference' });
  const sharesInput = expected.map((o) => expectedInputs.indexOf(o));
  const device = gpu.device(0);
  const inputs = where === 'device' ? hostInputs.map((t) => t.toDevice(device)) : hostInputs;
  let schedulers = '?';
  try {
    const outs = await fd.execute(inputs, { backend: gpu });
    const plan = fd.lastExecutedPlan();
    schedulers = plan === null ? 'no plan' : planSchedulers(plan).join('+');
    if (plan === null || !planSchedulers(plan).includes(c.scheduler)) throw new Error(`the plan that ran has no ${c.scheduler} segment`);
    if (outs.length !== expected.length) throw new Error(`${outs.length} outputs returned, the reference returns ${expected.length}`);
    outs.forEach((o, i) => {
      const shared = sharesInput[i] ?? -1;
      if (shared >= 0 && o !== inputs[shared]) throw new Error(`output ${i} is not input ${shared} itself (nvFuser returns the input's buffer)`);
      const want = (expected[i] as Tensor).toHost().contiguous();
      expectClose(`output ${i}`, o.toHost().contiguous(), want, toleranceOf(c, o));
    });
    inputs.forEach((x, i) => expectClose(`input ${i} storage after`, storageOf(x), storageOf(expectedInputs[i] as Tensor), toleranceOf(c, x)));
    rows.push({ name: c.name, where, schedulers, ok: true, detail: `${outs.length} outputs, ${fd.outputAliases().length} alias(es) written` });
    for (const o of outs) if (!inputs.includes(o)) o.dispose();
  } catch (error) {
    rows.push({ name: c.name, where, schedulers, ok: false, detail: error instanceof Error ? error.message : String(error) });
  } finally {
    if (where === 'device') for (const x of inputs) x.dispose();
  }
}

async function main(): Promise<void> {
  const availability = gpu.availability();
  if (!availability.available) {
    console.log(`GPU unavailable: ${availability.reason}`);
    process.exitCode = 1;
    return;
  }
  console.log(`tsfuser-inplace-suite: seed ${seed}, ${INPLACE_CASES.length} cases x (device, host inputs)`);
  for (const c of INPLACE_CASES) {
    await runCase(c, 'device');
    await runCase(c, 'host');
  }
  for (const row of rows) console.log(`${row.ok ? 'PASS' : 'FAIL'}  ${row.name} [${row.where} inputs] (${row.schedulers}): ${row.detail}`);
  const failed = rows.filter((row) => !row.ok).length;
  console.log(`${rows.length - failed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

await main();
