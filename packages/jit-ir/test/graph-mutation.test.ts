import { describe, expect, it } from 'vitest';
import { Graph, IRError, IntType, completeTensorType, parseIR, printType, type Node } from '../src/index.js';

function chain(): { g: Graph; a: Node; b: Node; c: Node } {
  const g = new Graph();
  const x = g.addInput('x');
  const a = g.appendNode(g.create('aten::relu', [x]));
  const b = g.appendNode(g.create('aten::sigmoid', [a.output()]));
  const c = g.appendNode(g.create('aten::mul', [a.output(), b.output()]));
  g.registerOutput(c.output());
  return { g, a, b, c };
}

describe('Graph construction', () => {
  it('creates nodes with inputs, outputs and uses', () => {
    const { g, a, b, c } = chain();
    expect(g.nodes()).toEqual([a, b, c]);
    expect(a.output().uses).toEqual([
      { user: b, offset: 0 },
      { user: c, offset: 0 },
    ]);
    expect(c.inputs).toEqual([a.output(), b.output()]);
    expect(g.outputs).toEqual([c.output()]);
    expect(c.output().uses[0]?.user).toBe(g.returnNode);
    expect(a.owningBlock).toBe(g.block);
    expect(a.owningGraph).toBe(g);
  });

  it('prints graphs in the PyTorch format', () => {
    const { g } = chain();
    expect(g.toString()).toBe(
      ['graph(%x : Tensor):', '  %1 : Tensor = aten::relu(%x)', '  %2 : Tensor = aten::sigmoid(%1)', '  %3 : Tensor = aten::mul(%1, %2)', '  return (%3)', ''].join('\n'),
    );
  });

  it('input(), output() demand exactly one', () => {
    const { c } = chain();
    expect(() => c.input()).toThrow(IRError);
    expect(c.input(1)).toBe(c.inputs[1]);
    expect(() => c.input(5)).toThrow(IRError);
  });

  it('insertNode follows the insertion point', () => {
    const { g, b } = chain();
    const k = g.withInsertPoint(b, () => g.insertConstant({ kind: 'int', value: 7 }));
    expect(k.node.next).toBe(b);
    expect(printType(k.type)).toBe('int');
    expect(g.getInsertPoint()).toBe(g.returnNode);
    g.setInsertPoint(g.block);
    const n = g.insertNode(g.create('prim::Print', [k], 0));
    expect(g.block.lastNode()).toBe(n);
  });
});

describe('uses and replacement', () => {
  it('replaceAllUsesWith moves every use', () => {
    const { g, a, b, c } = chain();
    const y = g.addInput('y');
    a.output().replaceAllUsesWith(y);
    expect(a.output().hasUses()).toBe(false);
    expect(b.input()).toBe(y);
    expect(c.input(0)).toBe(y);
    expect(y.uses.map((u) => u.offset)).toEqual([0, 0]);
  });

  it('replaceInput returns the old value and fixes uses', () => {
    const { g, a, b, c } = chain();
    const old = c.replaceInput(1, a.output());
    expect(old).toBe(b.output());
    expect(b.output().hasUses()).toBe(false);
    expect(a.output().uses).toContainEqual({ user: c, offset: 1 });
    expect(g.toString()).toContain('aten::mul(%1, %1)');
  });

  it('addInput/removeInput/insertInput keep offsets right', () => {
    const { g, a, c } = chain();
    const x = g.inputs[0];
    if (x === undefined) throw new Error('no input');
    c.addInput(x);
    c.insertInput(0, x);
    expect(c.inputs.map((v) => v.debugName())).toEqual(['x', '1', '2', 'x']);
    expect(x.uses.filter((u) => u.user === c).map((u) => u.offset).sort()).toEqual([0, 3]);
    c.removeInput(1);
    expect(c.inputs.map((v) => v.debugName())).toEqual(['x', '2', 'x']);
    expect(a.output().uses.some((u) => u.user === c)).toBe(false);
    for (const [i, v] of c.inputs.entries()) expect(v.uses).toContainEqual({ user: c, offset: i });
    c.removeAllInputs();
    expect(x.uses.some((u) => u.user === c)).toBe(false);
  });

  it('replaceAllUsesAfterNodeWith only touches later users', () => {
    const { g, a, b, c } = chain();
    const k = g.withInsertPoint(c, () => g.insertNode(g.create('aten::neg', [a.output()])));
    a.output().replaceAllUsesAfterNodeWith(k, k.output());
    expect(b.input()).toBe(a.output());
    expect(c.input(0)).toBe(k.output());
  });
});

