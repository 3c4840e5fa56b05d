// Real TorchScript graphs on the GPU against PyTorch (needs a GPU; not a vitest suite).
//
//   bash gpu-bundle/run.sh tsfuser-traced-graphs [--dir test-fixtures/torchscript/traced]
//
// The graphs of test-fixtures/torchscript/traced/ (traced and profiled-scripted by
// tools/torchscript/generate_graphs.py with PyTorch, with their inputs and PyTorch's outputs as
// .npy) are fused and guarded as the CLI does, their fusion groups run on the GPU (poisoned
// outputs, GPU group executor), everything else on the host, and every output is compared with
// PyTorch's committed output at the dtype's tolerance (the vitest twin,
// test/torchscript-traced.test.ts, does the same on the reference backend). Also checks the
// number of fusion groups against the golden traced/fusion-counts.json. Then the random graphs of
// traced-random/ (training dropout, rand_like; `--random-dir`): their one group runs on the GPU
// and on the reference from one Philox seed — the outputs must agree at the dtype's tolerance (the
// same numbers: dropout masks identical) — and the GPU output must have the form PyTorch's has
// (gpu/random-graph-oracle.ts). Last line: `N passed, M failed`.

import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { HostTensor } from '@tsfuser/fusion-ir';
import { parseIR, type Node as JitNode } from '@tsfuser/jit-ir';
import { createPhiloxGenerator, fuseGraph, guardFusionGroups, runGraph } from '@tsfuser/graph-fuser';
import { isAvailable } from '@tsfuser/device';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { compareTensors } from '../src/io/compare.js';
import { readNpy } from '../src/io/npy.js';
import { readNpyInput } from '../src/torchscript/graph-inputs.js';
import { gpuGroupExecutor } from '../src/torchscript/gpu-group-executor.js';
import { randomGraphOracle } from './random-graph-oracle.js';

function npyFiles(dir: string, prefix: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.npy'))
    .sort((a, b) => parseInt(a.slice(prefix.length), 10) - parseInt(b.slice(prefix.length), 10));
}

