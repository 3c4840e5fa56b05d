// Graphs PyTorch really printed (test-fixtures/torchscript/real, made by generate.py there with the
// CPU wheel): traced graphs with source comments and size chains, scripted control flow, a profiled
// graph with prim::profile nodes, optimized graphs with a prim::DifferentiableGraph subgraph and a
// Function constant. parse→print→parse→print is idempotent and keeps every source comment.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseIR, type Block, type Node } from '../src/index.js';
import { FIXTURE_DIR } from './helpers.js';

const REAL_DIR = join(FIXTURE_DIR, 'real');
const names = readdirSync(REAL_DIR)
  .filter((f) => f.endsWith('.ir'))
  .sort();
const read = (name: string): string => readFileSync(join(REAL_DIR, name), 'utf8');

function* allNodes(b: Block): Generator<Node> {
  for (const n of b.nodes()) {
    yield n;
    for (const inner of n.blocks) yield* allNodes(inner);
    const sub = n.attribute('Subgraph');
    if (sub?.kind === 'g') yield* allNodes(sub.value.block);
  }
}

describe('real PyTorch graphs', () => {
  it('covers traced, scripted, profiled and optimized graphs', () => {
    expect(names.length).toBeGreaterThanOrEqual(8);
    for (const prefix of ['traced_', 'scripted_', 'profiled_', 'optimized_']) expect(names.some((n) => n.startsWith(prefix)), prefix).toBe(true);
  });

  it.each(names)('%s: parse→print→parse→print is idempotent', (name) => {
    const first = parseIR(read(name)).toString();
    expect(parseIR(first).toString()).toBe(first);
  });

  it.each(names)('%s: every source comment survives the round trip', (name) => {
    const text = read(name);
    const comments = (s: string): string[] => [...s.matchAll(/ # (\S+)$/gm)].map((m) => m[1] as string).sort();
    expect(comments(parseIR(text).toString())).toEqual(comments(text));
  });

  it('the kinds PyTorch emits are all there', () => {
    const kinds = new Set(names.flatMap((n) => [...allNodes(parseIR(read(n)).block)].map((x) => x.kind)));
    for (const k of ['prim::profile', 'prim::NumToTensor', 'aten::Int', 'prim::ListConstruct', 'prim::Loop', 'prim::If', 'prim::TupleConstruct', 'aten::__getitem__', 'prim::DifferentiableGraph', 'prim::RequiresGradCheck', 'prim::CallFunction']) {
      expect(kinds, k).toContain(k);
    }
  });
});
