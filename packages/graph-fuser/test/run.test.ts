// runGraph: the fused + guarded graph computes what the un-fused graph computes (fresh random
// inputs per run), guards pass on inputs of the profiled types (every group taken, no fallback),
// the un-fused interpretation agrees with the independent aten reference, and the executor hook
// and the launch_param dump report per group.
import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { createPhiloxGenerator, fuseGraph, guardFusionGroups, runGraph, referenceGroupExecutor, type FusionGroupCall, type RunValue } from '../src/index.js';
import { FIXTURE_ROOT } from './helpers/golden.js';
import { cloneInputs, fixtureGraph, runInputs, runValueDiff } from './helpers/graph-run.js';
import { runAtenReference } from './helpers/aten-reference-ops.js';
import { generateInputs, compare } from './helpers/differential.js';

// linear_gelu_dropout runs dropout in training mode: random, so no two runs agree (tested below).
const FIXTURES = readdirSync(FIXTURE_ROOT).filter((f) => f.endsWith('.ir') && f !== 'linear_gelu_dropout.ir').sort();

function fusedAndGuarded(name: string) {
  const g = fixtureGraph(name);
  fuseGraph(g);
  guardFusionGroups(g);
  return g;
}

function diffs(a: readonly RunValue[], b: readonly RunValue[]): string[] {
  return a.map((v, i) => runValueDiff(`output ${i}`, v, b[i])).filter((d): d is string => d !== null);
}

describe('runGraph: fused + guarded equals un-fused on every fixture', () => {
  for (const name of FIXTURES) {
    test(name, () => {
      const plain = fixtureGraph(name);
      const fused = fusedAndGuarded(name);
      // Un-profiled bool inputs (if_block's flag) true, so that groups inside branches run too.
      const profiled = (i: number) => plain.inputs[i]?.uses.some((u) => u.user.kind === 'prim::profile_ivalue') === true;
      const inputs = runInputs(plain).map((v, i) => (typeof v === 'boolean' && !profiled(i) ? true : v));
      const expected = runGraph(plain, cloneInputs(inputs));
      const actual = runGraph(fused, cloneInputs(inputs));
      expect(diffs(actual.outputs, expected.outputs)).toEqual([]);
      for (const g of actual.groups) expect({ name: g.name, fallback: g.fallback, reasons: g.reasons }).toEqual({ name: g.name, fallback: 0, reasons: [] });
      expect(actual.groups.every((g) => g.taken >= 1)).toBe(true);
    });
  }
});

describe('runGraph on the un-fused graph agrees with the independent aten reference', () => {
  const names = ['pointwise_chain.ir', 'broadcast_bias_add.ir', 'reduction_sum_keepdim.ir', 'softmax.ir', 'layer_norm.ir', 'where_clamp_threshold.ir', 'half_to_dtype_type_as.ir', 'seed_exercise1_batch_norm_add_relu.ir'];
  for (const name of names) {
    test(name, () => {
      const g = fixtureGraph(name);
      const inputs = generateInputs(g);
      const run = runGraph(g, inputs.eval.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
      const ref = runAtenReference(g, inputs.ref);
      const problems = g.outputs.map((v, i) => compare(`output ${i}`, run.outputs[i] as HostTensor, ref.outputs[i])).filter((p) => p !== null);
      expect(problems).toEqual([]);
    });
  }
});

describe('executor hook and launch_param dump', () => {
  test('groups go through the injected executor, with their printed index', () => {
    const g = fusedAndGuarded('many_inputs_sum_chain.ir');
    const calls: number[] = [];
    const executor = (call: FusionGroupCall) => {
      calls.push(call.index);
      return referenceGroupExecutor(call);
    };
    const r = runGraph(g, runInputs(g), { executor });
    expect(calls.sort()).toEqual([0, 1]);
    expect(r.dump()).toBe('launch_param (runGraph):\n  prim::CudaFusionGroup_0: taken 1, fallback 0\n  prim::CudaFusionGroup_1: taken 1, fallback 0\n');
  });

  test('a graph without groups says so; prim::Print output is collected', () => {
    const g = fusedAndGuarded('nothing_fusible.ir');
    const r = runGraph(g, runInputs(g));
    expect(r.dump()).toBe('launch_param (runGraph):\n  no fusion groups\n');
    expect(r.printed.length).toBe(1);
    expect(r.printed[0]).toMatch(/^result: Float\(64, 64\)$/);
  });

  test('training dropout runs with the run generator: fused equals unfused for one seed, runs differ, a seed replays', () => {
    const g = fusedAndGuarded('linear_gelu_dropout.ir');
    const plain = fixtureGraph('linear_gelu_dropout.ir');
    const inputs = runInputs(g);
    const fused = runGraph(g, cloneInputs(inputs), { generator: createPhiloxGenerator(7n) }).outputs[0] as HostTensor;
    const unfused = runGraph(plain, cloneInputs(inputs), { generator: createPhiloxGenerator(7n) }).outputs[0] as HostTensor;
    expect(runValueDiff('output 0', fused, unfused)).toBeNull();
    const generator = createPhiloxGenerator(7n);
    const first = runGraph(g, cloneInputs(inputs), { generator }).outputs[0] as HostTensor;
    const second = runGraph(g, cloneInputs(inputs), { generator }).outputs[0] as HostTensor;
    expect(generator.offset).toBe(2n);
    expect(runValueDiff('output 0', first, fused)).toBeNull();
    expect(runValueDiff('output 0', first, second)).not.toBeNull();
    // p = 0.1: about 10% zeros (5 standard deviations of 64·4096 Bernoulli draws).
    const zeros = first.toNumbers().filter((v) => v === 0).length / first.numel;
    expect(Math.abs(zeros - 0.1)).toBeLessThan(5 * Math.sqrt((0.1 * 0.9) / first.numel));
  });

  test('the README example: relu(x + x), one group taken', () => {
    const g = fusedAndGuarded('pointwise_add_relu.ir');
    const x = HostTensor.fromValues('Float', [4, 8], Array.from({ length: 32 }, (_, i) => i - 16));
    const r = runGraph(g, [x, x]);
    expect((r.outputs[0] as HostTensor).toNumbers()).toEqual(Array.from({ length: 32 }, (_, i) => Math.max(0, 2 * (i - 16))));
    expect(r.dump()).toBe('launch_param (runGraph):\n  prim::CudaFusionGroup_0: taken 1, fallback 0\n');
  });

  test('wrong input count is one clear error', () => {
    const g = fixtureGraph('pointwise_add_relu.ir');
    expect(() => runGraph(g, [])).toThrow(/the graph has 2 inputs but 0 values were given/);
  });
});
