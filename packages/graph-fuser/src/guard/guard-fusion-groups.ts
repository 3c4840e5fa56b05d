// guardFusionGroups (legacy guardFusionGroup): every prim::CudaFusionGroup becomes
//
//   %ok : bool = prim::CudaFusionGuard[types=[T0, T1, ...]](%tensor inputs)
//   %outs = prim::If(%ok)
//     block0():
//       %outs = prim::CudaFusionGroup_0(...)
//       -> (%outs)
//     block1():
//       ... the group's subgraph, cloned and inlined (the un-fused fallback) ...
//       -> (...)
//
// `types` records the profiled type of each tensor input; at run time the guard compares the
// actual tensors with them (guard-check.ts: dtype, rank, device, requires_grad, size-1 dims,
// contiguity and stride order). A group input that only feeds `prim::profile_ivalue` (a profiled
// int list, bool, ...) is checked too: `aten::eq(%value, <profiled constant>)` per profiled use,
// all flags joined by `prim::ListConstruct` + `aten::all`, as the legacy fuser did.
// (a type-list attribute, printed `types=[...]` as PyTorch prints it.)
// Invariant: the graph computes the same values whichever branch runs.

import { BoolType, listType, type Block, type ConstantValue, type Graph, type Node, type Value } from '@tsfuser/jit-ir';
import { CUDA_FUSION_GROUP, isTensorValue } from '../fuser/fusibility.js';
import { subgraphOf } from '../fuser/fusion-group.js';

export const CUDA_FUSION_GUARD = 'prim::CudaFusionGuard';

function collectGroups(block: Block, out: Node[]): Node[] {
  for (const n of block.nodes()) {
    for (const b of n.blocks) collectGroups(b, out);
    if (n.kind === CUDA_FUSION_GROUP) out.push(n);
  }
  return out;
}

/** The profiled value of a prim::profile_ivalue node as a constant, or null when it has none. */
export function profiledConstant(n: Node): ConstantValue | null {
  const a = (name: string) => n.attribute(name);
  for (const name of ['profiled_int_list', 'profiled_reduction_size', 'profiled_view_size', 'profiled_bool_list']) {
    const v = a(name);
    if (v?.kind === 'is') return { kind: 'intList', value: v.value.map((x) => Number(x)) };
  }
  const b = a('profiled_bool');
  if (b?.kind === 'i') return { kind: 'bool', value: b.value !== 0n };
  const i = a('profiled_int');
  if (i?.kind === 'i') return { kind: 'int', value: Number(i.value) };
  const s = a('profiled_str');
  if (s?.kind === 's') return { kind: 'str', value: s.value };
  return null;
}

/** `aten::eq(%outer, <profiled constant>)` before `at` for each profiled use of subgraph input i. */
function profiledValueChecks(group: Node, at: Node): Value[] {
  const graph = group.owningGraph;
  const subgraph = subgraphOf(group);
  const checks: Value[] = [];
  subgraph.inputs.forEach((inner, i) => {
    if (inner.uses.length === 0 || !inner.uses.every((u) => u.user.kind === 'prim::profile_ivalue')) return;
    for (const u of inner.uses) {
      const c = profiledConstant(u.user);
      if (c === null) continue;
      graph.withInsertPoint(at, () => {
        const expected = graph.insertConstant(c);
        const eq = graph.insertNode(graph.create('aten::eq', [group.input(i), expected], 1));
        checks.push(eq.output().setType(BoolType));
      });
    }
  });
  return checks;
}

/** Appends to `block` a copy of the group's subgraph reading the group's inputs; returns its outputs. */
function inlineFallback(group: Node, block: Block): Value[] {
  const graph = group.owningGraph;
  const subgraph = subgraphOf(group);
  const env = new Map<Value, Value>();
  subgraph.inputs.forEach((v, i) => env.set(v, group.input(i)));
  const lookup = (v: Value): Value => {
    const m = env.get(v);
    if (m === undefined) throw new Error(`guardFusionGroups: %${v.debugName()} unmapped in the fallback`);
    return m;
  };
  for (const n of subgraph.nodes()) {
    const c = block.appendNode(graph.createClone(n, lookup));
    n.outputs.forEach((o, i) => env.set(o, c.output(i)));
  }
  return subgraph.outputs.map(lookup);
}

/** Guards one group (see the file header); returns the prim::If node. */
export function guardFusionGroup(group: Node): Node {
  const graph: Graph = group.owningGraph;
  const tensorInputs = group.inputs.filter((v) => isTensorValue(v) && v.node.kind !== 'prim::Constant');
  const guard = graph.create(CUDA_FUSION_GUARD, tensorInputs, 1);
  guard.output().setType(BoolType);
  guard.setTys('types', tensorInputs.map((v) => v.type));
  guard.insertBefore(group);
  let condition = guard.output();
  const checks = profiledValueChecks(group, group);
  if (checks.length > 0) {
    graph.withInsertPoint(group, () => {
      const list = graph.insertNode(graph.create('prim::ListConstruct', [...checks, guard.output()], 1));
      list.output().setType(listType(BoolType));
      const all = graph.insertNode(graph.create('aten::all', [list.output()], 1));
      condition = all.output().setType(BoolType);
    });
  }
  const versioningIf = graph.create('prim::If', [condition], group.outputs.length);
  group.outputs.forEach((out, i) => {
    versioningIf.output(i).setType(out.type);
    out.replaceAllUsesWith(versioningIf.output(i));
  });
  versioningIf.insertBefore(group);
  const trueBlock = versioningIf.addBlock();
  const falseBlock = versioningIf.addBlock();
  for (const v of inlineFallback(group, falseBlock)) falseBlock.registerOutput(v);
  group.moveBefore(trueBlock.returnNode);
  for (const out of group.outputs) trueBlock.registerOutput(out);
  return versioningIf;
}

/** Guards every prim::CudaFusionGroup of `graph` (nested blocks too), in place; returns the count. */
export function guardFusionGroups(graph: Graph): number {
  const groups = collectGroups(graph.block, []);
  for (const g of groups) guardFusionGroup(g);
  return groups.length;
}
