import { describe, expect, it } from 'vitest';
import { eliminateCommonSubexpression, parseIR } from '../src/index.js';

describe('eliminateCommonSubexpression', () => {
  it('merges nodes with the same kind, inputs and attributes', () => {
    const g = parseIR(`graph(%x : Tensor, %y : Tensor):
  %1 : int = prim::Constant[value=1]()
  %2 : int = prim::Constant[value=1]()
  %3 : int = prim::Constant[value=2]()
  %a : Tensor = aten::add(%x, %y, %1)
  %b : Tensor = aten::add(%x, %y, %1)
  %c : Tensor = aten::add(%y, %x, %1)
  %d : Tensor = aten::mul(%a, %b)
  return (%d, %c)
`);
    expect(eliminateCommonSubexpression(g)).toBe(2);
    expect(g.toString()).toBe(`graph(%x : Tensor,
      %y : Tensor):
  %2 : int = prim::Constant[value=1]()
  %4 : int = prim::Constant[value=2]()
  %a : Tensor = aten::add(%x, %y, %2)
  %c : Tensor = aten::add(%y, %x, %2)
  %d : Tensor = aten::mul(%a, %a)
  return (%d, %c)
`);
  });

  it('does not merge side effects, mutation, nondeterminism, blocks or different types', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %p : float = prim::Constant[value=0.5]()
  %t : bool = prim::Constant[value=1]()
   = prim::Print(%x)
   = prim::Print(%x)
  %1 : Tensor = aten::relu_(%x)
  %2 : Tensor = aten::relu_(%x)
  %3 : Tensor = aten::dropout(%x, %p, %t)
  %4 : Tensor = aten::dropout(%x, %p, %t)
  %5 : Float(2, strides=[1], requires_grad=0, device=cuda:0) = aten::relu(%x)
  %6 : Half(2, strides=[1], requires_grad=0, device=cuda:0) = aten::relu(%x)
  %7 : Tensor = prim::If(%c)
    block0():
      -> (%x)
    block1():
      -> (%x)
  %8 : Tensor = prim::If(%c)
    block0():
      -> (%x)
    block1():
      -> (%x)
  return (%1, %2, %3, %4, %5, %6, %7, %8)
`);
    expect(eliminateCommonSubexpression(g)).toBe(0);
  });

  it('reuses outer nodes inside blocks, never inner nodes outside', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::relu(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %b : Tensor = aten::relu(%x)
      %e : Tensor = aten::exp(%b)
      -> (%e)
    block1():
      %e2 : Tensor = aten::exp(%x)
      -> (%e2)
  %f : Tensor = aten::exp(%x)
  return (%a, %r, %f)
`);
    expect(eliminateCommonSubexpression(g)).toBe(1);
    const inner = g.nodes()[1]?.blocks[0]?.nodes() ?? [];
    expect(inner.map((n) => n.kind)).toEqual(['aten::exp']);
    expect(inner[0]?.input().debugName()).toBe('a');
    expect(g.nodes().map((n) => n.kind)).toEqual(['aten::relu', 'prim::If', 'aten::exp']);
  });
});
