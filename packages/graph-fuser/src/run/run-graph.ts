// runGraph: interprets a TorchScript graph — typically fused and guarded — on actual values.
//   - prim::CudaFusionGuard compares the actual tensors with its profiled `types`
//     (guard-check.ts); a failure sends the prim::If to its fallback branch and is counted;
//   - prim::CudaFusionGroup runs through the injectable executor (default: parseJitIR of its
//     subgraph on fusion-ir's reference evaluator; the tsfuser package injects its GPU path);
//   - prim::If / prim::Loop run their blocks; everything else runs with reference semantics:
//     host ops (host-ops.ts) or the node lowered alone with parseJitIR (node-reference.ts).
// The result carries per-group counts (taken / fallback) and a `launch_param`-style dump.
// Invariant: the graph is only read; inputs are only written by in-place ops of the graph.

import type { Block, Graph, Node, TensorType, Value } from '@tsfuser/jit-ir';
import { JitLoweringError, lowerJitGraph, type JitLowering } from '../parse-jit-ir/index.js';
import { evaluate, type EvalValue, type HostTensor } from '@tsfuser/fusion-ir';
import { tensorComplianceProblem } from './guard-check.js';
import { evalHostOp } from './host-ops.js';
import { copyInto, evalNodeReference } from './node-reference.js';
import { createPhiloxGenerator, type PhiloxGenerator } from './philox-generator.js';
import { describeRunValue, isTensor, scalarForType, type RunValue } from './run-values.js';

/** One execution of a fusion group, as handed to the executor. */
export interface FusionGroupCall {
  readonly node: Node;
  readonly subgraph: Graph;
  /** The group's number in the printed graph (`prim::CudaFusionGroup_<index>`). */
  readonly index: number;
  readonly inputs: readonly RunValue[];
  /** The run's random-number state: a group with random ops takes its seed and offsets here. */
  readonly rng: PhiloxGenerator;
}

/** Runs a fusion group; returns one value per group output. */
export type FusionGroupExecutor = (call: FusionGroupCall) => RunValue[];

export interface RunGraphOptions {
  executor?: FusionGroupExecutor;
  /**
   * Random numbers (training dropout, rand_like): keep one generator across runs for fresh
   * numbers each run, as PyTorch's default generator does. Default: a new one with seed 0 per call.
   */
  generator?: PhiloxGenerator;
  /** Where prim::Print goes (default: collected in the result's `printed`). */
  print?: (text: string) => void;
}

export interface GroupRunStats {
  readonly name: string;
  taken: number;
  fallback: number;
  /** Why the guard failed, per fallback (most recent last, at most 8 kept). */
  readonly reasons: string[];
}

export interface RunGraphResult {
  outputs: RunValue[];
  groups: GroupRunStats[];
  printed: string[];
  /** `launch_param`-style summary: one line per group with taken / fallback counts. */
  dump(): string;
}

/**
 * The lowerings of fusion groups' subgraphs, each computed once per subgraph object: the
 * reference executor runs them and `tsfuser fuse` prints their fusions, so a 20,000-node group is
 * lowered once, not once to print and again to run. One instance per run (its owner decides how
 * long lowerings live; nothing is cached across runs). A subgraph must not change after its
 * first lowering (runGraph only reads graphs; the fuser is done with a guarded graph).
 */
export class GroupLowerings {
  private readonly bySubgraph = new WeakMap<Graph, JitLowering>();

  of(subgraph: Graph): JitLowering {
    let lowering = this.bySubgraph.get(subgraph);
    if (lowering === undefined) this.bySubgraph.set(subgraph, (lowering = lowerJitGraph(subgraph)));
    return lowering;
  }
}

/** The reference executor over `lowerings`: each group's subgraph lowered by parseJitIR (once per subgraph) and run on the reference evaluator. */
export function referenceExecutor(lowerings: GroupLowerings): FusionGroupExecutor {
  return (call) => runOnReference(lowerings.of(call.subgraph), call);
}

/** The default executor: the group's subgraph lowered by parseJitIR on each call and run on the reference evaluator (runGraph's default keeps one GroupLowerings per run instead). */
export const referenceGroupExecutor: FusionGroupExecutor = (call) => runOnReference(lowerJitGraph(call.subgraph), call);