describe('insertion and ordering', () => {
  it('insertBefore/insertAfter/moveBefore/moveAfter keep the list consistent', () => {
    const { g, a, b, c } = chain();
    const n = g.create('prim::Constant', [], 1);
    n.insertAfter(a);
    expect(g.nodes()).toEqual([a, n, b, c]);
    n.moveBefore(a);
    expect(g.nodes()).toEqual([n, a, b, c]);
    n.moveAfter(c);
    expect(g.nodes()).toEqual([a, b, c, n]);
    n.moveAfter(g.paramNode);
    expect(g.nodes()).toEqual([n, a, b, c]);
    expect(() => n.insertBefore(a)).toThrow(IRError);
    expect(n.isBefore(a) && a.isBefore(b) && b.isBefore(c)).toBe(true);
    expect(c.isAfter(n)).toBe(true);
    expect(a.isBefore(a)).toBe(false);
  });

  it('keeps isBefore right after many insertions at one place', () => {
    const { g, a, b } = chain();
    const inserted: Node[] = [];
    for (let i = 0; i < 200; i++) inserted.push(g.create('prim::Constant').insertAfter(a));
    const order = g.nodes();
    for (let i = 0; i + 1 < order.length; i++) {
      const [p, q] = [order[i], order[i + 1]];
      if (p === undefined || q === undefined) throw new Error('unreachable');
      expect(p.isBefore(q)).toBe(true);
    }
    expect(inserted[0]?.isBefore(b)).toBe(true);
  });

  it('isBefore/isAfter work across nested blocks', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::relu(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %i : Tensor = aten::neg(%a)
      -> (%i)
    block1():
      %j : Tensor = aten::exp(%a)
      -> (%j)
  %z : Tensor = aten::sigmoid(%r)
  return (%z)
`);
    const [a, ifNode, z] = g.nodes();
    if (a === undefined || ifNode === undefined || z === undefined) throw new Error('bad graph');
    const i = ifNode.blocks[0]?.firstNode();
    const j = ifNode.blocks[1]?.firstNode();
    if (!i || !j) throw new Error('bad blocks');
    expect(a.isBefore(i)).toBe(true);
    expect(i.isAfter(a)).toBe(true);
    expect(i.isBefore(z)).toBe(true);
    expect(z.isAfter(j)).toBe(true);
    expect(i.isBefore(ifNode)).toBe(false);
    expect(i.findAncestorInBlock(g.block)).toBe(ifNode);
  });

  it('refuses to insert a node into its own block', () => {
    const g = new Graph();
    const c = g.addInput('c');
    const n = g.appendNode(g.create('prim::If', [c], 0));
    const inner = n.addBlock();
    const k = g.create('prim::Constant');
    inner.appendNode(k);
    expect(() => n.moveBefore(k)).toThrow(IRError);
  });
});

describe('destroy', () => {
  it('refuses while outputs are used', () => {
    const { a } = chain();
    expect(() => a.destroy()).toThrow(/still used/);
  });

  it('removes the node and its uses', () => {
    const { g, a, b, c } = chain();
    g.eraseOutput(0);
    c.destroy();
    expect(g.nodes()).toEqual([a, b]);
    expect(a.output().uses).toEqual([{ user: b, offset: 0 }]);
    expect(c.isDestroyed()).toBe(true);
    expect(() => c.addInput(a.output())).toThrow(IRError);
  });

  it('destroys nested blocks', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %r : Tensor = prim::If(%c)
    block0():
      %i : Tensor = aten::neg(%x)
      -> (%i)
    block1():
      -> (%x)
  return (%x)
`);
    const ifNode = g.nodes()[0];
    ifNode?.destroy();
    expect(g.nodes()).toEqual([]);
    expect(g.inputs[0]?.uses.map((u) => u.user.kind)).toEqual(['prim::Return']);
  });
});

