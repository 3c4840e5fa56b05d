import { describe, expect, it } from 'vitest';
import { parseIR, type Block } from '../src/index.js';
import { fixtureNames, readFixture } from './helpers.js';

function* allNodes(b: Block): Generator<import('../src/index.js').Node> {
  for (const n of b.nodes()) {
    yield n;
    for (const inner of n.blocks) yield* allNodes(inner);
  }
}

describe('TorchScript fixtures', () => {
  const names = fixtureNames();

  it('has the seed graph and at least 24 more', () => {
    expect(names).toContain('seed_exercise1_batch_norm_add_relu.ir');
    expect(names.length).toBeGreaterThanOrEqual(25);
  });

  it.each(names)('%s round-trips (parse→print→parse→print)', (name) => {
    const first = parseIR(readFixture(name)).toString();
    const second = parseIR(first).toString();
    expect(second).toBe(first);
  });

  it.each(names)('%s: every aten node matches a built-in schema', (name) => {
    const g = parseIR(readFixture(name));
    const unmatched = [...allNodes(g.block)].filter((n) => n.kind.startsWith('aten::') && n.schema() === null).map((n) => n.kind);
    expect(unmatched).toEqual([]);
  });

  it.each(names)('%s: copy() prints identically', (name) => {
    const g = parseIR(readFixture(name));
    expect(g.copy().toString()).toBe(g.toString());
  });

  it('the argument-limit fixture has more than 130 inputs', () => {
    const g = parseIR(readFixture('many_inputs_sum_chain.ir'));
    expect(g.inputs.length).toBeGreaterThan(130);
    expect(g.nodes().filter((n) => n.kind === 'aten::add').length).toBe(g.inputs.length - 1);
  });

  it('covers blocks, profiling nodes and fusion groups', () => {
    const kinds = new Set(names.flatMap((n) => [...allNodes(parseIR(readFixture(n)).block)].map((x) => x.kind)));
    for (const k of ['prim::If', 'prim::Loop', 'prim::profile', 'prim::profile_ivalue', 'prim::CudaFusionGroup', 'prim::Print', 'aten::mm', 'aten::native_batch_norm', 'aten::layer_norm', 'aten::softmax', 'aten::gelu_backward', 'aten::linear', 'aten::reshape', 'aten::view', 'aten::permute', 'aten::squeeze', 'aten::sum']) {
      expect(kinds, k).toContain(k);
    }
  });
});