function runOnReference(lowering: JitLowering, call: FusionGroupCall): RunValue[] {
  const fusionInputs: EvalValue[] = [];
  lowering.inputs.forEach((v, i) => {
    if (v === null) return;
    const value = call.inputs[i] ?? null;
    if (isTensor(value) || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') fusionInputs.push(value);
    else throw new Error(`runGraph: group input ${i} (${describeRunValue(value)}) is not a tensor or scalar`);
  });
  if (lowering.rng !== null) {
    const { seed, offset } = call.rng.take(lowering.rng.draws);
    fusionInputs.push(seed, offset);
  }
  const results = evaluate(lowering.fusion, fusionInputs);
  for (const u of lowering.inputUpdates) copyInto(call.inputs[u.graphInput] as HostTensor, results[u.fusionOutput] as HostTensor);
  return results.slice(0, call.subgraph.outputs.length) as RunValue[];
}

/** Numbers fusion groups in the order the printer names them (prim::CudaFusionGroup_<n>). */
function numberGroups(block: Block, out: Map<Node, number>): Map<Node, number> {
  for (const n of block.nodes()) {
    if (n.attribute('Subgraph')?.kind === 'g') out.set(n, out.size);
    for (const b of n.blocks) numberGroups(b, out);
  }
  return out;
}

class GraphRun {
  private readonly env = new Map<Value, RunValue>();
  private readonly groupIndex: Map<Node, number>;
  readonly stats: GroupRunStats[];
  readonly printed: string[] = [];
  /** Why the most recent evaluation of each guard failed (null: it passed). */
  private readonly guardProblems = new Map<Node, string | null>();

  constructor(
    graph: Graph,
    private readonly executor: FusionGroupExecutor,
    private readonly printSink: ((text: string) => void) | undefined,
    private readonly rng: PhiloxGenerator,
  ) {
    this.groupIndex = numberGroups(graph.block, new Map());
    this.stats = [...this.groupIndex.entries()].map(([n, i]) => ({ name: `${n.kind}_${i}`, taken: 0, fallback: 0, reasons: [] }));
  }

  get(v: Value): RunValue {
    if (!this.env.has(v)) throw new Error(`runGraph: %${v.debugName()} is used before it is defined`);
    return this.env.get(v) as RunValue;
  }

  runBlock(block: Block, args: readonly RunValue[]): RunValue[] {
    block.inputs.forEach((v, i) => this.env.set(v, args[i] ?? null));
    for (const n of block.nodes()) {
      const results = this.runNode(n);
      n.outputs.forEach((o, i) => this.env.set(o, results[i] ?? null));
    }
    return block.outputs.map((v) => this.get(v));
  }

  private runNode(n: Node): RunValue[] {
    const args = n.inputs.map((v) => this.get(v));
    switch (n.kind) {
      case 'prim::CudaFusionGuard':
        return [this.runGuard(n, args)];
      case 'prim::CudaFusionGroup':
        return this.runGroup(n, args);
      case 'prim::If':
        return this.runIf(n, args);
      case 'prim::Loop':
        return this.runLoop(n, args);
      default:
        return evalHostOp(n, args, { print: (t) => this.print(t) }) ?? this.runReference(n, args);
    }
  }

  /** The node's reference semantics; a lowering error names this node (not the one-node copy). */
  private runReference(n: Node, args: readonly RunValue[]): RunValue[] {
    try {
      return evalNodeReference(n, args, this.rng);
    } catch (e) {
      if (e instanceof JitLoweringError && e.node !== n) throw new JitLoweringError(e.op, e.reason, n);
      throw e;
    }
  }

  private print(text: string): void {
    if (this.printSink !== undefined) this.printSink(text);
    else this.printed.push(text);
  }

  private runGuard(n: Node, args: readonly RunValue[]): boolean {
    const types = n.attribute('types');
    const expected = types?.kind === 'tys' ? types.value : types?.kind === 'ty' && types.value.kind === 'Tuple' ? types.value.elems : [];
    let problem: string | null = null;
    args.forEach((a, i) => {
      if (problem !== null) return;
      const t = expected[i];
      const name = `%${n.input(i).debugName()}`;
      if (t === undefined || t.kind !== 'Tensor') problem = `input ${i} (${name}) has no profiled tensor type`;
      else if (!isTensor(a)) problem = `input ${i} (${name}) is ${describeRunValue(a)}, not a tensor`;
      else {
        const p = tensorComplianceProblem(a, t as TensorType);
        if (p !== null) problem = `input ${i} (${name}): ${p}`;
      }
    });
    this.guardProblems.set(n, problem);
    return problem === null;
  }

  private runGroup(n: Node, args: readonly RunValue[]): RunValue[] {
    const index = this.groupIndex.get(n) ?? -1;
    const stats = this.stats[index];
    if (stats !== undefined) stats.taken += 1;
    return this.executor({ node: n, subgraph: n.g('Subgraph'), index, inputs: args, rng: this.rng });
  }

  /** The guard behind a versioning prim::If's condition (directly or through aten::all of a list). */
  private guardOf(condition: Value): Node | null {
    const def = condition.node;
    if (def.kind === 'prim::CudaFusionGuard') return def;
    if (def.kind === 'aten::all') return def.input(0).node.inputs.map((v) => v.node).find((x) => x.kind === 'prim::CudaFusionGuard') ?? null;
    return null;
  }

  private runIf(n: Node, args: readonly RunValue[]): RunValue[] {
    const taken = args[0] === true || (typeof args[0] === 'number' && args[0] !== 0);
    const block = n.blocks[taken ? 0 : 1];
    if (block === undefined) throw new Error('runGraph: prim::If without two blocks');
    if (!taken) this.countFallback(n);
    const results = this.runBlock(block, []);
    // A block that yields fewer values than the node has outputs would leave them undefined
    // (read as null downstream): TorchScript's type checker never builds such an If.
    if (results.length !== n.outputs.length) {
      throw new Error(`runGraph: prim::If: its ${taken ? 'true' : 'false'} block yields ${results.length} value${results.length === 1 ? '' : 's'}, the node has ${n.outputs.length} output${n.outputs.length === 1 ? '' : 's'}`);
    }
    return results;
  }

  private countFallback(versioningIf: Node): void {
    const group = versioningIf.blocks[0]?.nodes().find((x) => x.kind === 'prim::CudaFusionGroup');
    const guard = this.guardOf(versioningIf.input(0));
    if (group === undefined || guard === null) return;
    const stats = this.stats[this.groupIndex.get(group) ?? -1];
    if (stats === undefined) return;
    stats.fallback += 1;
    stats.reasons.push(this.guardProblems.get(guard) ?? 'a profiled value (prim::profile_ivalue) differs');
    if (stats.reasons.length > 8) stats.reasons.shift();
  }

  private runLoop(n: Node, args: readonly RunValue[]): RunValue[] {
    const [maxTrip, initialCondition, ...carried] = args;
    const body = n.blocks[0];
    if (body === undefined) throw new Error('runGraph: prim::Loop without a body');
    const trips = maxTrip === null || maxTrip === undefined ? Infinity : Number(maxTrip);
    let values = carried;
    let cond = initialCondition === true || initialCondition === undefined;
    for (let i = 0; cond && i < trips; i++) {
      const [c, ...next] = this.runBlock(body, [i, ...values]);
      cond = c === true;
      values = next;
    }
    return values;
  }
}

/**
 * Runs `graph` on `inputs` (one per graph input: HostTensors for tensors, JS values for scalars,
 * arrays for lists). Fusion groups go through `options.executor`.
 */
export function runGraph(graph: Graph, inputs: readonly RunValue[], options: RunGraphOptions = {}): RunGraphResult {
  if (inputs.length !== graph.inputs.length) {
    throw new Error(`runGraph: the graph has ${graph.inputs.length} inputs but ${inputs.length} values were given`);
  }
  const run = new GraphRun(graph, options.executor ?? referenceExecutor(new GroupLowerings()), options.print, options.generator ?? createPhiloxGenerator());
  const args = inputs.map((v, i) => scalarForType(v, (graph.inputs[i] as Value).type));
  const outputs = run.runBlock(graph.block, args);
  const groups = run.stats;
  return { outputs, groups, printed: run.printed, dump: () => launchParamDump(groups) };
}

/** `launch_param (runGraph)` then one line per group: taken / fallback counts and the last reason. */
export function launchParamDump(groups: readonly GroupRunStats[]): string {
  const lines = ['launch_param (runGraph):'];
  if (groups.length === 0) lines.push('  no fusion groups');
  for (const g of groups) {
    const last = g.reasons[g.reasons.length - 1];
    lines.push(`  ${g.name}: taken ${g.taken}, fallback ${g.fallback}${last === undefined ? '' : ` (last guard failure: ${last})`}`);
  }
  return `${lines.join('\n')}\n`;
}
