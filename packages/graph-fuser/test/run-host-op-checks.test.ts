// runGraph's host ops check their operands as PyTorch's TorchScript interpreter does: the graphs
// PyTorch scripted (test-fixtures/torchscript/host-op-errors.json, made by
// tools/torchscript/generate_host_op_errors.py with PyTorch's own values and errors) run here,
// un-fused and fused + guarded, and give PyTorch's value or raise with PyTorch's message. They
// used to answer 0 or null quietly (so `fuse --check` passed on them). A prim::If whose block
// yields fewer values than the node's outputs is refused.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostTensor, type DataType } from '@tsfuser/fusion-ir';
import { parseIR } from '@tsfuser/jit-ir';
import { fuseGraph, guardFusionGroups, runGraph, type RunValue } from '../src/index.js';
import { FIXTURE_ROOT } from './helpers/golden.js';

interface TensorInput {
  /** Row-major values; nan and ±inf as Python's repr. */
  tensor: (number | string)[];
  shape: number[];
  dtype: string;
}

interface Case {
  name: string;
  graph: string;
  inputs: (number | TensorInput | { float: string })[];
  value?: number | { float: string };
  error?: string;
}

const fixture = JSON.parse(readFileSync(join(FIXTURE_ROOT, 'host-op-errors.json'), 'utf8')) as { torch: string; cases: Case[] };

const DTYPES: Readonly<Record<string, DataType>> = { float32: 'Float', float64: 'Double', int64: 'Int' };

/** A number as Python's repr writes it ('nan', 'inf', '-inf' included). */
function pyNumber(x: number | string): number {
  if (typeof x === 'number') return x;
  if (x === 'inf') return Infinity;
  if (x === '-inf') return -Infinity;
  if (x === 'nan') return NaN;
  throw new Error(`not a number: ${x}`);
}

function runValue(v: Case['inputs'][number]): RunValue {
  if (typeof v === 'number') return v;
  if ('float' in v) return pyNumber(v.float);
  return HostTensor.fromValues(DTYPES[v.dtype] ?? 'Float', v.shape, v.tensor.map(pyNumber));
}

function expected(c: Case): number {
  const v = c.value;
  return typeof v === 'object' ? pyNumber(v.float) : (v as number);
}

describe(`host ops against PyTorch ${fixture.torch}'s scripted graphs`, () => {
  it.each(fixture.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    for (const fused of [false, true]) {
      const graph = parseIR(c.graph);
      if (fused) {
        fuseGraph(graph);
        guardFusionGroups(graph);
      }
      const run = (): RunValue[] => runGraph(graph, c.inputs.map(runValue)).outputs;
      if (c.error !== undefined && fused && c.name === 'getitem_out_of_range') {
        // The fuser reads x.size()[9] as aten::size(x, 9) when x's rank is unknown (as here):
        // still an error, worded as size's.
        expect(run).toThrow(/runGraph: aten::size: Dimension out of range/);
      } else if (c.error !== undefined) {
        expect(run, `${c.name} (fused: ${fused})`).toThrow(c.error);
      } else {
        expect(run(), `${c.name} (fused: ${fused})`).toEqual([expected(c)]);
      }
    }
  });
});

describe('host ops the scripted fixture cannot show', () => {
  it('x.size()[9] of a typed 2-D x keeps the list error after fusion (the rewrite to aten::size(x, 9) is skipped)', () => {
    const g = parseIR(
      'graph(%x : Float(2, 3)):\n  %s : int[] = aten::size(%x)\n  %i : int = prim::Constant[value=9]()\n  %r : int = aten::__getitem__(%s, %i)\n  return (%r)\n',
    );
    fuseGraph(g);
    expect(() => runGraph(g, [HostTensor.fromValues('Float', [2, 3], [1, 2, 3, 4, 5, 6])])).toThrow('aten::__getitem__: list index out of range');
  });

  it('aten::Int of a float: nan, inf and 1e30 are refused (checkDoubleInRange) instead of PyTorch’s undefined INT64_MIN', () => {
    const g = parseIR('graph(%a : float):\n  %c : int = aten::Int(%a)\n  return (%c)\n');
    expect(() => runGraph(g, [NaN])).toThrow('aten::Int: Cannot convert float nan to integer');
    expect(() => runGraph(g, [Infinity])).toThrow('Cannot convert float inf to integer');
    expect(() => runGraph(g, [1e30])).toThrow('Cannot convert float 1000000000000000019884624838656.000000 to integer');
    expect(runGraph(g, [-2.5]).outputs).toEqual([-2]);
  });

  it('a prim::If whose taken block yields no value is an error, not null', () => {
    const g = parseIR(
      [
        'graph(%c : bool):',
        '  %r : int = prim::If(%c)',
        '    block0():',
        '      -> ()',
        '    block1():',
        '      %z : int = prim::Constant[value=1]()',
        '      -> (%z)',
        '  return (%r)',
        '',
      ].join('\n'),
    );
    expect(runGraph(g, [false]).outputs).toEqual([1]);
    expect(() => runGraph(g, [true])).toThrow('runGraph: prim::If: its true block yields 0 values, the node has 1 output');
  });
});
