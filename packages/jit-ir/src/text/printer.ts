// Prints graphs in PyTorch's dump format (Graph::print / Node::print):
//   graph(%x.1 : Float(...),
//         %y : Tensor):
//     %a : Tensor = aten::relu(%x.1) # file.py:3:4
//     %b : Tensor = prim::If(%c)
//       block0():
//         -> (%a)
//     return (%a)
//   with prim::CudaFusionGroup_0 = graph(...)
// Nodes holding a subgraph in attr::Subgraph print as `<kind>_<n>` and their graphs follow the
// owning graph in `with` sections. Invariant: parseIR(printGraph(g)) prints to the same text.

import { printAttributeValue } from '../ir/attributes.js';
import type { Graph } from '../ir/graph.js';
import type { Node } from '../ir/node.js';
import type { Value } from '../ir/value.js';
import { printType } from '../types/type-printer.js';

function indent(level: number): string {
  return '  '.repeat(level);
}

function valueRef(v: Value): string {
  return `%${v.debugName()}`;
}

function valuesWithTypes(values: readonly Value[], separator = ', '): string {
  return values.map((v) => `${valueRef(v)} : ${printType(v.type)}`).join(separator);
}

function valueList(values: readonly Value[]): string {
  return values.map(valueRef).join(', ');
}

function printAttributes(n: Node, ignoreSubgraph: boolean): string {
  const parts: string[] = [];
  for (const name of n.attributeNames()) {
    if (ignoreSubgraph && name === 'Subgraph') continue;
    const a = n.attribute(name);
    if (a !== undefined) parts.push(`${name}=${printAttributeValue(a)}`);
  }
  return parts.length > 0 ? `[${parts.join(', ')}]` : '';
}

function printNodeInto(out: string[], n: Node, level: number, groups: Node[] | null): void {
  let line = `${indent(level)}${valuesWithTypes(n.outputs)} = `;
  if (groups !== null && n.attribute('Subgraph')?.kind === 'g') {
    line += `${n.kind}_${groups.length}${printAttributes(n, true)}`;
    groups.push(n);
  } else {
    line += `${n.kind}${printAttributes(n, false)}`;
  }
  line += `(${valueList(n.inputs)})`;
  if (n.sourceRange !== null) line += ` # ${n.sourceRange}`;
  out.push(line);
  n.blocks.forEach((b, i) => {
    out.push(`${indent(level + 1)}block${i}(${valuesWithTypes(b.inputs)}):`);
    for (const inner of b.nodes()) printNodeInto(out, inner, level + 2, groups);
    out.push(`${indent(level + 2)}-> (${valueList(b.outputs)})`);
  });
}

/** One node (and its blocks) as it appears inside a graph, at indentation level 0. */
export function printNode(n: Node): string {
  const out: string[] = [];
  printNodeInto(out, n, 0, null);
  return out.join('\n') + '\n';
}

export function printGraph(g: Graph): string {
  const out: string[] = [];
  out.push(`graph(${valuesWithTypes(g.inputs, ',\n      ')}):`);
  const groups: Node[] = [];
  for (const n of g.nodes()) printNodeInto(out, n, 1, groups);
  out.push(`  return (${valueList(g.outputs)})`);
  let text = out.join('\n') + '\n';
  groups.forEach((n, i) => {
    const sub = n.attribute('Subgraph');
    if (sub?.kind === 'g') text += `with ${n.kind}_${i} = ${printGraph(sub.value)}`;
  });
  return text;
}
