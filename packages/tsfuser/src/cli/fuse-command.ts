// `tsfuser fuse <graph.ir> [--dump a,b]`: the TorchScript path of the legacy fuser on a graph
// file. Parses it (@tsfuser/jit-ir), runs CudaGraphFuser and guardFusionGroups
// (@tsfuser/graph-fuser), prints the guarded graph, then the Fusion IR that parseJitIR makes of
// each prim::CudaFusionGroup (nvFuser's fusion_ir_presched: math and TransformPrinter).
// `--run` runs the guarded graph with runGraph on deterministic generated inputs of the graph's
// types (variances and sqrt/log arguments positive), its fusion groups on `--backend` (gpu: parseJitIR → scheduler → codegen → runtime, one
// FusionExecutorCache per group; reference: fusion-ir's evaluator; auto: gpu when available),
// everything else with reference semantics, and prints one line per output; `--check` compares
// them with the un-fused graph run on the reference; `--dump launch_param` (implies --run) prints
// how often each group ran fused and how often its guard sent it to the fallback.
// `--inputs a.npy,2.5,…` gives the graph's inputs (one entry per graph input, see
// ../torchscript/graph-inputs.ts) instead of generated ones, and `--save-outputs DIR` writes each
// tensor output to DIR/out<i>.npy, so a graph can be checked against PyTorch's own outputs.
// `--single-node` is the legacy single-node mode (a lone fusible node becomes a group).
// A node outside the fusion groups that has no reference semantics (training dropout, an op
// parseJitIR does not lower) fails the run with one error naming the node; exit 1.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { HostTensor, printFusion, type DataType } from '@tsfuser/fusion-ir';
import { ParseError, formatParseError, parseIR, printGraph, type Block, type ConstantValue, type Graph, type Node, type Value } from '@tsfuser/jit-ir';
import {
  JitLoweringError,
  fuseGraph,
  GroupLowerings,
  referenceExecutor,
  guardFusionGroups,
  profiledConstant,
  runGraph,
  type FusionGroupCall,
  type FusionGroupExecutor,
  type RunGraphResult,
  type RunValue,
} from '@tsfuser/graph-fuser';
import { referenceFallbackNote } from '../execute/execute.js';
import { createGpuBackend } from '../execute/gpu-backend.js';
import { gpuGroupExecutor } from '../torchscript/gpu-group-executor.js';
import { compareTensors } from '../io/compare.js';
import { loadGraphInputs } from '../torchscript/graph-inputs.js';
import { AllocationBudget, limitsFromEnv, REFERENCE_BYTES_PER_ELEMENT } from '../io/allocation-limits.js';
import type { ParsedArgs } from './args.js';
import { UsageError, type CliIo } from './console.js';
import { requestedDumps } from './dump-options.js';
import { outputLine } from './format-output.js';
import { prepareOutputDirectory, writeOutputFiles } from './save-outputs.js';

export const FUSE_VALUE_FLAGS = ['dump', 'backend', 'inputs', 'save-outputs'];
export const FUSE_BOOLEAN_FLAGS = ['run', 'check', 'single-node'];

/** The stages `tsfuser fuse` prints besides the graph; others are accepted and said to be absent. */
const FUSE_DUMPS: ReadonlySet<string> = new Set(['fusion_ir_presched', 'launch_param']);

function fusionGroups(block: Block, out: Node[] = []): Node[] {
  for (const n of block.nodes()) {
    if (n.attribute('Subgraph')?.kind === 'g') out.push(n);
    for (const b of n.blocks) fusionGroups(b, out);
  }
  return out;
}

function readGraph(file: string, io: CliIo): Graph | null {
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, file), 'utf8');
  } catch {
    throw new UsageError(`cannot read ${file}`);
  }
  try {
    return parseIR(text);
  } catch (e) {
    if (e instanceof ParseError) {
      io.stderr(`${formatParseError(file, e)}\n`);
      return null;
    }
    throw e;
  }
}