function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU\n0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const at = process.argv.indexOf('--dir');
  const dir = resolve(at >= 0 ? (process.argv[at + 1] as string) : 'test-fixtures/torchscript/traced');
  const golden = JSON.parse(readFileSync(join(dir, 'fusion-counts.json'), 'utf8')) as Record<string, { groups: number }>;
  const backend = createGpuBackend({ cubinDirectory: null, poisonOutputs: true });
  let passed = 0;
  let failed = 0;
  let groupsOnGpu = 0;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ir')).sort()) {
    try {
      const graph = parseIR(readFileSync(join(dir, file), 'utf8'));
      const data = join(dir, file.replace(/\.(traced|scripted)\.ir$/, ''));
      const inputs = npyFiles(data, 'in').map((f, i) => readNpyInput(new Uint8Array(readFileSync(join(data, f))), graph, i, f));
      fuseGraph(graph);
      guardFusionGroups(graph);
      const gpu = gpuGroupExecutor(backend);
      const run = runGraph(graph, inputs, { executor: gpu.executor });
      const outputs = run.outputs.flatMap((o) => (Array.isArray(o) ? o : [o]));
      const expected = npyFiles(data, 'out').map((f, i) => readNpy(new Uint8Array(readFileSync(join(data, f))), (outputs[i] as HostTensor | undefined)?.dtype));
      if (outputs.length !== expected.length) throw new Error(`${outputs.length} outputs, PyTorch has ${expected.length}`);
      let worst = 0;
      expected.forEach((e, i) => {
        const out = outputs[i];
        if (!(out instanceof HostTensor)) throw new Error(`output ${i} is not a tensor`);
        const r = compareTensors(out, e);
        if (!r.ok) throw new Error(`output ${i}: ${r.reason}${r.mismatch === undefined ? '' : `, first at ${r.mismatch.index}: ${r.mismatch.actual} vs ${r.mismatch.expected}`}`);
        worst = Math.max(worst, r.maxAbsDiff);
      });
      const want = golden[file]?.groups;
      if (want !== undefined && want !== run.groups.length) throw new Error(`${run.groups.length} fusion groups, golden ${want}`);
      // Groups the GPU path refused run on the host (gpu-group-executor.ts): count kernels.
      const kernels: number[] = [];
      const walk = (n: JitNode): void => {
        const sub = n.attribute('Subgraph');
        if (sub?.kind === 'g') kernels.push(gpu.cacheOf(sub.value)?.stats.kernels ?? 0);
        for (const b of n.blocks) for (const m of b.nodes()) walk(m);
      };
      for (const n of graph.nodes()) walk(n);
      const onGpu = kernels.filter((k) => k > 0).length;
      groupsOnGpu += onGpu;
      console.log(`PASS ${file}: ${run.groups.length} groups, ${onGpu} ran on the GPU (kernels [${kernels.join(', ')}]), max abs diff ${worst.toPrecision(3)}`);
      passed += 1;
    } catch (error) {
      console.log(`FAIL ${file}: ${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}`);
      failed += 1;
    }
  }
  const atRandom = process.argv.indexOf('--random-dir');
  const randomDir = resolve(atRandom >= 0 ? (process.argv[atRandom + 1] as string) : 'test-fixtures/torchscript/traced-random');
  for (const file of readdirSync(randomDir).filter((f) => f.endsWith('.ir')).sort()) {
    try {
      const oracle = randomGraphOracle(file);
      if (oracle === null) throw new Error('no oracle for this fixture');
      const data = join(randomDir, file.replace(/\.(traced|scripted)\.ir$/, ''));
      const text = readFileSync(join(randomDir, file), 'utf8');
      const fused = (): ReturnType<typeof parseIR> => {
        const g = parseIR(text);
        fuseGraph(g);
        guardFusionGroups(g);
        return g;
      };
      const gpuGraph = fused();
      const refGraph = fused();
      const load = (): HostTensor[] => npyFiles(data, 'in').map((f, i) => readNpyInput(new Uint8Array(readFileSync(join(data, f))), gpuGraph, i, f) as HostTensor);
      const gpu = gpuGroupExecutor(backend);
      const onGpu = runGraph(gpuGraph, load(), { executor: gpu.executor, generator: createPhiloxGenerator(2026n) });
      const onRef = runGraph(refGraph, load(), { generator: createPhiloxGenerator(2026n) });
      const out = onGpu.outputs[0];
      const ref = onRef.outputs[0];
      if (!(out instanceof HostTensor) || !(ref instanceof HostTensor)) throw new Error('output 0 is not a tensor');
      const r = compareTensors(out, ref);
      if (!r.ok) throw new Error(`GPU vs reference (same seed): ${r.reason}`);
      const form = oracle(load(), out);
      if (form !== null) throw new Error(`not of PyTorch's form: ${form}`);
      let kernels = 0;
      const count = (n: JitNode): void => {
        const sub = n.attribute('Subgraph');
        if (sub?.kind === 'g') kernels += gpu.cacheOf(sub.value)?.stats.kernels ?? 0;
        for (const b of n.blocks) for (const m of b.nodes()) count(m);
      };
      for (const n of gpuGraph.nodes()) count(n);
      if (kernels === 0) throw new Error('the group did not run on the GPU');
      console.log(`PASS random ${file}: ${onGpu.groups.length} group, ${kernels} kernel(s), GPU = reference (max abs diff ${r.maxAbsDiff.toPrecision(3)}), form as PyTorch's`);
      passed += 1;
    } catch (error) {
      console.log(`FAIL random ${file}: ${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}`);
      failed += 1;
    }
  }
  console.log(`${groupsOnGpu} fusion groups ran on the GPU`);
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

main();
