// CudaGraphFuser (fuseGraph) + guardFusionGroups on the TorchScript fixtures: golden dumps of the
// fused and guarded graph, topological validity, the argument limit, fusibility rules
// (reductions only at group outputs, in-place writers, nothing fusible), shape expressions.
import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseIR, printGraph, type Block, type Graph, type Node } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, NVRTC_KERNEL_ARG_LIMIT, runGraph, type RunValue } from '../src/index.js';
import { expectGolden, FIXTURE_ROOT, readFixture } from './helpers/golden.js';
import { cloneInputs, fixtureGraph, runInputs, runValueDiff, topologicalProblems } from './helpers/graph-run.js';
import { graphOf, tensorType } from './helpers/ir-builder.js';

const FIXTURES = readdirSync(FIXTURE_ROOT).filter((f) => f.endsWith('.ir')).sort();

function groupsOf(block: Block, out: Node[] = []): Node[] {
  for (const n of block.nodes()) {
    if (n.kind === 'prim::CudaFusionGroup') out.push(n);
    for (const b of n.blocks) groupsOf(b, out);
  }
  return out;
}

function kindsIn(group: Node): string[] {
  return group
    .g('Subgraph')
    .nodes()
    .map((n) => n.kind)
    .filter((k) => k !== 'prim::Constant');
}

describe('golden: fused + guarded graph of every fixture', () => {
  for (const name of FIXTURES) {
    test(name, () => {
      const g = fixtureGraph(name);
      fuseGraph(g);
      guardFusionGroups(g);
      expectGolden(printGraph(g), `graph-fuser/fuser/${name.replace(/\.ir$/, '.txt')}`);
    });
  }
});

describe('topological validity', () => {
  for (const name of FIXTURES) {
    test(`${name}: every value is defined before its uses, after fusion and after guards`, () => {
      const g = fixtureGraph(name);
      fuseGraph(g);
      expect(topologicalProblems(g)).toEqual([]);
      guardFusionGroups(g);
      expect(topologicalProblems(g)).toEqual([]);
      // Fusing a fused and guarded graph again changes nothing.
      const before = printGraph(g);
      fuseGraph(g);
      expect(printGraph(g)).toBe(before);
      // The printed graph parses, and its parse prints stably.
      const once = printGraph(parseIR(printGraph(g)));
      expect(printGraph(parseIR(once))).toBe(once);
    });
  }
});

