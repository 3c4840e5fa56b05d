// Reference semantics of one TorchScript node, for the un-fused parts of a graph (fallback
// branches, nodes the fuser left alone): the node is copied into a one-node graph whose tensor
// inputs have the actual tensors' complete types and whose other arguments are constants holding
// the actual values, lowered with parseJitIR and run on fusion-ir's reference evaluator. An
// in-place op (`aten::add_`) runs its functional form and writes the result into its first
// input. Lowerings are shared by the nodes of one graph that lower alike (same kind, no
// attributes, same argument signature, input and output types and used outputs): a 20,000-node
// chain of aten::add / aten::mul lowers two one-node graphs, not 20,000; a node with attributes
// keeps its own, per input signature.
// Invariant: a node is evaluated exactly as parseJitIR would lower it inside a fusion.

import { HostTensor, evaluate, type EvalValue } from '@tsfuser/fusion-ir';
import { DynamicTensorType, Graph, completeTensorType, printType, type Node, type Value } from '@tsfuser/jit-ir';
import { lowerJitGraph, type JitLowering } from '../parse-jit-ir/index.js';
import { constantOfRunValue, describeRunValue, isTensor, scalarTypeOfDataType, type RunValue } from './run-values.js';
import { createPhiloxGenerator, type PhiloxGenerator } from './philox-generator.js';

interface OneNodePlan {
  lowering: JitLowering;
  /** Node input index of each graph input, in order. */
  tensorArgs: number[];
  /** Node output index of each fusion output (graph outputs), in order. */
  outputs: number[];
}

/** Per node with attributes (not keyed by shapeKey): plans by argument signature. */
const plans = new WeakMap<Node, Map<string, OneNodePlan>>();
/** Per graph: plans by shape key (shapeKey), for nodes whose lowering depends on nothing else. */
const sharedPlans = new WeakMap<Graph, Map<string, OneNodePlan>>();

/**
 * What plan() reads of a node besides the argument values (in `signature`): its kind, input and
 * output types and which outputs are used; null when it has attributes (they are not keyed).
 */
function shapeKey(node: Node, signatureKey: string): string | null {
  if (node.hasAttributes()) return null;
  const inputs = node.inputs.map((v) => printType(v.type)).join(',');
  const outputs = node.outputs.map((o) => `${printType(o.type)}${o.uses.length > 0 ? '' : '!'}`).join(',');
  return `${node.kind}(${inputs})->(${outputs})|${signatureKey}`;
}

function signature(args: readonly RunValue[]): string {
  return args.map((a) => (isTensor(a) ? `${a.dtype}(${a.sizes.join(',')};${a.strides.join(',')})` : describeRunValue(a))).join('|');
}

/** The functional kind of an in-place op (`aten::add_` → `aten::add`), or null. */
export function functionalKind(kind: string): string | null {
  const name = kind.slice(kind.indexOf('::') + 2);
  if (!kind.startsWith('aten::') || !name.endsWith('_') || name.startsWith('_') || name.endsWith('__')) return null;
  return kind.slice(0, -1);
}

function plan(node: Node, args: readonly RunValue[]): OneNodePlan {
  const g = new Graph();
  const tensorArgs: number[] = [];
  const inputs: Value[] = args.map((a, i) => {
    if (isTensor(a)) {
      tensorArgs.push(i);
      return g.addInput(undefined, completeTensorType(scalarTypeOfDataType(a.dtype), a.sizes, a.strides));
    }
    const c = constantOfRunValue(a, node.inputs[i]?.type);
    if (c === null) throw new Error(`runGraph: ${node.kind} argument ${i} (${describeRunValue(a)}) cannot be passed to the reference`);
    return g.insertConstant(c);
  });
  const functional = functionalKind(node.kind);
  const copy = g.create(functional ?? node.kind, inputs, node.outputs.length);
  copy.copyAttributes(node);
  // Tensor outputs stay unrefined: the actual inputs (a guard failure's fallback) may have
  // dtypes other than the profiled ones the graph states.
  node.outputs.forEach((o, i) => copy.output(i).setType(o.type.kind === 'Tensor' ? DynamicTensorType : o.type));
  g.appendNode(copy);
  const outputs: number[] = [];
  node.outputs.forEach((o, i) => {
    if (o.uses.length > 0 || functional !== null) {
      g.registerOutput(copy.output(i));
      outputs.push(i);
    }
  });
  return { lowering: lowerJitGraph(g), tensorArgs, outputs };
}

/** Copies every element of `src` into `dst` (same shape), converting to dst's dtype. */
export function copyInto(dst: HostTensor, src: HostTensor): void {
  for (let i = 0; i < dst.numel; i++) dst.setFlat(i, src.get(i));
}

/** Evaluates `node` on `args` (one per input); one value per output (null for unused ones). */
export function evalNodeReference(node: Node, args: readonly RunValue[], rng: PhiloxGenerator = createPhiloxGenerator()): RunValue[] {
  const key = signature(args);
  const shared = shapeKey(node, key);
  let p: OneNodePlan | undefined;
  if (shared !== null) {
    // Looked up by shape every time rather than cached per node: a per-node cache is a WeakMap
    // entry per node (20,000 for a long un-fused chain), which every GC has to trace.
    let inGraph = sharedPlans.get(node.graph);
    if (inGraph === undefined) sharedPlans.set(node.graph, (inGraph = new Map()));
    p = inGraph.get(shared);
    if (p === undefined) inGraph.set(shared, (p = plan(node, args)));
  } else {
    let byNode = plans.get(node);
    if (byNode === undefined) plans.set(node, (byNode = new Map()));
    p = byNode.get(key);
    if (p === undefined) byNode.set(key, (p = plan(node, args)));
  }
  const { lowering, tensorArgs, outputs } = p;
  const fusionInputs: EvalValue[] = [];
  lowering.inputs.forEach((v, k) => {
    if (v !== null) fusionInputs.push(args[tensorArgs[k] as number] as HostTensor);
  });
  if (lowering.rng !== null) {
    const { seed, offset } = rng.take(lowering.rng.draws);
    fusionInputs.push(seed, offset);
  }
  const results = evaluate(lowering.fusion, fusionInputs);
  for (const u of lowering.inputUpdates) {
    copyInto(args[tensorArgs[u.graphInput] as number] as HostTensor, results[u.fusionOutput] as HostTensor);
  }
  const out: RunValue[] = node.outputs.map(() => null);
  outputs.forEach((o, k) => (out[o] = results[k] as RunValue));
  if (functionalKind(node.kind) !== null) {
    const self = args[0];
    const result = out[0];
    if (self === undefined || !isTensor(self) || !(result instanceof HostTensor)) throw new Error(`runGraph: ${node.kind} needs a tensor self`);
    copyInto(self, result);
    out[0] = self;
  }
  return out;
}