const DTYPES: Readonly<Record<string, DataType>> = { Float: 'Float', Half: 'Half', BFloat16: 'BFloat16', Double: 'Double', Bool: 'Bool', Long: 'Int', Int: 'Int32' };

function runValueOf(c: ConstantValue): RunValue {
  switch (c.kind) {
    case 'int':
      return Number(c.value);
    case 'intList':
      return c.value.map((x) => Number(x));
    case 'bool':
    case 'float':
    case 'str':
      return c.value;
    default:
      return null;
  }
}

/** The value a prim::profile_ivalue recorded for `v` (a graph input of the un-fused graph), or undefined. */
function profiledInput(v: Value): RunValue | undefined {
  for (const u of v.uses) {
    if (u.user.kind !== 'prim::profile_ivalue') continue;
    const c = profiledConstant(u.user);
    if (c !== null) return runValueOf(c);
  }
  return undefined;
}

/** Ops whose argument must be positive to give numbers (argument index), e.g. running_var. */
const POSITIVE_ARGUMENTS: Readonly<Record<string, number>> = {
  'aten::native_batch_norm': 4,
  'aten::batch_norm': 4,
  'aten::_batch_norm_impl_index': 4,
  'aten::sqrt': 0,
  'aten::rsqrt': 0,
  'aten::log': 0,
};

/** Graph inputs (through prim::profile) that feed a POSITIVE_ARGUMENTS position. */
function positiveInputs(graph: Graph): Set<Value> {
  const out = new Set<Value>();
  const visit = (block: Block): void => {
    for (const n of block.nodes()) {
      n.blocks.forEach(visit);
      const k = POSITIVE_ARGUMENTS[n.kind];
      let v = k === undefined ? undefined : n.inputs[k];
      while (v !== undefined && v.node.kind === 'prim::profile') v = v.node.inputs[v.offset];
      if (v !== undefined && graph.inputs.includes(v)) out.add(v);
    }
  };
  visit(graph.block);
  return out;
}

/**
 * Deterministic inputs of the graph's input types (sizes as typed; unknown sizes are 4); inputs
 * the profiler recorded (prim::profile_ivalue in `unfused`) get their profiled value.
 */
function generatedInputs(graph: Graph, unfused: Graph): RunValue[] {
  let state = 12345;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const positive = positiveInputs(unfused);
  // Sizes are checked against the allocation limits before anything is built (a typed graph can
  // declare any size: Float(635000000) used to abort the V8 heap); the reference run works in float64.
  const budget = new AllocationBudget(limitsFromEnv(process.env), REFERENCE_BYTES_PER_ELEMENT);
  return graph.inputs.map((v, index) => {
    const source = unfused.inputs[index];
    const profiled = source === undefined ? undefined : profiledInput(source);
    if (profiled !== undefined) return profiled;
    const t = v.type;
    if (t.kind === 'Tensor') {
      const dtype = DTYPES[t.scalarType ?? 'Float'] ?? 'Float';
      const sizes = (t.sizes ?? []).map((s) => Number(s ?? 4));
      budget.reserve(dtype, sizes, `input ${index} (%${v.debugName()}) of sizes [${sizes.join(', ')}]`, index);
      const low = source !== undefined && positive.has(source) ? 0.25 : -1;
      const values = Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, () => (dtype === 'Bool' ? next() < 0.5 : dtype === 'Int' ? BigInt(Math.floor(next() * 8)) : low + next() * (1 - low)));
      return HostTensor.fromValues(dtype, sizes, values);
    }
    if (t.kind === 'Int') return 1;
    if (t.kind === 'Float') return 0.5;
    if (t.kind === 'Bool') return false;
    throw new UsageError(`--run: cannot generate a value for input %${v.debugName()} of type ${t.kind}`);
  });
}

/**
 * Fusion groups on the GPU (gpuGroupExecutor: each subgraph lowered once by parseJitIR, run by
 * its FusionExecutorCache). With `fallBack`, a group the GPU path cannot schedule or lower runs
 * on the reference evaluator instead (noted once on stderr).
 */
