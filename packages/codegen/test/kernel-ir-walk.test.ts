// The one statement walker (src/kernel-ir/walk.ts): every statement reached once, in order;
// bottom-up maps see containers with their contents already mapped; list maps rewrite the
// innermost lists first; forEachStmt gives the enclosing loops and walks snapshots.
import { describe, expect, it } from 'vitest';
import { iconst } from '../src/index.js';
import { forEachStmt, mapStmtLists, mapStmts } from '../src/kernel-ir/walk.js';
import type { Stmt } from '../src/kernel-ir/nodes.js';

const alloc = (buffer: string): Stmt => ({ kind: 'Allocate', buffer, dtype: 'Float', size: 1, align: 1 });
const loop = (index: string, body: Stmt[]): Stmt => ({ kind: 'ForLoop', index, extent: iconst(2), unroll: false, body });
const when = (then: Stmt[], otherwise: Stmt[] = []): Stmt => ({ kind: 'IfThenElse', predicates: [], then, else: otherwise });
const names = (stmts: readonly Stmt[]): string[] => {
  const out: string[] = [];
  forEachStmt(stmts, (s) => out.push(s.kind === 'Allocate' ? s.buffer : s.kind === 'ForLoop' ? s.index : s.kind));
  return out;
};

describe('kernel IR walker', () => {
  const tree = [alloc('a'), loop('i', [alloc('b'), when([alloc('c')], [alloc('d')])]), alloc('e')];

  it('forEachStmt: depth first, containers first, with the enclosing loops', () => {
    expect(names(tree)).toEqual(['a', 'i', 'b', 'IfThenElse', 'c', 'd', 'e']);
    const depth = new Map<string, string[]>();
    forEachStmt(tree, (s, loops) => {
      if (s.kind === 'Allocate') depth.set(s.buffer, loops.map((l) => l.index));
    });
    expect(Object.fromEntries(depth)).toEqual({ a: [], b: ['i'], c: ['i'], d: ['i'], e: [] });
  });

  it('forEachStmt walks a snapshot: statements inserted into an enclosing list are not visited', () => {
    const body: Stmt[] = [alloc('x'), loop('i', [alloc('y')])];
    const seen: string[] = [];
    forEachStmt(body, (s) => {
      if (s.kind === 'Allocate') {
        seen.push(s.buffer);
        body.splice(0, 0, alloc(`${s.buffer}_new`));
      }
    });
    expect(seen).toEqual(['x', 'y']);
    expect(body).toHaveLength(4);
  });

  it('mapStmts: bottom-up, a container sees its mapped contents; leaves may become several', () => {
    const mapped = mapStmts(tree, (s): Stmt | Stmt[] => {
      if (s.kind === 'Allocate') return s.buffer === 'c' ? [alloc('c1'), alloc('c2')] : alloc(s.buffer.toUpperCase());
      if (s.kind === 'ForLoop') return { ...s, index: `${s.index}:${names(s.body).join('')}` };
      return s;
    });
    expect(names(mapped)).toEqual(['A', 'i:BIfThenElsec1c2D', 'B', 'IfThenElse', 'c1', 'c2', 'D', 'E']);
  });

  it('mapStmtLists: every list (top, loop body, both branches), innermost first', () => {
    const order: string[] = [];
    const reversed = mapStmtLists(tree, (list) => {
      order.push(names(list.filter((s) => s.kind === 'Allocate')).join(''));
      return [...list].reverse();
    });
    expect(order).toEqual(['c', 'd', 'b', 'ae']);
    expect(names(reversed)).toEqual(['e', 'i', 'IfThenElse', 'c', 'd', 'b', 'a']);
  });
});
