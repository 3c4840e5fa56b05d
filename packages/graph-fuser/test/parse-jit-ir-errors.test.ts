// What parseJitIR refuses, and how it says so: one JitLoweringError naming the op, the node (its
// printed line) and why; jitOpSupport gives the same verdict without lowering; nothing is dropped.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseIR, type Graph } from '@tsfuser/jit-ir';
import { printFusion } from '@tsfuser/fusion-ir';
import { JitLoweringError, decomposeLinear, jitOpSupport, lowerJitGraph, parseJitIR, supportedJitOps } from '../src/index.js';
import { nodeFusibility } from '../src/fuser/fusibility.js';
import { FIXTURE_ROOT, readFixture } from './helpers/golden.js';
import { graphOf, tensorType as T } from './helpers/ir-builder.js';

const X = `%x : ${T('Float', 3, 4)}`;
const Y = `%y : ${T('Float', 3, 4)}`;

function loweringError(g: Graph): JitLoweringError {
  try {
    parseJitIR(g);
  } catch (e) {
    if (e instanceof JitLoweringError) return e;
    throw e;
  }
  throw new Error('parseJitIR did not fail');
}

function node(g: Graph, kind: string) {
  const n = g.nodes().find((m) => m.kind === kind);
  if (n === undefined) throw new Error(`no ${kind} node`);
  return n;
}