describe('fusion decisions', () => {
  test('the seed exercise becomes one group with both batch norms, the add and the relu', () => {
    const g = fuseGraph(fixtureGraph('seed_exercise1_batch_norm_add_relu.ir'));
    const groups = groupsOf(g.block);
    expect(groups.length).toBe(1);
    expect(kindsIn(groups[0] as Node)).toEqual(['aten::native_batch_norm', 'aten::native_batch_norm', 'aten::add', 'aten::relu']);
    // Group inputs keep the graph's input order (tensors first): the Fusion's T0..T9, then the int.
    expect((groups[0] as Node).inputs.map((v) => v.debugName())).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
  });

  test('nothing fusible: the graph is unchanged', () => {
    const text = readFixture('nothing_fusible.ir');
    const g = parseIR(text);
    fuseGraph(g);
    guardFusionGroups(g);
    expect(printGraph(g)).toBe(printGraph(parseIR(text)));
  });

  test('a producer is not moved across an in-place write of its output', () => {
    const g = fuseGraph(fixtureGraph('inplace_mutation.ir'));
    expect(groupsOf(g.block)).toEqual([]);
    expect(g.nodes().map((n) => n.kind)).toEqual(['prim::Constant', 'aten::mul', 'aten::add_', 'aten::relu_', 'aten::sigmoid']);
  });

  test('a view written in place keeps its aliasing: it is not fused', () => {
    const t = tensorType('Float', 4, 8);
    const v = tensorType('Float', 32);
    const make = (inPlace: boolean) =>
      graphOf(
        [`%x : ${t}`],
        `%one : int = prim::Constant[value=1]()\n%shape : int[] = prim::Constant[value=[32]]()\n%a : ${t} = aten::relu(%x)\n%b : ${v} = aten::reshape(%a, %shape)\n` +
          (inPlace ? `%c : ${v} = aten::add_(%b, %one, %one)\n` : '') +
          `%d : ${v} = aten::exp(%b)`,
        ['d'],
      );
    const plain = fuseGraph(make(false));
    expect(groupsOf(plain.block).map(kindsIn)).toEqual([['aten::relu', 'aten::reshape', 'aten::exp']]);
    const written = fuseGraph(make(true));
    expect(groupsOf(written.block).flatMap(kindsIn)).not.toContain('aten::reshape');
  });

  test('two equal ops whose result is written in place are not merged by CSE (found by the property test)', () => {
    const t = tensorType('Float', 2, 3);
    const text = `%v0 : ${t} = aten::tanh(%x0)\n%v1 : ${t} = aten::tanh(%x0)\n%v2 : ${t} = aten::relu_(%v1)\n%v3 : ${t} = aten::sigmoid(%v0)`;
    const g = fuseGraph(graphOf([`%x0 : ${t}`], text, ['v3']));
    const [group] = groupsOf(g.block);
    expect(group === undefined ? [] : kindsIn(group)).toEqual(['aten::tanh', 'aten::tanh']);
    guardFusionGroups(g);
    const inputs = runInputs(g);
    const expected = runGraph(graphOf([`%x0 : ${t}`], text, ['v3']), cloneInputs(inputs)).outputs[0];
    expect(runValueDiff('v3', runGraph(g, cloneInputs(inputs)).outputs[0], expected)).toBeNull();
  });

  test('reductions only at group outputs: a reduction result is never consumed inside its group', () => {
    for (const name of FIXTURES) {
      const g = fuseGraph(fixtureGraph(name));
      for (const group of groupsOf(g.block)) {
        for (const n of group.g('Subgraph').nodes()) {
          if (!['aten::sum', 'aten::mean', 'aten::var', 'aten::std', 'aten::amax', 'aten::amin'].includes(n.kind)) continue;
          const insideUses = n.output().uses.filter((u) => u.user.kind !== 'prim::Return');
          expect(insideUses.map((u) => `${name}: ${u.user.kind}`)).toEqual([]);
        }
      }
    }
  });

  test('un-fusible tensors (unknown dtype, CPU) stay outside', () => {
    const g = graphOf(['%x : Tensor', `%y : ${tensorType('Float', 4)}`], '%a : Tensor = aten::relu(%x)\n%b : Tensor = aten::exp(%a)', ['b']);
    fuseGraph(g);
    expect(groupsOf(g.block)).toEqual([]);
  });

  test('siblings reading the same input fuse horizontally', () => {
    const t = tensorType('Float', 4, 8);
    const g = graphOf([`%x : ${t}`], `%a : ${t} = aten::relu(%x)\n%b : ${t} = aten::exp(%a)\n%c : ${t} = aten::sigmoid(%x)\n%d : ${t} = aten::tanh(%c)`, ['b', 'd']);
    fuseGraph(g);
    const groups = groupsOf(g.block);
    expect(groups.length).toBe(1);
    expect(kindsIn(groups[0] as Node).sort()).toEqual(['aten::exp', 'aten::relu', 'aten::sigmoid', 'aten::tanh']);
    const off = graphOf([`%x : ${t}`], `%a : ${t} = aten::relu(%x)\n%b : ${t} = aten::exp(%a)\n%c : ${t} = aten::sigmoid(%x)\n%d : ${t} = aten::tanh(%c)`, ['b', 'd']);
    fuseGraph(off, { horizontalFusion: false });
    expect(groupsOf(off.block).length).toBe(2);
  });

  test('an output used only by aten::size becomes a shape expression', () => {
    const t = tensorType('Float', 4, 8);
    const r = tensorType('Float', 8);
    const g = graphOf(
      [`%x : ${t}`, `%y : ${r}`],
      `%one : int = prim::Constant[value=1]()\n%a : ${t} = aten::add(%x, %y, %one)\n%b : ${t} = aten::relu(%a)\n%s : int[] = aten::size(%a)`,
      ['b', 's'],
    );
    fuseGraph(g);
    const [group] = groupsOf(g.block);
    expect(group?.outputs.length).toBe(1);
    expect(g.nodes().map((n) => n.kind)).toEqual(['aten::size', 'aten::size', 'prim::BroadcastSizes', 'prim::CudaFusionGroup']);
    guardFusionGroups(g);
    const inputs = runInputs(g);
    expect(runGraph(g, inputs).outputs[1]).toEqual([4, 8]);
  });

  test('a reduction output used only by aten::size becomes prim::ReductionSizes', () => {
    const t = tensorType('Float', 4, 8);
    const make = () =>
      graphOf(
        [`%x : ${t}`, `%y : ${t}`],
        `%dims : int[] = prim::Constant[value=[1]]()\n%keep : bool = prim::Constant[value=1]()\n%none : NoneType = prim::Constant()\n` +
          `%a : ${t} = aten::mul(%x, %y)\n%s : ${tensorType('Float', 4, 1)} = aten::sum(%a, %dims, %keep, %none)\n%b : ${t} = aten::relu(%a)\n%n : int[] = aten::size(%s)`,
        ['b', 'n'],
      );
    const g = fuseGraph(make());
    expect(g.nodes().map((n) => n.kind)).toContain('prim::ReductionSizes');
    const [group] = groupsOf(g.block);
    expect(group?.outputs.length).toBe(1);
    guardFusionGroups(g);
    const inputs = runInputs(g);
    expect(runGraph(g, cloneInputs(inputs)).outputs[1]).toEqual([4, 1]);
    expect(runValueDiff('b', runGraph(g, cloneInputs(inputs)).outputs[0], runGraph(make(), cloneInputs(inputs)).outputs[0])).toBeNull();
  });

  test('reruns until no change: f feeding g and (h -> l) ends in one group', () => {
    const t = tensorType('Float', 4);
    const g = graphOf([`%x : ${t}`], `%1 : ${t} = aten::exp(%x)\n%2 : ${t} = aten::relu(%1)\n%3 : ${t} = aten::sigmoid(%1)\n%4 : ${t} = aten::tanh(%3)`, ['4', '2']);
    fuseGraph(g, { horizontalFusion: false });
    expect(groupsOf(g.block).length).toBe(1);
  });
});

