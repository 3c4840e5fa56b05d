// Helpers for the fuser / guard / runGraph tests: inputs for runGraph from a graph's types
// (fresh random values each call, via the parseJitIR harness's generateInputs), copies of them
// (runGraph may update inputs in place), tensor comparison with a tolerance by dtype, and a
// checker that every value of a graph is defined before its uses.
import { HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { parseIR, type Block, type Graph, type Value } from '@tsfuser/jit-ir';
import { tensorMeta, withTensorMeta, type RunValue } from '../../src/index.js';
import type { RefValue } from './aten-reference.js';
import { generateInputs, type DiffOptions } from './differential.js';
import { readFixture } from './golden.js';

function listOf(r: RefValue): RunValue {
  if ('data' in r) return null;
  switch (r.kind) {
    case 'list':
      return r.items.map(listOf);
    case 'int':
    case 'float':
      return r.value;
    case 'bool':
      return r.value !== 0;
    case 'str':
      return r.value;
    default:
      return null;
  }
}

const VARIANCE_ARGUMENT: Readonly<Record<string, number>> = { 'aten::native_batch_norm': 4, 'aten::batch_norm': 4, 'aten::_batch_norm_impl_index': 4 };

/** Graph inputs used as a batch norm's running_var (unnamed in the seed, so found by position). */
function varianceInputs(graph: Graph): Set<number> {
  const out = new Set<number>();
  for (const n of graph.nodes()) {
    const k = VARIANCE_ARGUMENT[n.kind];
    const v = k === undefined ? undefined : n.inputs[k];
    const i = v === undefined ? -1 : graph.inputs.indexOf(v);
    if (i >= 0) out.add(i);
  }
  return out;
}

/** Inputs for runGraph, one per graph input (running variances positive). */
export function runInputs(graph: Graph, opts: DiffOptions = {}): RunValue[] {
  const g = generateInputs(graph, opts);
  const variances = varianceInputs(graph);
  return g.eval.map((v, i) => {
    if (v === null) return listOf(g.ref[i] as RefValue);
    if (typeof v === 'bigint') return Number(v);
    if (v instanceof HostTensor && variances.has(i)) {
      for (let k = 0; k < v.numel; k++) v.setFlat(k, Math.abs(v.getNumber(k)) + 0.25);
    }
    return v;
  });
}

export function cloneTensor(t: HostTensor): HostTensor {
  return withTensorMeta(new HostTensor(t.dtype, [...t.sizes], [...t.strides], t.data.slice(), t.offset), tensorMeta(t));
}

export function cloneInputs(values: readonly RunValue[]): RunValue[] {
  return values.map((v) => (v instanceof HostTensor ? cloneTensor(v) : v));
}

function tolerance(dtype: DataType): number {
  switch (dtype) {
    case 'Half':
      return 1e-2;
    case 'BFloat16':
      return 4e-2;
    case 'Float':
      return 1e-5;
    case 'Double':
      return 1e-10;
    default:
      return 0;
  }
}

/** The first difference between two run values, or null. */
export function runValueDiff(what: string, a: RunValue | undefined, b: RunValue | undefined): string | null {
  if (a instanceof HostTensor || b instanceof HostTensor) {
    if (!(a instanceof HostTensor) || !(b instanceof HostTensor)) return `${what}: tensor vs non-tensor`;
    if (a.dtype !== b.dtype) return `${what}: dtype ${a.dtype} vs ${b.dtype}`;
    if (a.sizes.join() !== b.sizes.join()) return `${what}: sizes [${a.sizes.join(', ')}] vs [${b.sizes.join(', ')}]`;
    const tol = tolerance(a.dtype);
    const x = a.toNumbers();
    const y = b.toNumbers();
    for (let i = 0; i < x.length; i++) {
      const p = x[i] as number;
      const q = y[i] as number;
      if (Number.isNaN(p) && Number.isNaN(q)) continue;
      if (p === q || Math.abs(p - q) <= tol * (1 + Math.abs(q))) continue;
      return `${what}: element ${i} is ${p} vs ${q} (${a.dtype})`;
    }
    return null;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null : `${what}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

export function fixtureGraph(name: string): Graph {
  return parseIR(readFixture(name));
}

/** Problems of topological validity: a use before its definition, or a value from elsewhere. */
export function topologicalProblems(graph: Graph): string[] {
  const problems: string[] = [];
  const visit = (block: Block, defined: Set<Value>): void => {
    for (const v of block.inputs) defined.add(v);
    for (const n of block.nodes()) {
      for (const v of n.inputs) if (!defined.has(v)) problems.push(`${n.kind} uses %${v.debugName()} before it is defined`);
      for (const b of n.blocks) visit(b, new Set(defined));
      for (const o of n.outputs) defined.add(o);
      const sub = n.attribute('Subgraph');
      if (sub?.kind === 'g') problems.push(...topologicalProblems(sub.value).map((p) => `in ${n.kind}: ${p}`));
    }
    for (const v of block.outputs) if (!defined.has(v)) problems.push(`block returns undefined %${v.debugName()}`);
  };
  visit(graph.block, new Set());
  return problems;
}
