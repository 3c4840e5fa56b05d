import { describe, expect, it } from 'vitest';
import { AliasDb, couldMoveBeforeTopologically, moveAfterTopologicallyValid, moveBeforeTopologicallyValid, parseIR, type Graph, type Node } from '../src/index.js';

function named(g: Graph): (name: string) => Node {
  return (name) => {
    const v = g.findValueByDebugName(name);
    if (v === undefined) throw new Error(`no %${name}`);
    return v.node;
  };
}
const order = (g: Graph): string[] => g.nodes().map((n) => n.outputs[0]?.debugName() ?? n.kind);

describe('moveBefore/AfterTopologicallyValid', () => {
  const text = `graph(%x : Tensor, %y : Tensor):
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::exp(%y)
  %c : Tensor = aten::mul(%a, %a)
  %d : Tensor = aten::sigmoid(%b)
  %e : Tensor = aten::add(%c, %d, %x)
  return (%e)
`;

  it('moves an independent node', () => {
    const g = parseIR(text);
    const n = named(g);
    expect(moveBeforeTopologicallyValid(n('d'), n('c'))).toBe(true);
    expect(order(g)).toEqual(['a', 'b', 'd', 'c', 'e']);
    // b's user d comes along: a, c, b, d, e.
    expect(moveAfterTopologicallyValid(n('b'), n('c'))).toBe(true);
    expect(order(g)).toEqual(['a', 'c', 'b', 'd', 'e']);
    expect(moveAfterTopologicallyValid(n('c'), n('e'))).toBe(false);
  });

  it('refuses to move a node above its producer', () => {
    const g = parseIR(text);
    const n = named(g);
    expect(moveBeforeTopologicallyValid(n('c'), n('a'))).toBe(false);
    expect(order(g)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('drags dependencies along when moving upward', () => {
    const g = parseIR(text);
    const n = named(g);
    // d depends on b; moving d before a moves b too.
    expect(moveBeforeTopologicallyValid(n('d'), n('a'))).toBe(true);
    expect(order(g)).toEqual(['b', 'd', 'a', 'c', 'e']);
  });

  it('moves users out of the way when moving downward', () => {
    const g = parseIR(text);
    const n = named(g);
    // a moves after d; its user c follows it past d.
    expect(moveAfterTopologicallyValid(n('a'), n('d'))).toBe(true);
    expect(order(g)).toEqual(['b', 'd', 'a', 'c', 'e']);
    expect(moveAfterTopologicallyValid(n('a'), n('e'))).toBe(false);
  });

  it('treats side effects and in-place ops as barriers', () => {
    const g = parseIR(`graph(%x : Tensor, %y : Tensor):
  %1 : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
   = prim::Print(%y)
  %b : Tensor = aten::exp(%y)
  %m : Tensor = aten::add_(%y, %y, %1)
  %c : Tensor = aten::sigmoid(%x)
  return (%a, %b, %c)
`);
    const n = named(g);
    expect(moveBeforeTopologicallyValid(n('b'), n('a'))).toBe(false);
    expect(moveBeforeTopologicallyValid(n('c'), n('b'))).toBe(false);
    expect(moveAfterTopologicallyValid(n('a'), n('b'))).toBe(false);
    expect(moveBeforeTopologicallyValid(n('m'), n('b'))).toBe(false);
    const [x, y] = g.inputs;
    if (x === undefined || y === undefined) throw new Error('two inputs expected');
    expect(new AliasDb(g).hasWriters(y)).toBe(true);
    expect(new AliasDb(g).hasWriters(x)).toBe(false);
  });

  it('sees uses inside nested blocks', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::relu(%x)
  %r : Tensor = prim::If(%c)
    block0():
      %i : Tensor = aten::exp(%a)
      -> (%i)
    block1():
      -> (%x)
  %b : Tensor = aten::sigmoid(%r)
  %s : Tensor = aten::tanh(%x)
  return (%b, %s)
`);
    const n = named(g);
    // a is used inside the If, which b uses: a cannot pass b.
    expect(moveAfterTopologicallyValid(n('a'), n('b'))).toBe(false);
    expect(moveBeforeTopologicallyValid(n('b'), n('r'))).toBe(false);
    expect(couldMoveBeforeTopologically(n('s'), n('a'))).toBe(true);
    expect(order(g)).toEqual(['a', 'r', 'b', 's']);
    expect(moveBeforeTopologicallyValid(n('s'), n('r'))).toBe(true);
    expect(order(g)).toEqual(['a', 's', 'r', 'b']);
    // Nodes of different blocks are never moved.
    const inner = g.nodes()[2]?.blocks[0]?.firstNode();
    if (!inner) throw new Error('missing inner node');
    expect(moveBeforeTopologicallyValid(inner, n('a'))).toBe(false);
    // a and s are independent, so a may pass s.
    expect(moveAfterTopologicallyValid(n('a'), n('s'))).toBe(true);
    expect(order(g)).toEqual(['s', 'a', 'r', 'b']);
  });

  it('refuses nested blocks that contain barriers', () => {
    const g = parseIR(`graph(%x : Tensor, %c : bool):
  %a : Tensor = aten::relu(%x)
  %r : Tensor = prim::If(%c)
    block0():
       = prim::RaiseException(%x)
      -> (%x)
    block1():
      -> (%x)
  %b : Tensor = aten::sigmoid(%x)
  return (%a, %r, %b)
`);
    const n = named(g);
    expect(moveBeforeTopologicallyValid(n('b'), n('a'))).toBe(false);
  });
});