describe('JitLoweringError names the op, the node and the reason', () => {
  it('for an unsupported op (even a dead one: nothing is dropped)', () => {
    const g = graphOf([X, Y], '%dead : Tensor = aten::kron(%x, %y) # model.py:7:3\n%o : Tensor = aten::relu(%x)', ['o']);
    const e = loweringError(g);
    expect(e.op).toBe('aten::kron');
    expect(e.node).toBe(node(g, 'aten::kron'));
    expect(e.message).toContain('aten::kron: op is not supported by parseJitIR');
    expect(e.message).toContain('at node: %dead : Tensor = aten::kron(%x, %y) # model.py:7:3');
  });

  it('for an op parseJitIR has never heard of', () => {
    const e = loweringError(graphOf([X], '%o : Tensor = aten::fancy_op(%x)', ['o']));
    expect(e.message).toMatch(/^aten::fancy_op: op is not supported by parseJitIR\n {2}at node: %o : Tensor = aten::fancy_op\(%x\)$/);
  });

  it('for control flow, in-place ops and tuples (linear, mm and training dropout lower since the GEMM and RNG ops)', () => {
    const cases: [string, string, RegExp][] = [
      ['if_block.ir', 'prim::If', /control flow/],
      ['loop_block.ir', 'prim::Loop', /control flow/],
      ['inplace_mutation.ir', 'aten::add_', /in-place ops mutate their input/],
      ['nothing_fusible.ir', 'prim::Print', /printing is a side effect/],
      ['multiple_outputs.ir', 'prim::TupleConstruct', /tuples are not fusion values/],
      ['fusion_group_subgraph.ir', 'prim::CudaFusionGroup', /not supported/],
    ];
    for (const [file, op, reason] of cases) {
      const e = loweringError(parseIR(readFixture(file)));
      expect(e.op, file).toBe(op);
      expect(e.message, file).toMatch(reason);
      expect(e.message, file).toContain('at node: ');
    }
    expect(() => lowerJitGraph(parseIR(readFixture('linear_gelu_dropout.ir')))).not.toThrow();
    const decomposed = parseIR(readFixture('linear_gelu_dropout.ir'));
    decomposeLinear(decomposed);
    expect(jitOpSupport(node(decomposed, 'aten::dropout'))).toEqual({ supported: true });
  });

  it('for arguments that must be constants', () => {
    const g = graphOf([X, '%k : bool'], '%d : int[] = prim::Constant[value=[1]]()\n%n : NoneType = prim::Constant()\n%o : Tensor = aten::sum(%x, %d, %k, %n)', ['o']);
    expect(loweringError(g).message).toContain("aten::sum: argument 'keepdim' (%k) must be a compile-time constant");
  });

  it('for bad constant values', () => {
    const g = graphOf([X], '%a : str = prim::Constant[value="erf"]()\n%o : Tensor = aten::gelu(%x, %a)', ['o']);
    expect(loweringError(g).message).toContain('aten::gelu: approximate "erf" is not "none" or "tanh"');
    const d = graphOf([X], '%c : int = prim::Constant[value=8]()\n%f : bool = prim::Constant[value=0]()\n%n : NoneType = prim::Constant()\n%o : Tensor = aten::to(%x, %c, %f, %f, %n)', ['o']);
    expect(loweringError(d).message).toContain('aten::to: dtype ComplexHalf (code 8) is not supported in fusions');
  });

  it('for overloads that do not match', () => {
    const g = graphOf([X], '%s : str = prim::Constant[value="two"]()\n%o : Tensor = aten::mul(%x, %s)', ['o']);
    expect(loweringError(g).message).toContain('aten::mul: no supported overload matches the inputs (Tensor, Str)');
  });

  it('for errors raised by fusion-ir ops, wrapped with the node', () => {
    const g = graphOf([`%x : ${T('Long', 3, 4)}`], '%d : int[] = prim::Constant[value=[1]]()\n%f : bool = prim::Constant[value=0]()\n%n : NoneType = prim::Constant()\n%o : Tensor = aten::mean(%x, %d, %f, %n)', ['o']);
    const e = loweringError(g);
    expect(e.op).toBe('aten::mean');
    expect(e.message).toContain('is not floating point');
    expect(e.message).toContain('at node: %o : Tensor = aten::mean(%x, %d, %f, %n)');
  });

  it('for a lowered dtype that disagrees with the graph type', () => {
    const g = graphOf([X, Y], `%one : int = prim::Constant[value=1]()\n%o : ${T('Half', 3, 4)} = aten::add(%x, %y, %one)`, ['o']);
    expect(loweringError(g).message).toContain('output %o lowers to Float but the graph types it Half');
  });

  it('for unusable graph inputs and outputs', () => {
    expect(loweringError(graphOf(['%x : Tensor'], '%o : Tensor = aten::relu(%x)', ['o'])).message).toBe(
      'graph: input %x: a tensor input needs a dtype and rank (a complete or profiled tensor type)',
    );
    expect(loweringError(graphOf([`%x : ${T('ComplexHalf', 2)}`], '%o : Tensor = aten::relu(%x)', ['o'])).message).toContain(
      'input %x: dtype ComplexHalf is not supported in fusions',
    );
    expect(loweringError(graphOf([X, '%l : int[]'], '%f : bool = prim::Constant[value=0]()\n%n : NoneType = prim::Constant()\n%o : Tensor = aten::sum(%x, %l, %f, %n)', ['o'])).message).toContain(
      'input %l: inputs of type List can only be used through prim::profile_ivalue',
    );
    expect(loweringError(graphOf([X], '%s : str = prim::Constant[value="a"]()', ['s'])).message).toContain(
      'output %s is str "a", which a fusion cannot return',
    );
  });

  it('for values aten leaves empty (inference batch-norm statistics)', () => {
    const g = graphOf(
      [`%x : ${T('Float', 2, 3, 4)}`, `%rm : ${T('Float', 3)}`, `%rv : ${T('Float', 3)}`],
      '%f : bool = prim::Constant[value=0]()\n%m : float = prim::Constant[value=0.1]()\n%e : float = prim::Constant[value=1e-05]()\n%n : NoneType = prim::Constant()\n%o : Tensor, %sm : Tensor, %si : Tensor = aten::native_batch_norm(%x, %n, %n, %rm, %rv, %f, %m, %e)',
      ['o', 'sm'],
    );
    expect(loweringError(g).message).toContain('save_mean/save_invstd are used but in inference aten returns empty');
  });

  it('for a running statistic read after its in-place update', () => {
    const g = graphOf(
      [`%x : ${T('Float', 2, 3, 4)}`, `%rm : ${T('Float', 3)}`, `%rv : ${T('Float', 3)}`],
      '%t : bool = prim::Constant[value=1]()\n%m : float = prim::Constant[value=0.1]()\n%e : float = prim::Constant[value=1e-05]()\n%n : NoneType = prim::Constant()\n%o : Tensor = aten::batch_norm(%x, %n, %n, %rm, %rv, %t, %m, %e, %t)\n%r : Tensor = aten::relu(%rm)',
      ['o', 'r'],
    );
    expect(loweringError(g).message).toContain('running_mean (%rm) is read after its in-place update, by aten::relu');
  });
});

