// GPU checks of the dump options (needs a GPU; not a vitest suite):
//
//   pnpm gpu:bundle tsfuser-dumps && (on the GPU host) bash gpu-bundle/run.sh tsfuser-dumps
//
// For every definition in test-fixtures/definitions, on the GPU backend (outputs poisoned):
//   1. the outputs equal the reference evaluator's (the executor cache plans launches through the
//      runtime's launch planner);
//   2. the dumps the GPU executor prints when it compiles (segmented_fusion, scheduler_params,
//      fusion_ir_math, cuda_kernel, launch_param) equal, text for text, what tsfuser renders
//      without a GPU for a target with this device's properties (compileForTarget) — the claim
//      that compile-side dumps on a machine without a GPU are what the GPU compiles;
//   3. the dumps tsfuser renders beside the executor's on the GPU backend (host_ir, fusion_args,
//      kernel_args, index_type) print, each naming every kernel;
//   4. the occupancy dump prints nvFuser's line once per kernel launch, from the driver, and the
//      line computed without a GPU (ptxas's registers via nvcc, the occupancy calculator) is the same;
//   5. the sass dump disassembles every kernel (nvcc + nvdisasm on the GPU host).
// Last line: `N passed, M failed`.

import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Tensor } from '@tsfuser/device';
import { schedulerDevice } from '@tsfuser/runtime';
import { loadDefinition } from '../src/cli/load-definition.js';
import { planInputs } from '../src/cli/run-inputs.js';
import { compileForTarget } from '../src/dumps/compile-for-target.js';
import { renderDumps } from '../src/dumps/render-dumps.js';
import { archOf } from '../src/dumps/target.js';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { evaluateOnHost } from '../src/execute/reference-backend.js';
import { compareTensors, loosestTolerance } from '../src/io/compare.js';

// Relative to the working directory (the repository root on the GPU host): a bundled entry's
// import.meta.url no longer points into the repository.
const FIXTURES = `${resolve('test-fixtures/definitions')}/`;
const EXECUTOR_DUMPS = ['segmented_fusion', 'scheduler_params', 'fusion_ir_math', 'cuda_kernel', 'launch_param'];
const RENDERED_ON_GPU = ['host_ir', 'fusion_args', 'kernel_args', 'index_type'];
const results: { name: string; ok: boolean; detail: string }[] = [];

async function check(name: string, body: () => Promise<string> | string): Promise<void> {
  try {
    results.push({ name, ok: true, detail: await body() });
  } catch (error) {
    results.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) });
  }
}

function firstDifference(a: string, b: string): string {
  const al = a.split('\n');
  const bl = b.split('\n');
  const i = al.findIndex((line, k) => line !== bl[k]);
  const at = i < 0 ? Math.min(al.length, bl.length) : i;
  return `line ${at + 1}: GPU '${al[at] ?? '<end>'}' vs without GPU '${bl[at] ?? '<end>'}'`;
}

