// TorchScript matrix products inside fusion groups (issue 33): in the real traced Linear → GELU
// and GPT-MLP modules (test-fixtures/torchscript/traced/, tools/torchscript/generate_matmul_graphs.py)
// every aten::linear joins a prim::CudaFusionGroup, the group's Fusion segments on the fake H100
// into GEMM (cuBLASLt) segments with the epilogues cuBLASLt fuses — bias + gelu(tanh) as
// GELU_BIAS in BFloat16, the erf gelu and a Float gelu a kernel after a BIAS GEMM (the segmenter
// says why) — and the fused
// graph run on the reference matches PyTorch's committed outputs. Also aten::mm / bmm / addmm /
// baddbmm / matmul join groups, and a mismatched aten::mm inside a group is PyTorch's error.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { parseIR, type Block, type Node } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, lowerJitGraph, referenceGroupExecutor, runGraph } from '@tsfuser/graph-fuser';
import { Tensor, type GemmDescriptor } from '@tsfuser/device';
import { FusionExecutorCache } from '@tsfuser/runtime';
import { fakeDevice } from './fake-device.js';
import { compareTensors } from '../src/io/compare.js';
import { readNpy } from '../src/io/npy.js';
import { readNpyInput } from '../src/torchscript/graph-inputs.js';
import { compileForTarget } from '../src/dumps/compile-for-target.js';
import { DEFAULT_TARGET } from '../src/dumps/target.js';
import { explainSegments } from '../src/cli/explain.js';

const TRACED = fileURLToPath(new URL('../../../test-fixtures/torchscript/traced/', import.meta.url));
const MATMUL = fileURLToPath(new URL('../../../test-fixtures/torchscript/traced-matmul/', import.meta.url));

function npyFiles(dir: string, prefix: string): string[] {
  return readdirSync(dir).filter((f) => f.startsWith(prefix) && f.endsWith('.npy')).sort((a, b) => parseInt(a.slice(prefix.length), 10) - parseInt(b.slice(prefix.length), 10));
}

function groupsOf(block: Block, out: Node[] = []): Node[] {
  for (const n of block.nodes()) {
    if (n.kind === 'prim::CudaFusionGroup') out.push(n);
    for (const b of n.blocks) groupsOf(b, out);
  }
  return out;
}

/** One fusion group as the GPU path plans it on the fake H100: its segments' kinds, the GEMMs' epilogues, the --explain text. */
interface GroupPlan {
  kinds: string[];
  epilogues: string[];
  explain: string;
}

/** Fuses the fixture, runs it on the reference (planning each group for the fake H100 on its real inputs) and loads PyTorch's outputs. */
function fuseAndPlan(dir: string, file: string): { groups: Node[]; plans: GroupPlan[]; outputs: HostTensor[]; expected: HostTensor[] } {
  const graph = parseIR(readFileSync(join(dir, file), 'utf8'));
  const data = join(dir, file.replace(/\.(traced|scripted)\.ir$/, ''));
  const inputs = npyFiles(data, 'in').map((f, i) => readNpyInput(new Uint8Array(readFileSync(join(data, f))), graph, i, f));
  fuseGraph(graph);
  guardFusionGroups(graph);
  const plans: GroupPlan[] = [];
  const run = runGraph(graph, inputs, {
    executor: (call) => {
      const lowering = lowerJitGraph(call.subgraph);
      const values = lowering.inputs.flatMap((v, i) => (v === null ? [] : [call.inputs[i]]));
      const args = values.map((x) => (x instanceof HostTensor ? Tensor.fromHost(x) : (x as number)));
      const compiled = compileForTarget(lowering.fusion, args, DEFAULT_TARGET).compiled;
      plans[call.index] = {
        kinds: compiled.segments.map((s) => s.kind),
        epilogues: compiled.libraryCalls.map((c) => c.kernel.params.epilogue.kind),
        explain: explainSegments(lowering.fusion, args),
      };
      return referenceGroupExecutor(call);
    },
  });
  const outputs = run.outputs.flatMap((o) => (Array.isArray(o) ? o : [o])) as HostTensor[];
  const expected = npyFiles(data, 'out').map((f, i) => readNpy(new Uint8Array(readFileSync(join(data, f))), outputs[i]?.dtype));
  return { groups: groupsOf(graph.block), plans, outputs, expected };
}

function matchesPyTorch(file: string, outputs: readonly HostTensor[], expected: readonly HostTensor[]): void {
  expect(outputs.length, file).toBe(expected.length);
  expected.forEach((e, i) => {
    const r = compareTensors(outputs[i] as HostTensor, e);
    if (!r.ok) expect.fail(`${file}: output ${i}: ${r.reason}`);
  });
}

const nodeKinds = (group: Node): string[] => group.g('Subgraph').nodes().map((n) => n.kind);

