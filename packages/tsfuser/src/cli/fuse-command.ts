// `tsfuser fuse <graph.ir> [--dump a,b]`: the TorchScript path of the legacy fuser on a graph
// file. Parses it (@tsfuser/jit-ir), runs CudaGraphFuser and guardFusionGroups
// (@tsfuser/graph-fuser), prints the guarded graph, then the Fusion IR that parseJitIR makes of
// each prim::CudaFusionGroup (nvFuser's fusion_ir_presched: math and TransformPrinter).
// `--dump launch_param` also runs the guarded graph on generated inputs of the profiled types
// (reference backend) and prints how often each group ran fused and how often it fell back.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { HostTensor, printFusion, type DataType } from '@tsfuser/fusion-ir';
import { ParseError, formatParseError, parseIR, printGraph, type Block, type Graph, type Node } from '@tsfuser/jit-ir';
import { JitLoweringError, fuseGraph, guardFusionGroups, parseJitIR, runGraph, type RunValue } from '@tsfuser/graph-fuser';
import type { ParsedArgs } from './args.js';
import { UsageError, type CliIo } from './console.js';
import { parseDumpOptions } from './dump-options.js';

export const FUSE_VALUE_FLAGS = ['dump'];
export const FUSE_BOOLEAN_FLAGS: string[] = [];

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

/** Deterministic inputs of the graph's input types (sizes as typed; unknown sizes are 4). */
function generatedInputs(graph: Graph): RunValue[] {
  let state = 12345;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return graph.inputs.map((v) => {
    const t = v.type;
    if (t.kind === 'Tensor') {
      const dtype = DTYPES[t.scalarType ?? 'Float'] ?? 'Float';
      const sizes = (t.sizes ?? []).map((s) => s ?? 4);
      const values = Array.from({ length: sizes.reduce((a, b) => a * b, 1) }, () => (dtype === 'Bool' ? next() < 0.5 : dtype === 'Int' ? BigInt(Math.floor(next() * 8)) : next() * 2 - 1));
      return HostTensor.fromValues(dtype, sizes, values);
    }
    if (t.kind === 'Int') return 1;
    if (t.kind === 'Float') return 0.5;
    if (t.kind === 'Bool') return false;
    throw new UsageError(`--dump launch_param: cannot generate a value for input %${v.debugName()} of type ${t.kind}`);
  });
}

export function fuseCommand(args: ParsedArgs, io: CliIo): number {
  const [file, extra] = args.positionals;
  if (file === undefined) throw new UsageError('tsfuser fuse: missing <graph.ir>');
  if (extra !== undefined) throw new UsageError(`tsfuser fuse: unexpected argument '${extra}'`);
  const dumps = new Set([...parseDumpOptions(io.env['TSFUSER_DUMP'], 'TSFUSER_DUMP'), ...parseDumpOptions(args.values.get('dump'), '--dump')]);
  const graph = readGraph(file, io);
  if (graph === null) return 1;
  fuseGraph(graph);
  guardFusionGroups(graph);
  io.stdout(`=== graph after CudaGraphFuser and guardFusionGroups ===\n${printGraph(graph)}`);
  const groups = fusionGroups(graph.block);
  if (groups.length === 0) io.stdout('\n(no fusion groups: nothing in this graph is fusible)\n');
  let failed = false;
  groups.forEach((group, i) => {
    io.stdout(`\n=== ${group.kind}_${i}: fusion_ir_presched ===\n`);
    try {
      io.stdout(printFusion(parseJitIR(group.g('Subgraph')), { transforms: true }));
    } catch (e) {
      if (!(e instanceof JitLoweringError)) throw e;
      io.stderr(`tsfuser fuse: ${group.kind}_${i}: ${e.message}\n`);
      failed = true;
    }
  });
  if (dumps.has('launch_param')) {
    io.stdout(`\n=== launch_param ===\n${runGraph(graph, generatedInputs(graph)).dump()}`);
  }
  for (const name of dumps) {
    if (!FUSE_DUMPS.has(name)) io.stdout(`\n${name}: not produced by tsfuser fuse (see tsfuser run)\n`);
  }
  return failed ? 1 : 0;
}
