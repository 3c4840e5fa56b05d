// Real TorchScript graphs with random ops (test-fixtures/torchscript/traced-random/: training
// dropout and rand_like, traced and profiled-scripted by tools/torchscript/generate_graphs.py).
// Each graph fuses into one group that holds its random op, runs on the reference backend with
// the committed inputs, and its output has the form gpu/random-graph-oracle.ts describes (checked
// on PyTorch's committed output too); fused and un-fused runs from one seed are identical, and a
// generator kept across runs gives fresh numbers.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { parseIR, type Graph } from '@tsfuser/jit-ir';
import { createPhiloxGenerator, fuseGraph, guardFusionGroups, runGraph, type RunValue } from '@tsfuser/graph-fuser';
import { readNpy } from '../src/io/npy.js';
import { readNpyInput } from '../src/torchscript/graph-inputs.js';
import { randomGraphOracle } from '../gpu/random-graph-oracle.js';

const DIR = fileURLToPath(new URL('../../../test-fixtures/torchscript/traced-random/', import.meta.url));
const graphs = readdirSync(DIR).filter((f) => f.endsWith('.ir')).sort();
const RANDOM_OPS = /aten::(dropout|native_dropout|rand_like)\(/;

function load(file: string): { graph: Graph; inputs: HostTensor[]; expected: HostTensor } {
  const graph = parseIR(readFileSync(join(DIR, file), 'utf8'));
  const data = join(DIR, file.replace(/\.(traced|scripted)\.ir$/, ''));
  const inputs = readdirSync(data).filter((f) => f.startsWith('in')).sort().map((f, i) => readNpyInput(new Uint8Array(readFileSync(join(data, f))), graph, i, f) as HostTensor);
  const expected = readNpy(new Uint8Array(readFileSync(join(data, 'out0.npy'))), inputs[0]?.dtype);
  return { graph, inputs, expected };
}

const clone = (ts: readonly HostTensor[]): RunValue[] => ts.map((t) => HostTensor.fromValues(t.dtype, t.sizes, t.toNumbers()));

describe('real TorchScript graphs with random ops', () => {
  it('the fixture set has traced and scripted dropout and rand_like graphs', () => {
    expect(graphs.length).toBe(6);
  });

  it('the oracles reject outputs of the wrong form: nothing dropped, the wrong scale, u outside [0, 1)', () => {
    const { inputs, expected } = load('dropout_residual.traced.ir');
    const [x, r] = inputs as [HostTensor, HostTensor];
    const check = randomGraphOracle('dropout_residual.traced.ir');
    const rs = r.toNumbers();
    const undropped = HostTensor.fromValues('Float', x.sizes, x.toNumbers().map((v, i) => v / 0.9 + (rs[i] as number)));
    expect(check?.(inputs, undropped)).toMatch(/kept fraction 1.0000/);
    const es = expected.toNumbers();
    const rescaled = HostTensor.fromValues('Float', x.sizes, es.map((v, i) => (v - (rs[i] as number)) * 1.01 + (rs[i] as number)));
    expect(check?.(inputs, rescaled)).toMatch(/neither dropped .* nor kept/);
    const scale = load('rand_like_scale.traced.ir');
    const doubled = HostTensor.fromValues('Float', scale.expected.sizes, scale.expected.toNumbers().map((v) => 2 * v));
    expect(randomGraphOracle('rand_like_scale.traced.ir')?.(scale.inputs, doubled)).toMatch(/is not in \[0, 1\]|mean of u/);
  });

  it.each(graphs)('%s: one group with the random op; output of the form PyTorch gives; fused = un-fused', (file) => {
    const oracle = randomGraphOracle(file);
    expect(oracle, file).not.toBeNull();
    const { graph, inputs, expected } = load(file);
    expect(oracle?.(inputs, expected), `PyTorch's own output (${file})`).toBeNull();
    const plain = parseIR(readFileSync(join(DIR, file), 'utf8'));
    fuseGraph(graph);
    guardFusionGroups(graph);
    const outside = graph.nodes().filter((n) => RANDOM_OPS.test(`${n.kind}(`));
    expect(outside.map((n) => n.kind), 'random ops left outside the fusion groups').toEqual([]);
    const generator = createPhiloxGenerator(2026n);
    const run = runGraph(graph, clone(inputs), { generator });
    expect(run.groups.map((g) => g.taken)).toEqual([1]);
    const out = run.outputs[0] as HostTensor;
    expect(oracle?.(inputs, out), file).toBeNull();
    const unfused = runGraph(plain, clone(inputs), { generator: createPhiloxGenerator(2026n) }).outputs[0] as HostTensor;
    expect(unfused.toNumbers()).toEqual(out.toNumbers());
    const next = runGraph(graph, clone(inputs), { generator }).outputs[0] as HostTensor;
    expect(oracle?.(inputs, next), `${file}, second run`).toBeNull();
    expect(next.toNumbers()).not.toEqual(out.toNumbers());
  });
});