function gpuExecutor(io: CliIo, fallBack: boolean, lowerings: GroupLowerings): FusionGroupExecutor {
  const gpu = createGpuBackend();
  const a = gpu.availability();
  if (!a.available) throw new UsageError(`--backend gpu: the GPU is unavailable: ${a.reason}`);
  const noted = new Set<number>();
  const reference = referenceExecutor(lowerings);
  const fallback = (call: FusionGroupCall, e: Error): RunValue[] => {
    if (!noted.has(call.index)) io.stderr(`tsfuser fuse: prim::CudaFusionGroup_${call.index} runs on the reference evaluator: ${e.message}\n`);
    noted.add(call.index);
    return reference(call);
  };
  return gpuGroupExecutor(gpu, fallBack ? { fallback } : {}).executor;
}

function executorFor(backend: string, io: CliIo, lowerings: GroupLowerings): { executor: FusionGroupExecutor; name: string } {
  switch (backend) {
    case 'reference':
      return { executor: referenceExecutor(lowerings), name: 'reference' };
    case 'gpu':
      return { executor: gpuExecutor(io, false, lowerings), name: 'gpu' };
    case 'auto': {
      const a = createGpuBackend().availability();
      if (a.available) return { executor: gpuExecutor(io, true, lowerings), name: 'gpu' };
      io.stderr(`${referenceFallbackNote(a, 'tsfuser fuse')}\n`);
      return { executor: referenceExecutor(lowerings), name: 'reference' };
    }
    default:
      throw new UsageError(`--backend must be gpu, reference or auto, got '${backend}'`);
  }
}

function cloneValues(values: readonly RunValue[]): RunValue[] {
  return values.map((v) => (v instanceof HostTensor ? new HostTensor(v.dtype, [...v.sizes], [...v.strides], v.data.slice(), v.offset) : v));
}

/**
 * Writes each tensor output to `dir`/out<i>.npy (other outputs are listed as skipped); a tuple
 * output (prim::TupleConstruct) gives one file per element, numbered on, as PyTorch flattens it.
 */
function saveOutputs(outputs: readonly RunValue[], saveText: string, io: CliIo): void {
  const dir = prepareOutputDirectory(saveText, io.cwd);
  const tensors = new Map<number, HostTensor>();
  outputs.flatMap((o) => (Array.isArray(o) ? o : [o])).forEach((out, i) => {
    if (out instanceof HostTensor) tensors.set(i, out);
    else io.stdout(`out${i} is not a tensor (${JSON.stringify(out)}): not saved\n`);
  });
  writeOutputFiles(dir, tensors);
  io.stdout(`saved ${tensors.size} output${tensors.size === 1 ? '' : 's'} to ${saveText}/out<i>.npy\n`);
}

/**
 * runGraph, with the errors a graph can cause reported as one line: a node outside the fusion
 * groups that cannot run on the host (JitLoweringError: training dropout, an unsupported op) or
 * a value runGraph cannot handle. Returns null after reporting.
 */
function runReported(graph: Graph, inputs: readonly RunValue[], executor: FusionGroupExecutor | undefined, what: string, io: CliIo): RunGraphResult | null {
  try {
    return runGraph(graph, cloneValues(inputs), executor === undefined ? {} : { executor });
  } catch (e) {
    if (e instanceof JitLoweringError) {
      io.stderr(`tsfuser fuse: --run: ${what}: a node outside the fusion groups cannot run on the host: ${e.message}\n`);
      return null;
    }
    if (e instanceof Error && e.message.startsWith('runGraph:')) {
      io.stderr(`tsfuser fuse: --run: ${what}: ${e.message}\n`);
      return null;
    }
    throw e;
  }
}