describe('kernel argument limit', () => {
  function chain(n: number): Graph {
    const t = tensorType('Float', 16);
    const inputs = Array.from({ length: n }, (_, i) => `%x${i} : ${t}`);
    const body = ['%one : int = prim::Constant[value=1]()', `%s1 : ${t} = aten::add(%x0, %x1, %one)`];
    for (let i = 2; i < n; i++) body.push(`%s${i} : ${t} = aten::add(%s${i - 1}, %x${i}, %one)`);
    return graphOf(inputs, body.join('\n'), [`s${n - 1}`]);
  }

  test(`no group exceeds ${NVRTC_KERNEL_ARG_LIMIT} inputs + outputs; the 140-input chain splits`, () => {
    const g = fuseGraph(fixtureGraph('many_inputs_sum_chain.ir'));
    const groups = groupsOf(g.block);
    expect(groups.length).toBeGreaterThanOrEqual(2);
    for (const group of groups) expect(group.inputs.length + group.outputs.length).toBeLessThanOrEqual(NVRTC_KERNEL_ARG_LIMIT);
  });

  test('a custom limit is honoured and the split graph still computes the same', () => {
    const plain = chain(20);
    const fused = chain(20);
    fuseGraph(fused, { argLimit: 8 });
    const groups = groupsOf(fused.block);
    expect(groups.length).toBeGreaterThan(2);
    for (const group of groups) expect(group.inputs.length + group.outputs.length).toBeLessThanOrEqual(8);
    guardFusionGroups(fused);
    const inputs: RunValue[] = runInputs(plain);
    const a = runGraph(fused, cloneInputs(inputs)).outputs[0];
    const b = runGraph(plain, cloneInputs(inputs)).outputs[0];
    expect(runValueDiff('sum', a, b)).toBeNull();
  });
});