describe('jitOpSupport', () => {
  it('accepts supported nodes and gives the lowering error reason for others', () => {
    const g = parseIR(readFixture('inplace_mutation.ir'));
    expect(jitOpSupport(node(g, 'aten::mul'))).toEqual({ supported: true });
    expect(jitOpSupport(node(g, 'aten::sigmoid'))).toEqual({ supported: true });
    expect(jitOpSupport(node(g, 'prim::Constant'))).toEqual({ supported: true });
    expect(jitOpSupport(node(g, 'aten::add_'))).toEqual({ supported: false, reason: 'in-place ops mutate their input and are not fused' });
  });

  it('agrees with parseJitIR on every fixture: it fails exactly at the first node jitOpSupport rejects', () => {
    for (const file of readdirSync(FIXTURE_ROOT).filter((f) => f.endsWith('.ir'))) {
      const g = parseIR(readFixture(file));
      const rejected = g.nodes().find((n) => !jitOpSupport(n).supported);
      if (rejected === undefined) {
        expect(() => lowerJitGraph(g), file).not.toThrow();
      } else {
        const e = loweringError(g);
        expect(e.node, file).toBe(rejected);
        const verdict = jitOpSupport(rejected);
        expect(verdict.supported ? '' : e.message.startsWith(`${rejected.kind}: ${verdict.reason}`), file).toBe(true);
      }
    }
  });

  it('lists every supported op kind once', () => {
    const ops = supportedJitOps();
    expect(new Set(ops).size).toBe(ops.length);
    for (const op of ['aten::add', 'aten::native_batch_norm', 'aten::layer_norm', 'aten::softmax', 'prim::profile_ivalue']) expect(ops).toContain(op);
  });
});

describe('lowerJitGraph bookkeeping', () => {
  it('training batch norm: the new running stats are extra outputs aliased to their inputs', () => {
    const { fusion, inputUpdates } = lowerJitGraph(parseIR(readFixture('batch_norm_training.ir')));
    expect(inputUpdates).toEqual([
      { fusionOutput: 1, graphInput: 3, what: 'running_mean' },
      { fusionOutput: 2, graphInput: 4, what: 'running_var' },
    ]);
    expect(fusion.outputs.length).toBe(3);
  });

  it('profiled graph: list inputs consumed by prim::profile_ivalue get no fusion input', () => {
    const { fusion, inputs } = lowerJitGraph(parseIR(readFixture('profiled_graph.ir')));
    expect(inputs.map((v) => v?.kind ?? null)).toEqual(['tensorView', 'tensorView', null, 'scalar']);
    expect(fusion.inputs.length).toBe(3);
  });
});

describe('decomposeLinear', () => {
  it('moves the bias of aten::linear into a fusible aten::add', () => {
    const g = parseIR(readFixture('linear_gelu_dropout.ir'));
    expect(decomposeLinear(g)).toBe(1);
    const linear = node(g, 'aten::linear');
    const add = node(g, 'aten::add');
    expect(linear.input(2).type.kind).toBe('None');
    expect(add.input(0)).toBe(linear.output());
    expect(add.input(1).debugName()).toBe('bias.1');
    expect(node(g, 'aten::gelu').input(0)).toBe(add.output());
    expect(jitOpSupport(add)).toEqual({ supported: true });
    // parseJitIR lowers the linear (a LinearOp) and it joins groups (a GEMM segment on the GPU).
    expect(jitOpSupport(linear).supported).toBe(true);
    expect(nodeFusibility(linear)).toEqual({ fusible: true });
    expect(decomposeLinear(g)).toBe(0);
  });
});

describe('README', () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### parseJitIR coverage'), readme.indexOf('**Not lowered**'));

  it('lists every supported op in the "parseJitIR coverage" section', () => {
    const missing = supportedJitOps().filter((op) => !new RegExp(`(\\b|::)${op.split('::')[1] ?? op}\\b`).test(section));
    expect(missing).toEqual([]);
  });

  it('has a working example', () => {
    const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## parseJitIR')))?.[1] ?? '';
    const ir = /parseIR\(`([\s\S]*?)`\)/.exec(code)?.[1] ?? '';
    const fusion = parseJitIR(parseIR(ir));
    expect(fusion.inputs.map((v) => v.kind)).toEqual(['tensorView', 'tensorView', 'scalar']);
    expect(printFusion(fusion)).toContain('= broadcast( T1_g[ iS2{i2} ] )');
  });
});