describe('TorchScript matrix products inside fusion groups', () => {
  it('traced Linear -> GELU (erf): one group; a BIAS GEMM, then the erf gelu in a kernel (cuBLASLt\'s GELU is the tanh form)', () => {
    const r = fuseAndPlan(TRACED, 'linear_gelu.traced.ir');
    expect(r.groups).toHaveLength(1);
    expect(nodeKinds(r.groups[0] as Node)).toContain('aten::linear');
    expect(r.plans[0]?.kinds).toEqual(['libraryCall', 'kernel']);
    expect(r.plans[0]?.epilogues).toEqual(['BIAS']);
    expect(r.plans[0]?.explain).toContain("gelu producing");
    expect(r.plans[0]?.explain).toContain("erf form");
    matchesPyTorch('linear_gelu', r.outputs, r.expected);
  });

  it('traced GPT MLP in BFloat16: one group of two GEMM segments, GELU_BIAS then BIAS, nothing else', () => {
    const r = fuseAndPlan(TRACED, 'mlp_bf16.traced.ir');
    expect(r.groups).toHaveLength(1);
    expect(nodeKinds(r.groups[0] as Node).filter((k) => k === 'aten::linear')).toHaveLength(2);
    expect(r.plans[0]?.kinds).toEqual(['libraryCall', 'libraryCall']);
    expect(r.plans[0]?.epilogues).toEqual(['GELU_BIAS', 'BIAS']);
    matchesPyTorch('mlp_bf16', r.outputs, r.expected);
  });

  it('traced GPT MLP in Float: the gelu a kernel between two BIAS GEMMs (cuBLASLt\'s f32 GELU is outside PyTorch\'s tolerance)', () => {
    const r = fuseAndPlan(TRACED, 'mlp.traced.ir');
    expect(r.groups).toHaveLength(1);
    expect(r.plans[0]?.kinds).toEqual(['libraryCall', 'kernel', 'libraryCall']);
    expect(r.plans[0]?.epilogues).toEqual(['BIAS', 'BIAS']);
    expect(r.plans[0]?.explain).toContain('follows a Float GEMM');
    matchesPyTorch('mlp', r.outputs, r.expected);
  });

  it('mm / addmm / bmm / baddbmm / matmul join groups and match PyTorch', () => {
    const r = fuseAndPlan(MATMUL, 'products.traced.ir');
    const kinds = r.groups.flatMap(nodeKinds);
    for (const op of ['aten::mm', 'aten::addmm', 'aten::bmm', 'aten::baddbmm', 'aten::matmul']) expect(kinds).toContain(op);
    expect(r.plans.flatMap((p) => p.kinds)).toContain('libraryCall');
    matchesPyTorch('products', r.outputs, r.expected);
  });

  it('attention stays outside the groups (its projections join them)', () => {
    const r = fuseAndPlan(MATMUL, 'attention.traced.ir');
    const kinds = r.groups.flatMap(nodeKinds);
    expect(kinds).toContain('aten::linear');
    expect(kinds).not.toContain('aten::scaled_dot_product_attention');
    matchesPyTorch('attention', r.outputs, r.expected);
  });

  it('a mismatched aten::mm inside a group fails with PyTorch\'s message, never NaN', () => {
    const text = [
      'graph(%a : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0),',
      '      %b : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0)):',
      '  %c : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0) = aten::mm(%a, %b) # m.py:1:0',
      '  %d : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0) = aten::relu(%c) # m.py:2:0',
      '  return (%d)',
    ].join('\n');
    const graph = parseIR(text);
    fuseGraph(graph);
    guardFusionGroups(graph);
    const groups = groupsOf(graph.block);
    expect(groups).toHaveLength(1);
    expect(nodeKinds(groups[0] as Node)).toEqual(expect.arrayContaining(['aten::mm', 'aten::relu']));
    const x = HostTensor.fromValues('Float', [2, 3], [1, 2, 3, 4, 5, 6]);
    expect(() => runGraph(graph, [x, x], { executor: referenceGroupExecutor })).toThrow('mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
    // The GPU path (the group's FusionExecutorCache on the fake H100, a GEMM runner that must not be called): the same message, nothing launched.
    const fake = fakeDevice();
    const calls: GemmDescriptor[] = [];
    const gemm = { matmul: (desc: GemmDescriptor) => { calls.push(desc); return { cachedAlgorithm: false, workspaceBytes: 0, m: 0, n: 0, k: 0, batch: 1 }; } };
    const lowering = lowerJitGraph((groups[0] as Node).g('Subgraph'));
    const cache = new FusionExecutorCache(lowering.fusion, fake.device, { gemm });
    expect(() => cache.runFusion([Tensor.fromHost(x), Tensor.fromHost(x)])).toThrow('mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)');
    expect(calls).toHaveLength(0);
    expect(fake.launches).toHaveLength(0);
  });
});
