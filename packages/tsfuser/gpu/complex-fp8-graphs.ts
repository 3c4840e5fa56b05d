// Real TorchScript graphs with complex and float8 ops on the GPU against PyTorch (needs a GPU;
// not a vitest suite).
//
//   bash gpu-bundle/run.sh tsfuser-complex-fp8-graphs [--file test-fixtures/torchscript/complex-fp8.json]
//
// Every graph of test-fixtures/torchscript/complex-fp8.json (traced and profiled-scripted by
// tools/torchscript/generate_complex_fp8_graphs.py with PyTorch, with inputs and PyTorch's outputs)
// is fused as the CLI does (single nodes too), guarded, its fusion groups run on the GPU (poisoned
// outputs, GPU group executor), and every output is compared with PyTorch's: float8 values
// exactly, computed values per component within a relative tolerance by dtype (no reductions, so
// no summation order to allow for). The vitest twin on the reference backend is graph-fuser's
// test/parse-jit-ir-complex-fp8.test.ts. A graph none of whose groups ran on the GPU fails. Last
// line: `N passed, M failed`.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { HostTensor, isComplexType, isFloat8Type, type DataType } from '@tsfuser/fusion-ir';
import { lowerTupleOutputs, parseIR, type Graph, type Node as JitNode } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, runGraph } from '@tsfuser/graph-fuser';
import { isAvailable } from '@tsfuser/device';
import { createGpuBackend } from '../src/execute/gpu-backend.js';
import { gpuGroupExecutor } from '../src/torchscript/gpu-group-executor.js';

type FixtureNumber = number | boolean | 'inf' | '-inf' | 'nan';
interface FixtureTensor {
  shape: number[];
  dtype: DataType;
  values: FixtureNumber[];
}
interface FixtureCase {
  name: string;
  kind: string;
  graph: string;
  inputs: FixtureTensor[];
  outputs: FixtureTensor[];
}

const decode = (v: FixtureNumber): number => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v === 'nan' ? NaN : Number(v));

function hostTensor(t: FixtureTensor): HostTensor {
  const values = t.values.map(decode);
  return isComplexType(t.dtype) ? HostTensor.fromComplexInterleaved(t.dtype, t.shape, values) : HostTensor.fromValues(t.dtype, t.shape, values);
}

/** The graph with a tuple output replaced by its elements (tuples are not fusion values). */
function untupled(text: string): Graph {
  const g = parseIR(text);
  lowerTupleOutputs(g);
  return g;
}

const TOLERANCE: Partial<Record<DataType, number>> = { Float: 4e-6, ComplexFloat: 4e-6, Double: 1e-13, ComplexDouble: 1e-13, BFloat16: 8e-3, Half: 1e-3 };

/** Why `got` differs from PyTorch's `want`, or null. */
function mismatch(got: HostTensor, want: FixtureTensor): string | null {
  if (got.dtype !== want.dtype) return `dtype ${got.dtype}, PyTorch ${want.dtype}`;
  if (got.sizes.join(',') !== want.shape.join(',')) return `sizes [${got.sizes.join(', ')}], PyTorch [${want.shape.join(', ')}]`;
  const step = isComplexType(got.dtype) ? 2 : 1;
  const g = step === 2 ? [...got.toComplexInterleaved()] : got.toNumbers();
  const w = want.values.map(decode);
  const tol = isFloat8Type(got.dtype) ? 0 : (TOLERANCE[got.dtype] ?? 0);
  for (let i = 0; i < w.length; i += step) {
    const magnitude = step === 2 ? Math.hypot(w[i] as number, w[i + 1] as number) : Math.abs(w[i] as number);
    for (let k = i; k < i + step; k += 1) {
      const [a, b] = [g[k] as number, w[k] as number];
      if (Number.isNaN(b) ? Number.isNaN(a) : a === b || Math.abs(a - b) <= tol * Math.max(1, magnitude)) continue;
      return `element ${Math.floor(k / step)}${step === 2 ? (k === i ? ' (real)' : ' (imag)') : ''}: got ${a}, PyTorch ${b}`;
    }
  }
  return null;
}

function main(): void {
  if (!isAvailable().available) {
    console.log('no GPU\n0 passed, 1 failed');
    process.exitCode = 1;
    return;
  }
  const at = process.argv.indexOf('--file');
  const file = resolve(at >= 0 ? (process.argv[at + 1] as string) : 'test-fixtures/torchscript/complex-fp8.json');
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as { cases: FixtureCase[] };
  const backend = createGpuBackend({ cubinDirectory: null, poisonOutputs: true });
  let passed = 0;
  let failed = 0;
  for (const c of fixture.cases) {
    const label = `${c.name} (${c.kind})`;
    try {
      const graph = untupled(c.graph);
      fuseGraph(graph, { singletonFusion: true });
      guardFusionGroups(graph);
      const gpu = gpuGroupExecutor(backend);
      const run = runGraph(graph, c.inputs.map(hostTensor), { executor: gpu.executor });
      if (run.outputs.length !== c.outputs.length) throw new Error(`${run.outputs.length} outputs, PyTorch has ${c.outputs.length}`);
      c.outputs.forEach((want, i) => {
        const out = run.outputs[i];
        if (!(out instanceof HostTensor)) throw new Error(`output ${i} is not a tensor`);
        const why = mismatch(out, want);
        if (why !== null) throw new Error(`output ${i}: ${why}`);
      });
      const kernels: number[] = [];
      const walk = (n: JitNode): void => {
        const sub = n.attribute('Subgraph');
        if (sub?.kind === 'g') kernels.push(gpu.cacheOf(sub.value)?.stats.kernels ?? 0);
        for (const b of n.blocks) for (const m of b.nodes()) walk(m);
      };
      for (const n of graph.nodes()) walk(n);
      if (!kernels.some((k) => k > 0)) throw new Error(`no fusion group ran on the GPU (${run.groups.length} groups, kernels [${kernels.join(', ')}])`);
      console.log(`PASS ${label}: ${run.groups.length} groups, kernels [${kernels.join(', ')}]`);
      passed += 1;
    } catch (error) {
      console.log(`FAIL ${label}: ${(error as Error).name}: ${(error as Error).message.split('\n')[0] ?? ''}`);
      failed += 1;
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

main();
