import { describe, expect, it } from 'vitest';
import { constantPooling, parseIR } from '../src/index.js';

describe('constantPooling', () => {
  it('hoists constants to the top and merges equal ones', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::relu(%x)
  %1 : int = prim::Constant[value=1]()
  %b : Tensor = aten::add(%a, %a, %1)
  %2 : int = prim::Constant[value=1]()
  %3 : float = prim::Constant[value=1.]()
  %r : Tensor = prim::If(%c)
    block0():
      %4 : int = prim::Constant[value=1]()
      %n : NoneType = prim::Constant()
      %d : Tensor = aten::add(%b, %b, %4)
      -> (%d)
    block1():
      %n2 : NoneType = prim::Constant()
      -> (%b)
  %e : Tensor = aten::add(%r, %b, %2)
  %s : Tensor = aten::mul(%e, %3)
  return (%s)
`);
    expect(constantPooling(g)).toBe(3);
    expect(g.toString()).toBe(`graph(%x : Tensor,
      %c : bool):
  %3 : int = prim::Constant[value=1]()
  %6 : float = prim::Constant[value=1.]()
  %n : NoneType = prim::Constant()
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::add(%a, %a, %3)
  %r : Tensor = prim::If(%c)
    block0():
      %d : Tensor = aten::add(%b, %b, %3)
      -> (%d)
    block1():
      -> (%b)
  %e : Tensor = aten::add(%r, %b, %3)
  %s : Tensor = aten::mul(%e, %6)
  return (%s)
`);
  });

  it('keeps distinct strings, devices and lists apart', () => {
    const g = parseIR(`graph():
  %a : str = prim::Constant[value="cuda:0"]()
  %b : Device = prim::Constant[value="cuda:0"]()
  %c : int[] = prim::Constant[value=[1, 2]]()
  %d : int[] = prim::Constant[value=[1, 2]]()
  %e : int[] = prim::Constant[value=[2, 1]]()
  return (%a, %b, %c, %d, %e)
`);
    expect(constantPooling(g)).toBe(1);
    expect(g.outputs.map((v) => v.debugName())).toEqual(['a', 'b', 'c', 'c', 'e']);
  });
});
