// guardFusionGroups: the guard / prim::If / fallback structure on every fixture, the run-time
// compliance check, and guard failures (dtype, broadcast dim, layout, device, requires_grad,
// profiled values) taking the fallback with the same results as the un-fused graph.
import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { completeTensorType, type Block, type Graph, type Node } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, runGraph, tensorComplianceProblem, withTensorMeta, type RunValue } from '../src/index.js';
import { FIXTURE_ROOT } from './helpers/golden.js';
import { cloneInputs, fixtureGraph, runInputs, runValueDiff } from './helpers/graph-run.js';
import { graphOf, tensorType } from './helpers/ir-builder.js';

const FIXTURES = readdirSync(FIXTURE_ROOT).filter((f) => f.endsWith('.ir')).sort();

function nodesOf(block: Block, kind: string, out: Node[] = []): Node[] {
  for (const n of block.nodes()) {
    if (n.kind === kind) out.push(n);
    for (const b of n.blocks) nodesOf(b, kind, out);
  }
  return out;
}

function guarded(g: Graph): Graph {
  fuseGraph(g);
  guardFusionGroups(g);
  return g;
}

function random(dtype: 'Float' | 'Half' | 'Double', sizes: number[], strides?: number[]): HostTensor {
  const t = HostTensor.fromValues(dtype, sizes, Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, () => Math.random() * 4 - 2));
  return strides === undefined ? t : new HostTensor(dtype, sizes, strides, t.data);
}

/** Runs the guarded and the un-fused version of `make()` on the same inputs. */
function fallbackRun(make: () => Graph, inputs: RunValue[]) {
  const fused = guarded(make());
  const actual = runGraph(fused, cloneInputs(inputs));
  const expected = runGraph(make(), cloneInputs(inputs));
  const diffs = actual.outputs.map((v, i) => runValueDiff(`output ${i}`, v, expected.outputs[i])).filter((d) => d !== null);
  return { actual, diffs };
}

describe('structure on every fixture', () => {
  for (const name of FIXTURES) {
    test(name, () => {
      const g = guarded(fixtureGraph(name));
      for (const group of nodesOf(g.block, 'prim::CudaFusionGroup')) {
        const versioningIf = group.owningBlock?.owningNode;
        expect(versioningIf?.kind).toBe('prim::If');
        if (versioningIf === null || versioningIf === undefined) continue;
        expect(versioningIf.blocks[0]?.nodes()).toEqual([group]);
        const fallback = versioningIf.blocks[1]?.nodes() ?? [];
        expect(fallback.filter((n) => n.kind === 'prim::CudaFusionGroup')).toEqual([]);
        // The fallback computes the same ops as the subgraph.
        const kinds = (nodes: Node[]) => nodes.map((n) => n.kind).sort();
        expect(kinds(fallback)).toEqual(kinds(group.g('Subgraph').nodes()));
        let cond = versioningIf.input(0).node;
        if (cond.kind === 'aten::all') cond = cond.input(0).node.inputs.map((v) => v.node).find((n) => n.kind === 'prim::CudaFusionGuard') ?? cond;
        expect(cond.kind).toBe('prim::CudaFusionGuard');
        const tensorInputs = group.inputs.filter((v) => v.type.kind === 'Tensor' && v.node.kind !== 'prim::Constant');
        expect(cond.inputs).toEqual(tensorInputs);
        const types = cond.attribute('types');
        expect(types?.kind === 'tys' ? types.value : null).toEqual(tensorInputs.map((v) => v.type));
      }
    });
  }
});

