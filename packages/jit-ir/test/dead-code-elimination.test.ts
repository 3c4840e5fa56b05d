import { describe, expect, it } from 'vitest';
import { eliminateDeadCode, parseIR } from '../src/index.js';

describe('eliminateDeadCode', () => {
  it('removes unused chains and keeps what outputs need', () => {
    const g = parseIR(`graph(%x : Tensor):
  %1 : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %dead1 : Tensor = aten::exp(%x)
  %dead2 : Tensor = aten::add(%dead1, %a, %1)
  %b : Tensor = aten::sigmoid(%a)
  return (%b)
`);
    expect(eliminateDeadCode(g)).toBe(3);
    expect(g.toString()).toBe(`graph(%x : Tensor):
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::sigmoid(%a)
  return (%b)
`);
  });

  it('keeps side effects and in-place ops', () => {
    const g = parseIR(`graph(%x : Tensor):
  %1 : int = prim::Constant[value=1]()
  %s : str = prim::Constant[value="hi"]()
   = prim::Print(%s, %x)
  %y : Tensor = aten::add_(%x, %x, %1)
  %z : Tensor = aten::relu(%x)
  return (%x)
`);
    expect(eliminateDeadCode(g)).toBe(1);
    expect(g.nodes().map((n) => n.kind)).toEqual(['prim::Constant', 'prim::Constant', 'prim::Print', 'aten::add_']);
  });

  it('keeps nodes with blocks but cleans their bodies', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %r : Tensor = prim::If(%c)
    block0():
      %dead : Tensor = aten::exp(%x)
      %a : Tensor = aten::relu(%x)
      -> (%a)
    block1():
      -> (%x)
  return (%x)
`);
    expect(eliminateDeadCode(g)).toBe(1);
    const ifNode = g.nodes()[0];
    expect(ifNode?.kind).toBe('prim::If');
    expect(ifNode?.blocks[0]?.nodes().map((n) => n.kind)).toEqual(['aten::relu']);
  });
});