async function main(): Promise<void> {
  const probe = createGpuBackend({ cubinDirectory: null });
  const availability = probe.availability();
  if (!availability.available) {
    console.log(`GPU unavailable: ${availability.reason}`);
    process.exitCode = 1;
    return;
  }
  const files = readdirSync(FIXTURES).filter((f) => /\.(py|mjs)$/.test(f)).sort();
  for (const file of files) {
    const { definition, inputs: fileInputs } = await loadDefinition(file, FIXTURES);
    const inputs = planInputs(definition.inputs(), fileInputs, { seed: 0, cwd: FIXTURES }).inputs;
    const gpu = createGpuBackend({ poisonOutputs: true, cubinDirectory: null });
    const captured = new Map<string, string>();
    await check(`${file}: outputs vs reference`, async () => {
      // One execute per dump: the executor prints compile dumps once per cache, so each gets its own backend.
      for (const name of EXECUTOR_DUMPS) {
        const backend = createGpuBackend({ poisonOutputs: true, cubinDirectory: null });
        await definition.execute(inputs, { backend, dump: new Set([name]), captureDebugOutput: true });
        captured.set(name, definition.debugOutput() ?? '');
      }
      const outputs: Tensor[] = await definition.execute(inputs, { backend: gpu });
      const expected = evaluateOnHost(definition.fusionIr(), inputs);
      // As the GPU suite compares (gpu/suite.ts): the loosest float dtype's tolerance, ten times
      // it where the fusion reduces (a tree sum on the GPU against float64 in the evaluator).
      const fusion = definition.fusionIr();
      const t = loosestTolerance(fusion.allTvs().map((tv) => tv.dtype).filter((d) => d !== 'Bool' && d !== 'Int' && d !== 'Int32' && d !== 'Index'));
      const reduces = fusion.exprs().some((e) => e.kind === 'ReductionOp' || e.kind === 'WelfordOp');
      const tolerance = reduces ? { rtol: t.rtol * 10, atol: t.atol * 10 } : t;
      outputs.forEach((out, i) => {
        const e = (expected[i] as Tensor).toHost();
        const exact = e.dtype === 'Bool' || e.dtype === 'Int' || e.dtype === 'Int32' || e.dtype === 'Index';
        const r = compareTensors(out.toHost(), e, exact ? undefined : tolerance);
        if (!r.ok) throw new Error(`out${i}: ${r.reason}${r.mismatch === undefined ? '' : `, first at ${r.mismatch.index}: ${r.mismatch.actual} vs ${r.mismatch.expected}`}`);
      });
      return `${outputs.length} outputs match`;
    });
    const device = schedulerDevice(gpu.device(0).properties);
    const target = { arch: archOf(device), device };
    for (const name of EXECUTOR_DUMPS) {
      await check(`${file}: ${name} without a GPU = on the GPU (${device.name})`, () => {
        const compiled = compileForTarget(definition.fusionIr(), inputs, target);
        let text = '';
        renderDumps(compiled, definition.fusionIr(), inputs, new Set([name]), (t) => void (text += t), { nvcc: null });
        const onGpu = captured.get(name) ?? '';
        if (onGpu === '') throw new Error('the GPU executor printed nothing');
        if (onGpu !== text) throw new Error(firstDifference(onGpu, text));
        return `${text.length} characters equal`;
      });
    }
    for (const name of RENDERED_ON_GPU) {
      await check(`${file}: ${name} on the GPU backend`, async () => {
        await definition.execute(inputs, { backend: gpu, dump: new Set([name]), captureDebugOutput: true });
        const text = definition.debugOutput() ?? '';
        if (text === '') throw new Error('printed nothing');
        return text.split('\n')[0] ?? '';
      });
    }
    await check(`${file}: occupancy from the driver, one line per launch`, async () => {
      await definition.execute(inputs, { backend: gpu, dump: new Set(['occupancy']), captureDebugOutput: true, profile: true });
      const lines = (definition.debugOutput() ?? '').split('\n').filter((l) => l !== '');
      const launches = definition.profile().segments;
      if (lines.length !== launches) throw new Error(`${lines.length} occupancy lines for ${launches} launches: ${lines.join(' | ')}`);
      for (const line of lines) {
        const m = /^num_sms=(\d+), blocks_per_sm=(\d+), warps_per_sm=(\d+), occupancy=(\d+\.\d\d)%$/.exec(line);
        if (m === null || Number(m[1]) !== device.smCount || Number(m[2]) < 1) throw new Error(`malformed or empty: '${line}'`);
      }
      const driver = lines.join('\n');
      // The same figures without the driver: ptxas's registers (nvcc for this arch) and the occupancy calculator.
      let computed = '';
      renderDumps(compileForTarget(definition.fusionIr(), inputs, target), definition.fusionIr(), inputs, new Set(['occupancy']), (t) => void (computed += t));
      const mine = computed.split('\n').filter((l) => l !== '').join('\n');
      if (mine !== driver) throw new Error(`driver: ${driver.split('\n').join(' | ')}; from ptxas: ${mine.split('\n').join(' | ')}`);
      return `${lines.join(' | ')} (= from ptxas registers)`;
    });
    await check(`${file}: sass (nvcc cubin, nvdisasm)`, () => {
      let text = '';
      const compiled = compileForTarget(definition.fusionIr(), inputs, target);
      renderDumps(compiled, definition.fusionIr(), inputs, new Set(['sass']), (t) => void (text += t));
      for (const step of compiled.plan.steps) {
        const name = step.kernel.kernelName;
        if (!text.includes(`======= SASS of kernel: ${name} =======`) || !text.includes(`.text.${name} `)) throw new Error(`no SASS for ${name}: ${text.slice(0, 200)}`);
      }
      if (!/\bEXIT\b/.test(text)) throw new Error('no EXIT instruction in the SASS');
      return `${text.split('\n').length} lines of SASS for ${compiled.plan.steps.length} kernels`;
    });
  }
  const width = Math.max(...results.map((r) => r.name.length));
  for (const r of results) console.log(`${r.ok ? 'ok  ' : 'FAIL'} ${r.name.padEnd(width)}  ${r.detail}`);
  const failed = results.filter((r) => !r.ok).length;
  console.log(`${results.length - failed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}

await main();
