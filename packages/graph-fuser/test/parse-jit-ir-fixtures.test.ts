// parseJitIR on the shared TorchScript fixtures: every fully supported fixture is lowered, run on
// fusion-ir's reference evaluator with fresh random inputs and compared with the test's own aten
// reference; its printed Fusion is golden-tested; the seed exercise is compared with the seed's
// own `%kernel { … }` dump up to numbering.
import { describe, expect, it } from 'vitest';
import { parseIR, type Graph } from '@tsfuser/jit-ir';
import { printFusion, printKernelLegacy } from '@tsfuser/fusion-ir';
import { lowerJitGraph, parseJitIR } from '../src/index.js';
import { differentialCheck, type DiffOptions } from './helpers/differential.js';
import { canonicalNames, expectGolden, readFixture, readGolden } from './helpers/golden.js';

/** Fixtures parseJitIR lowers whole, with per-fixture comparison options. */
const SUPPORTED: Readonly<Record<string, DiffOptions>> = {
  batch_norm_training: {},
  bfloat16_channels_last: {},
  broadcast_bias_add: {},
  broadcast_scalar_ops: {},
  constants_all_kinds: {},
  gelu: {},
  gelu_backward_bias_grad: { atol: 1e-4 },
  half_to_dtype_type_as: {},
  layer_norm: { atol: 1e-5 },
  many_inputs_sum_chain: { atol: 1e-4 },
  native_layer_norm: { atol: 1e-5 },
  pointwise_add_relu: {},
  pointwise_chain: { atol: 1e-4 },
  profiled_graph: { atol: 1e-4 },
  reduction_mean_var: { atol: 1e-4 },
  reduction_sum_keepdim: { atol: 1e-4 },
  reshape_view_permute: {},
  seed_exercise1_batch_norm_add_relu: {},
  silu_sigmoid_backward: {},
  softmax: {},
  softmax_backward: { atol: 1e-6 },
  squeeze_unsqueeze: {},
  unknown_sizes: {},
  where_clamp_threshold: {},
};

function fixture(name: string): Graph {
  return parseIR(readFixture(`${name}.ir`));
}

/** The subgraph of the fixture's prim::CudaFusionGroup. */
function fusionGroupSubgraph(): Graph {
  const group = fixture('fusion_group_subgraph').nodes().find((n) => n.kind === 'prim::CudaFusionGroup');
  if (group === undefined) throw new Error('fixture has no prim::CudaFusionGroup');
  return group.g('Subgraph');
}

/** multiple_outputs without its tuple output (tuples are not fusion values). */
function multipleOutputsWithoutTuple(): Graph {
  const g = fixture('multiple_outputs');
  const tuple = g.nodes().find((n) => n.kind === 'prim::TupleConstruct');
  if (tuple === undefined) throw new Error('fixture has no prim::TupleConstruct');
  g.eraseOutput(g.outputs.indexOf(tuple.output()));
  tuple.destroy();
  return g;
}

const EXTRA: Readonly<Record<string, () => Graph>> = {
  fusion_group_subgraph: fusionGroupSubgraph,
  multiple_outputs_without_tuple: multipleOutputsWithoutTuple,
};

function graphFor(name: string): Graph {
  return EXTRA[name]?.() ?? fixture(name);
}

const ALL = [...Object.keys(SUPPORTED), ...Object.keys(EXTRA)].sort();

describe('parseJitIR matches the aten reference on the fixtures (fresh random inputs)', () => {
  for (const name of ALL) {
    it(name, () => {
      for (let round = 0; round < 2; round += 1) {
        expect(differentialCheck(graphFor(name), SUPPORTED[name] ?? {}).join('\n')).toBe('');
      }
    });
  }
});

describe('parseJitIR golden Fusion dumps (fusion_ir with TransformPrinter)', () => {
  for (const name of ALL) {
    it(name, () => {
      expectGolden(printFusion(parseJitIR(graphFor(name)), { transforms: true }), `graph-fuser/parse-jit-ir/${name}.txt`);
    });
  }
});

describe('the seed exercise', () => {
  const seed = (): Graph => fixture('seed_exercise1_batch_norm_add_relu');

  it('prints the seed %kernel dump line for line, up to numbering', () => {
    const lines = (text: string): string => text.split('\n').map((l) => l.trim()).filter((l) => l.length > 0).join('\n');
    const ours = lines(printKernelLegacy(parseJitIR(seed())));
    const theirs = lines(readGolden('fusion-ir/seed/exercise1_fusion_print.txt'));
    expect(canonicalNames(ours)).toBe(canonicalNames(theirs));
  });

  it('has the seed structure: broadcast params, rsqrt(var + eps), mul by the alpha scalar, relu', () => {
    const fusion = parseJitIR(seed());
    const kinds = fusion.exprs().map((e) => (e.kind === 'UnaryOp' || e.kind === 'BinaryOp' ? e.op : e.kind));
    const bn = ['BroadcastOp', 'sub', 'add', 'rsqrt', 'BroadcastOp', 'mul', 'BroadcastOp', 'mul', 'BroadcastOp', 'add'];
    expect(kinds).toEqual([...bn, ...bn, 'cast', 'mul', 'add', 'relu']);
    expect(fusion.inputs.length).toBe(11);
    expect(fusion.inputs[10]?.kind).toBe('scalar');
    const text = printFusion(fusion);
    expect(text).toContain('+ double(9.9999997473787516e-06);');
    expect(text).toMatch(/\nd\d+ = \(double\)\(i\d+\);\n/);
  });

  it('keeps the legacy-layout golden with its TransformPrinter', () => {
    expectGolden(printKernelLegacy(parseJitIR(seed())), 'graph-fuser/parse-jit-ir/seed_exercise1_kernel_legacy.txt');
  });

  it('reports graph inputs and updates: every input is a fusion input, no in-place updates', () => {
    const lowering = lowerJitGraph(seed());
    expect(lowering.inputs.every((v) => v !== null)).toBe(true);
    expect(lowering.inputUpdates).toEqual([]);
    expect(lowering.fusion.outputs.length).toBe(1);
  });
});