describe('tensorComplianceProblem', () => {
  const type = completeTensorType('Float', [4, 1, 8]);
  test('complying tensor (other non-1 sizes are fine)', () => {
    expect(tensorComplianceProblem(random('Float', [4, 1, 8]), type)).toBeNull();
    expect(tensorComplianceProblem(random('Float', [7, 1, 3]), type)).toBeNull();
  });
  test('dtype, rank, broadcast dims', () => {
    expect(tensorComplianceProblem(random('Half', [4, 1, 8]), type)).toBe('dtype Half, expected Float');
    expect(tensorComplianceProblem(random('Float', [4, 8]), type)).toBe('rank 2, expected 3');
    expect(tensorComplianceProblem(random('Float', [4, 2, 8]), type)).toMatch(/size 2 at dim 1, profiled 1/);
    expect(tensorComplianceProblem(random('Float', [4, 1, 1]), type)).toMatch(/size 1 at dim 2, profiled 8/);
  });
  test('stride order and contiguity', () => {
    expect(tensorComplianceProblem(random('Float', [4, 1, 8], [1, 8, 4]), type)).toMatch(/stride order/);
    expect(tensorComplianceProblem(random('Float', [4, 1, 8], [16, 16, 1]), type)).toMatch(/dim 0 is not contiguous/);
    const channelsLast = completeTensorType('Float', [2, 3, 4, 5], [60, 1, 15, 3]);
    expect(tensorComplianceProblem(random('Float', [2, 3, 4, 5], [60, 1, 15, 3]), channelsLast)).toBeNull();
    expect(tensorComplianceProblem(random('Float', [2, 3, 4, 5]), channelsLast)).toMatch(/stride order/);
  });
  test('device and requires_grad', () => {
    expect(tensorComplianceProblem(withTensorMeta(random('Float', [4, 1, 8]), { device: { type: 'cuda', index: 1 } }), type)).toBe('device cuda:1, expected cuda:0');
    expect(tensorComplianceProblem(withTensorMeta(random('Float', [4, 1, 8]), { requiresGrad: true }), type)).toBe('requires_grad=1, expected 0');
  });
});

describe('guard failures take the fallback, with the un-fused results', () => {
  const t = tensorType('Float', 4, 8);
  const bias = tensorType('Float', 4, 1);
  const make = () =>
    graphOf([`%x : ${t}`, `%b : ${bias}`], `%one : int = prim::Constant[value=1]()\n%s : ${t} = aten::add(%x, %b, %one)\n%o : ${t} = aten::relu(%s)`, ['o']);

  test('matching inputs take the fused path', () => {
    const { actual, diffs } = fallbackRun(make, [random('Float', [4, 8]), random('Float', [4, 1])]);
    expect(diffs).toEqual([]);
    expect(actual.dump()).toBe('launch_param (runGraph):\n  prim::CudaFusionGroup_0: taken 1, fallback 0\n');
  });

  const cases: [string, () => RunValue[], RegExp][] = [
    ['wrong dtype', () => [random('Double', [4, 8]), random('Double', [4, 1])], /input 0 \(%x\): dtype Double, expected Float/],
    ['a profiled broadcast dim that is not 1', () => [random('Float', [4, 8]), random('Float', [4, 8])], /input 1 \(%b\): size 8 at dim 1, profiled 1/],
    ['a transposed input', () => [random('Float', [4, 8], [1, 4]), random('Float', [4, 1])], /input 0 \(%x\): stride order/],
    ['another device', () => [withTensorMeta(random('Float', [4, 8]), { device: { type: 'cuda', index: 1 } }), random('Float', [4, 1])], /device cuda:1/],
    ['requires_grad', () => [random('Float', [4, 8]), withTensorMeta(random('Float', [4, 1]), { requiresGrad: true })], /requires_grad=1/],
  ];
  for (const [what, inputs, reason] of cases) {
    test(what, () => {
      const { actual, diffs } = fallbackRun(make, inputs());
      expect(diffs).toEqual([]);
      const [stats] = actual.groups;
      expect({ taken: stats?.taken, fallback: stats?.fallback }).toEqual({ taken: 0, fallback: 1 });
      expect(stats?.reasons[0]).toMatch(reason);
      expect(actual.dump()).toMatch(/prim::CudaFusionGroup_0: taken 0, fallback 1 \(last guard failure: input/);
    });
  }

  test('a changed profiled value (prim::profile_ivalue) takes the fallback', () => {
    const make2 = () => fixtureGraph('profiled_graph.ir');
    const inputs = runInputs(make2());
    expect(inputs[2]).toEqual([1]);
    const same = fallbackRun(make2, inputs);
    expect(same.diffs).toEqual([]);
    expect(same.actual.groups[0]?.fallback).toBe(0);
    const changed = [...inputs];
    changed[2] = [0];
    const r = fallbackRun(make2, changed);
    expect(r.diffs).toEqual([]);
    expect(r.actual.groups[0]).toMatchObject({ taken: 0, fallback: 1, reasons: ['a profiled value (prim::profile_ivalue) differs'] });
    expect((r.actual.outputs[0] as HostTensor).sizes).toEqual([512]);
  });

  test('guards inside nested blocks count per group', () => {
    const g = guarded(fixtureGraph('loop_block.ir'));
    const inputs = runInputs(g);
    inputs[1] = 3;
    const r = runGraph(g, inputs);
    expect(r.groups[0]).toMatchObject({ taken: 3, fallback: 0 });
  });
});
