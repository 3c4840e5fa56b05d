import { describe, expect, it } from 'vitest';
import { constantValue, parseIR, printType } from '../src/index.js';
import { F4x8 } from './helpers.js';

describe('parseIR', () => {
  it('reads typed inputs, multi-output nodes and untyped outputs', () => {
    const g = parseIR(`graph(%x.1 : ${F4x8}, %y : Tensor):
  %a : Tensor, %b : Tensor, %c : Tensor = aten::native_layer_norm(%x.1, %s, %y, %y, %eps)
  return (%a)
`.replace('%s, %y, %y, %eps', '%y, %y, %y, %y'));
    const ln = g.nodes()[0];
    expect(ln?.outputs.map((o) => o.debugName())).toEqual(['a', 'b', 'c']);
    expect(g.inputs[0] && printType(g.inputs[0].type)).toBe(F4x8);
    const u = parseIR('graph(%x):\n  %5 = aten::relu(%x)\n  return (%5)\n');
    expect(u.toString()).toBe('graph(%x : Tensor):\n  %1 : Tensor = aten::relu(%x)\n  return (%1)\n');
  });

  it('reads every constant kind', () => {
    const g = parseIR(`graph():
  %i : int = prim::Constant[value=-3]()
  %f : float = prim::Constant[value=1.0000000000000001e-05]()
  %g : float = prim::Constant[value=2]()
  %b : bool = prim::Constant[value=1]()
  %s : str = prim::Constant[value="a\\"b"]()
  %n : NoneType = prim::Constant()
  %l : int[] = prim::Constant[value=[1, 2]]()
  %fl : float[] = prim::Constant[value=[1., 2.5]]()
  %d : Device = prim::Constant[value="cuda:1"]()
  %t : Long(requires_grad=0, device=cpu) = prim::Constant[value={7}]()
  %big : int = prim::Constant[value=9223372036854775807]()
  %u = prim::Constant[value=0.25]()
  return (%i, %f, %g, %b, %s, %n, %l, %fl, %d, %t, %big, %u)
`);
    const values = g.nodes().map(constantValue);
    expect(values).toEqual([
      { kind: 'int', value: -3 },
      { kind: 'float', value: 1e-5 },
      { kind: 'float', value: 2 },
      { kind: 'bool', value: true },
      { kind: 'str', value: 'a"b' },
      { kind: 'none' },
      { kind: 'intList', value: [1, 2] },
      { kind: 'floatList', value: [1, 2.5] },
      { kind: 'device', value: { type: 'cuda', index: 1 } },
      { kind: 'tensor', value: { kind: 'scalar', value: 7, floating: false }, type: g.nodes()[9]?.output().type },
      { kind: 'int', value: 9223372036854775807n },
      { kind: 'float', value: 0.25 },
    ]);
    const text = g.toString();
    expect(text).toContain('%g : float = prim::Constant[value=2.]()');
    expect(text).toContain('%big : int = prim::Constant[value=9223372036854775807]()');
    expect(text).toContain('%u : float = prim::Constant[value=0.25]()');
    expect(parseIR(text).toString()).toBe(text);
  });

  it('reads profiling nodes with type and ivalue attributes', () => {
    const g = parseIR(`graph(%x : Tensor, %d : int[]):
  %1 : Tensor = prim::profile[profiled_type=${F4x8}, seen_none=0](%x)
  %2 : int[] = prim::profile_ivalue[profiled_int_list=[1, 2]](%d)
  return (%1, %2)
`);
    const [p, q] = g.nodes();
    expect(p && printType(p.ty('profiled_type'))).toBe(F4x8);
    expect(p?.i('seen_none')).toBe(0);
    expect(q?.is('profiled_int_list')).toEqual([1, 2]);
  });

  it('reads nested blocks, comments and source ranges', () => {
    const text = `# a comment line
graph(%x : Tensor,
      %c : bool):
  # another comment
  %r : Tensor = prim::If(%c) # model.py:3:4
    block0():
      %a : Tensor = aten::relu(%x) # model.py:4:8
      -> (%a)
    block1():
      -> (%x)
  return (%r)
`;
    const g = parseIR(text);
    const ifNode = g.nodes()[0];
    expect(ifNode?.sourceRange).toBe('model.py:3:4');
    expect(ifNode?.blocks[0]?.firstNode()?.sourceRange).toBe('model.py:4:8');
    expect(g.toString()).toBe(text.split('\n').filter((l) => !l.trim().startsWith('#')).join('\n'));
  });

  it('reads nodes without outputs and empty graphs', () => {
    const g = parseIR('graph(%x : Tensor):\n   = prim::Print(%x)\n  return ()\n');
    expect(g.nodes()[0]?.outputs.length).toBe(0);
    expect(g.toString()).toBe('graph(%x : Tensor):\n   = prim::Print(%x)\n  return ()\n');
    expect(parseIR('graph():\n  return ()').toString()).toBe('graph():\n  return ()\n');
  });

  it('prints floats like PyTorch', () => {
    const g = parseIR(`graph():
  %a : float = prim::Constant[value=0.1]()
  %b : float = prim::Constant[value=-0.]()
  %c : float = prim::Constant[value=1e+20]()
  %d : float = prim::Constant[value=-inf]()
  %e : float = prim::Constant[value=nan]()
  %f : float = prim::Constant[value=123456.789]()
  return (%a, %b, %c, %d, %e, %f)
`);
    const text = g.toString();
    for (const s of ['value=0.10000000000000001]', 'value=-0.]', 'value=1e+20]', 'value=-inf]', 'value=nan]', 'value=123456.789]']) {
      expect(text).toContain(s);
    }
  });
});
