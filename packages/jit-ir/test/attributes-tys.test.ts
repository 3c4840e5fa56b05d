// Type-list attributes (prim::CudaFusionGuard[types=[…]]): parse, print, round trip, equality.
import { describe, expect, it } from 'vitest';
import { parseIR } from '../src/index.js';

const TEXT = `graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0),
      %y : Half(4, strides=[1], requires_grad=0, device=cuda:0)):
  %ok : bool = prim::CudaFusionGuard[types=[Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0), Half(4, strides=[1], requires_grad=0, device=cuda:0)]](%x, %y)
  return (%ok)
`;

describe('type-list attributes', () => {
  it('parse into a tys attribute and print back as PyTorch writes them', () => {
    const g = parseIR(TEXT);
    const guard = g.nodes()[0];
    if (guard === undefined) throw new Error('no node');
    const types = guard.tys('types');
    expect(types.map((t) => t.kind)).toEqual(['Tensor', 'Tensor']);
    expect(g.toString()).toContain('prim::CudaFusionGuard[types=[Float(2, 3, strides=[3, 1], requires_grad=0, device=cuda:0), Half(4, strides=[1], requires_grad=0, device=cuda:0)]](%x, %y)');
    expect(parseIR(g.toString()).toString()).toBe(g.toString());
  });

  it('setTys builds the same attribute', () => {
    const g = parseIR(TEXT);
    const guard = g.nodes()[0];
    if (guard === undefined) throw new Error('no node');
    const before = g.toString();
    guard.setTys('types', [...guard.tys('types')]);
    expect(g.toString()).toBe(before);
  });

  it('numeric lists still parse as numbers', () => {
    const g = parseIR(`graph(%x : Tensor):\n  %1 : int[] = prim::Constant[value=[1, 2]]()\n  return (%1)\n`);
    expect(g.nodes()[0]?.attribute('value')?.kind).toBe('is');
  });
});
