// Real TorchScript graphs (test-fixtures/torchscript/traced/, made by
// tools/torchscript/generate_graphs.py with PyTorch): every traced graph and every profiled
// scripted graph parses, fuses, runs on the reference backend with the committed inputs and
// matches PyTorch's committed outputs (tolerance by dtype); the number of fusion groups and of
// kernels (segments of each group's Fusion) is golden-tested in traced/fusion-counts.json, and
// the printer is canonical on them (printing a parsed print changes nothing).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { parseIR, printGraph } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, lowerJitGraph, referenceGroupExecutor, runGraph, type FusionGroupExecutor, type RunValue } from '@tsfuser/graph-fuser';
import { defaultSchedulerRegistry, makeRuntimeInfo, segmentFusion } from '@tsfuser/scheduler';
import { compareTensors } from '../src/io/compare.js';
import { readNpy } from '../src/io/npy.js';
import { readNpyInput } from '../src/torchscript/graph-inputs.js';

const TRACED = fileURLToPath(new URL('../../../test-fixtures/torchscript/traced/', import.meta.url));
const COUNTS = join(TRACED, 'fusion-counts.json');
const graphs = readdirSync(TRACED).filter((f) => f.endsWith('.ir')).sort();

function npyFiles(dir: string, prefix: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.npy')).sort((a, b) => parseInt(a.slice(prefix.length), 10) - parseInt(b.slice(prefix.length), 10));
}

interface Counts {
  groups: number;
  kernels: number[];
}

/** Fuses and runs one fixture graph; returns its outputs and the group / kernel counts. */
function runFixture(file: string): { outputs: RunValue[]; counts: Counts } {
  const graph = parseIR(readFileSync(join(TRACED, file), 'utf8'));
  const dir = join(TRACED, file.replace(/\.(traced|scripted)\.ir$/, ''));
  const inputs = npyFiles(dir, 'in').map((f, i) => readNpyInput(new Uint8Array(readFileSync(join(dir, f))), graph, i, f));
  fuseGraph(graph);
  guardFusionGroups(graph);
  const kernels: number[] = [];
  const counting: FusionGroupExecutor = (call) => {
    const fusion = lowerJitGraph(call.subgraph);
    const sizes = fusion.inputs.flatMap((v, i) => (v === null ? [] : [call.inputs[i]])).map((x) => (x instanceof HostTensor ? { sizes: [...x.sizes], strides: [...x.strides] } : null));
    kernels[call.index] = segmentFusion(fusion.fusion, makeRuntimeInfo(fusion.fusion, sizes), defaultSchedulerRegistry()).groups.length;
    return referenceGroupExecutor(call);
  };
  const run = runGraph(graph, inputs, { executor: counting });
  // A tuple output (prim::TupleConstruct) holds PyTorch's out0, out1, … in order.
  return { outputs: run.outputs.flatMap((o) => (Array.isArray(o) ? o : [o])), counts: { groups: run.groups.length, kernels } };
}

const counts: Record<string, Counts> = {};

describe('real TorchScript graphs', () => {
  it.each(graphs)('%s matches PyTorch', (file) => {
    const { outputs, counts: c } = runFixture(file);
    counts[file] = c;
    const dir = join(TRACED, file.replace(/\.(traced|scripted)\.ir$/, ''));
    const expected = npyFiles(dir, 'out').map((f, i) => readNpy(new Uint8Array(readFileSync(join(dir, f))), (outputs[i] as HostTensor | undefined)?.dtype));
    expect(outputs.length).toBe(expected.length);
    expected.forEach((e, i) => {
      const out = outputs[i];
      if (!(out instanceof HostTensor)) expect.fail(`${file}: output ${i} is not a tensor`);
      const r = compareTensors(out, e);
      if (!r.ok) expect.fail(`${file}: output ${i}: ${r.reason}`);
    });
  });

  it.each(graphs)('%s: printing is canonical (print(parse(print(parse(s)))) == print(parse(s)))', (file) => {
    const once = printGraph(parseIR(readFileSync(join(TRACED, file), 'utf8')));
    expect(printGraph(parseIR(once))).toBe(once);
  });

  it('fusion groups and kernels per graph (golden)', () => {
    if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(COUNTS, `${JSON.stringify(counts, null, 2)}\n`);
    expect(counts).toEqual(JSON.parse(readFileSync(COUNTS, 'utf8')));
  });
});