/** --run / --check / --dump launch_param; returns whether the run (and the check, if any) passed. */
function runAndCheck(graph: Graph, unfused: Graph, args: ParsedArgs, dumps: ReadonlySet<string>, io: CliIo, lowerings: GroupLowerings): boolean {
  const list = args.values.get('inputs');
  const inputs = list === undefined ? generatedInputs(graph, unfused) : loadGraphInputs(list, unfused, io.cwd);
  const { executor, name } = executorFor(args.values.get('backend') ?? 'auto', io, lowerings);
  const run = runReported(graph, inputs, executor, 'the fused graph', io);
  if (run === null) return false;
  io.stdout(`\n=== run (fusion groups on ${name}${list === undefined ? '' : '; inputs from --inputs'}) ===\n`);
  run.outputs.forEach((out, i) => io.stdout(out instanceof HostTensor ? `${outputLine(i, out)}\n` : `out${i}: ${JSON.stringify(out)}\n`));
  if (dumps.has('launch_param')) io.stdout(`\n=== launch_param ===\n${run.dump()}`);
  const saveDir = args.values.get('save-outputs');
  if (saveDir !== undefined) saveOutputs(run.outputs, saveDir, io);
  if (!args.booleans.has('check')) return true;
  const expected = runReported(unfused, inputs, undefined, 'the un-fused graph', io)?.outputs;
  if (expected === undefined) return false;
  let ok = true;
  run.outputs.forEach((out, i) => {
    const exp = expected[i];
    if (out instanceof HostTensor && exp instanceof HostTensor) {
      const r = compareTensors(out, exp);
      if (!r.ok) {
        ok = false;
        io.stdout(`check: out${i} differs from the un-fused graph: ${r.reason}\n`);
      }
    } else if (JSON.stringify(out) !== JSON.stringify(exp)) {
      ok = false;
      io.stdout(`check: out${i} is ${JSON.stringify(out)}, the un-fused graph gives ${JSON.stringify(exp)}\n`);
    }
  });
  if (ok) io.stdout('check: passed (same outputs as the un-fused graph on the reference)\n');
  return ok;
}

export function fuseCommand(args: ParsedArgs, io: CliIo): number {
  const [file, extra] = args.positionals;
  if (file === undefined) throw new UsageError('tsfuser fuse: missing <graph.ir>');
  if (extra !== undefined) throw new UsageError(`tsfuser fuse: unexpected argument '${extra}'`);
  const dumps = requestedDumps(io.env, args.values.get('dump'));
  const graph = readGraph(file, io);
  if (graph === null) return 1;
  const unfused = graph.copy();
  fuseGraph(graph, { singletonFusion: args.booleans.has('single-node') });
  guardFusionGroups(graph);
  io.stdout(`=== graph after CudaGraphFuser and guardFusionGroups ===\n${printGraph(graph)}`);
  const groups = fusionGroups(graph.block);
  if (groups.length === 0) io.stdout('\n(no fusion groups: nothing in this graph is fusible)\n');
  // One lowering per group, shared by the printout and the run.
  const lowerings = new GroupLowerings();
  let failed = false;
  groups.forEach((group, i) => {
    io.stdout(`\n=== ${group.kind}_${i}: fusion_ir_presched ===\n`);
    try {
      // The lowering the reference run reuses (lowered once, printed and run).
      io.stdout(printFusion(lowerings.of(group.g('Subgraph')).fusion, { transforms: true }));
    } catch (e) {
      if (!(e instanceof JitLoweringError)) throw e;
      io.stderr(`tsfuser fuse: ${group.kind}_${i}: ${e.message}\n`);
      failed = true;
    }
  });
  for (const name of dumps) {
    if (!FUSE_DUMPS.has(name)) io.stdout(`\n${name}: not produced by tsfuser fuse (see tsfuser run)\n`);
  }
  if (failed) return 1;
  const run = args.booleans.has('run') || args.booleans.has('check') || dumps.has('launch_param') || args.values.has('inputs') || args.values.has('save-outputs');
  if (run && !runAndCheck(graph, unfused, args, dumps, io, lowerings)) return 1;
  return 0;
}
