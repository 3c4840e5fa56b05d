// The grouping pass on hand-built statement lists: which pairs of block allreduces may share one
// pass, where the grouped statement goes, and what blocks a move.
import { describe, expect, it } from 'vitest';
import { groupAllreduces } from '../src/lower/group-allreduce.js';
import { iconst, isym, type Stmt, type TensorAccess } from '../src/index.js';

const at = (tensor: string): TensorAccess => ({ kind: 'tensor', tensor, dtype: 'Float', memory: 'Local', index: iconst(0) });
const zero = { kind: 'scalar' as const, text: '0', dtype: 'Float' as const };

function allreduce(out: string, inp: string, pred = 'i0'): Stmt {
  const p = [{ index: isym('threadIdx.x'), extent: isym(pred) }];
  return { kind: 'BlockReduce', out: at(out), in: at(inp), op: 'add', init: zero, accDtype: 'Float', reduceDims: ['TIDx'], readPredicates: p, writePredicates: [], allreduce: true };
}

function scale(out: string, inp: string): Stmt {
  return { kind: 'Compute', out: at(out), op: { family: 'binary', op: 'mul' }, operands: [at(inp), { kind: 'scalar', text: '2', dtype: 'Float' }], computeDtype: 'Float' };
}

const init = (out: string): Stmt => ({ kind: 'ReductionInit', out: at(out), value: zero });

function shape(stmts: readonly Stmt[]): string[] {
  return stmts.map((s) => (s.kind === 'BlockReduce' ? `${s.out.tensor}${s.grouped === undefined ? '' : `+${s.grouped.out.tensor}`}` : s.kind === 'ReductionInit' ? `init ${s.out.tensor}` : s.kind === 'Compute' ? `${s.out.tensor}=` : s.kind));
}

describe('groupAllreduces', () => {
  it('groups two independent allreduces at the first one; statements between stay after it', () => {
    expect(shape(groupAllreduces([allreduce('T1', 'P1'), scale('T5', 'T1'), allreduce('T2', 'P2')]))).toEqual(['T1+T2', 'T5=']);
  });

  it("moves the second's ReductionInit up with it", () => {
    expect(shape(groupAllreduces([allreduce('T1', 'P1'), scale('T5', 'T1'), init('T2'), allreduce('T2', 'P2')]))).toEqual(['init T2', 'T1+T2', 'T5=']);
  });

  it('inside loops too', () => {
    const loop: Stmt = { kind: 'ForLoop', index: 'i3', extent: iconst(4), unroll: false, body: [allreduce('T1', 'P1'), allreduce('T2', 'P2')] };
    const [out] = groupAllreduces([loop]);
    expect(out?.kind === 'ForLoop' ? shape(out.body) : []).toEqual(['T1+T2']);
  });

  it('refuses when the second reads the first, its input is written between, its output is read between, or the predicates differ', () => {
    const cases: Stmt[][] = [
      [allreduce('T1', 'P1'), allreduce('T2', 'T1')],
      [allreduce('T1', 'P1'), scale('P2', 'T1'), allreduce('T2', 'P2')],
      [allreduce('T1', 'P1'), scale('T5', 'T2'), allreduce('T2', 'P2')],
      [allreduce('T1', 'P1'), allreduce('T2', 'P2', 'i1')],
    ];
    for (const c of cases) expect(shape(groupAllreduces(c))).toEqual(shape(c));
  });

  it('pairs greedily: three allreduces give one pair and one single', () => {
    expect(shape(groupAllreduces([allreduce('T1', 'P1'), allreduce('T2', 'P2'), allreduce('T3', 'P3')]))).toEqual(['T1+T2', 'T3']);
  });
});