describe('outputs, blocks and attributes', () => {
  it('adds and erases outputs', () => {
    const g = new Graph();
    const n = g.appendNode(g.create('prim::TupleUnpack', [g.addInput('t')], 3));
    n.output(1).setType(IntType);
    n.eraseOutput(0);
    expect(n.outputs.map((o) => o.offset)).toEqual([0, 1]);
    expect(printType(n.output(0).type)).toBe('int');
    g.registerOutput(n.output(0));
    expect(() => n.eraseOutput(0)).toThrow(IRError);
  });

  it('builds prim::Loop blocks with params and returns', () => {
    const g = new Graph();
    const trip = g.addInput('n', IntType);
    const x = g.addInput('x');
    const cond = g.insertConstant({ kind: 'bool', value: true });
    const loop = g.appendNode(g.create('prim::Loop', [trip, cond, x], 1));
    const body = loop.addBlock();
    body.addInput('i', IntType);
    const acc = body.addInput('acc');
    const m = body.appendNode(g.create('aten::mul', [acc, acc]));
    body.registerOutput(cond);
    body.registerOutput(m.output());
    g.registerOutput(loop.output());
    const text = g.toString();
    expect(text).toContain('    block0(%i : int, %acc : Tensor):\n      %6 : Tensor = aten::mul(%acc, %acc)\n      -> (%2, %6)');
    expect(parseIR(text).toString()).toBe(text);
  });

  it('stores typed attributes', () => {
    const g = new Graph();
    const n = g.create('prim::profile_ivalue', [], 0);
    n.setI('profiled_int', 3).setIs('profiled_int_list', [1, 2]).setF('f', 0.5).setS('attr::s', 'x').setTy('profiled_type', completeTensorType('Half', [2]));
    expect(n.i('profiled_int')).toBe(3);
    expect(n.is('profiled_int_list')).toEqual([1, 2]);
    expect(n.f('attr::f')).toBe(0.5);
    expect(n.s('s')).toBe('x');
    expect(n.hasAttribute('attr::profiled_type')).toBe(true);
    expect(() => n.f('s')).toThrow(IRError);
    expect(() => n.i('missing')).toThrow(IRError);
    expect(n.toString()).toBe(' = prim::profile_ivalue[profiled_int=3, profiled_int_list=[1, 2], f=0.5, s="x", profiled_type=Half(2, strides=[1], requires_grad=0, device=cuda:0)]()\n');
  });

  it('holds subgraphs for fusion groups and prints them in with-sections', () => {
    const g = new Graph();
    const x = g.addInput('x');
    const group = g.appendNode(g.createWithSubgraph('prim::CudaFusionGroup'));
    group.addInput(x);
    group.addOutput();
    const sub = group.g('attr::Subgraph');
    const sx = sub.addInput('x');
    sub.registerOutput(sub.appendNode(sub.create('aten::relu', [sx])).output());
    g.registerOutput(group.output());
    const text = g.toString();
    expect(text).toBe(
      [
        'graph(%x : Tensor):',
        '  %1 : Tensor = prim::CudaFusionGroup_0(%x)',
        '  return (%1)',
        'with prim::CudaFusionGroup_0 = graph(%x : Tensor):',
        '  %1 : Tensor = aten::relu(%x)',
        '  return (%1)',
        '',
      ].join('\n'),
    );
    const back = parseIR(text);
    expect(back.nodes()[0]?.kind).toBe('prim::CudaFusionGroup');
    expect(back.toString()).toBe(text);
  });
});

describe('cloning and copying', () => {
  it('createClone maps inputs and copies attributes, types and blocks', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %k : int = prim::Constant[value=1]()
  %r : Float(2, strides=[1], requires_grad=0, device=cuda:0) = prim::If(%c)
    block0():
      %i : Tensor = aten::add(%x, %x, %k)
      -> (%i)
    block1():
      -> (%x)
  return (%r)
`);
    const [k, ifNode] = g.nodes();
    if (!k || !ifNode) throw new Error('bad graph');
    const y = g.addInput('y');
    const clone = g.createClone(ifNode, (v) => (v === g.inputs[0] ? y : v));
    g.appendNode(clone);
    g.registerOutput(clone.output());
    expect(clone.blocks.length).toBe(2);
    expect(clone.blocks[0]?.firstNode()?.inputs.map((v) => v.debugName())).toEqual(['y', 'y', 'k']);
    expect(printType(clone.output().type)).toBe(printType(ifNode.output().type));
    // copyMetadata moves the debug name to the clone and renames the original, like PyTorch.
    expect(clone.output().debugName()).toBe('r');
    expect(ifNode.output().debugName()).toBe('r.1');
    const k2 = g.createClone(k, new Map());
    expect(k2.i('value')).toBe(1);
  });

  it('copy() produces an identical, independent graph', () => {
    const text = `graph(%x.1 : Tensor):
  %1 : int = prim::Constant[value=1]()
  %2 : Tensor = aten::add(%x.1, %x.1, %1)
  return (%2)
`;
    const g = parseIR(text);
    const c = g.copy();
    expect(c.toString()).toBe(g.toString());
    c.nodes()[1]?.output().setDebugName('changed');
    expect(g.toString()).toBe(text);
  });
});

describe('debug names', () => {
  it('moves a taken name to the old owner with a .N suffix', () => {
    const g = new Graph();
    const a = g.addInput('x');
    const b = g.addInput();
    b.setDebugName('x');
    expect(b.debugName()).toBe('x');
    expect(a.debugName()).toBe('x.1');
    const c = g.addInput();
    c.setDebugName('x');
    expect(b.debugName()).toBe('x.3'); // PyTorch remembers suffix 2 was handed out for base 'x'
    const d = g.addInput('x.5');
    const e = g.addInput();
    e.setDebugName('x.5');
    expect(d.debugName()).toBe('x.6');
    expect(g.findValueByDebugName('x.5')).toBe(e);
  });

  it('rejects numeric names and clears with the empty string', () => {
    const g = new Graph();
    const a = g.addInput('x');
    expect(() => a.setDebugName('12')).toThrow(IRError);
    a.setDebugName('');
    expect(a.hasDebugName()).toBe(false);
    expect(a.debugName()).toBe(String(a.unique));
  });
});
