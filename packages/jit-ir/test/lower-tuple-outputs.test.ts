// lowerTupleOutputs: a traced graph's tuple output becomes the tuple's elements; other graphs are left as they are.
import { describe, expect, it } from 'vitest';
import { lowerTupleOutputs, parseIR, printGraph } from '../src/index.js';

describe('lowerTupleOutputs', () => {
  it('replaces a tuple output by its elements, in order, and removes the tuple', () => {
    const g = parseIR(`graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %a : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::relu(%x)
  %b : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::neg(%x)
  %t : (Tensor, Tensor) = prim::TupleConstruct(%b, %a)
  return (%t)
`);
    expect(lowerTupleOutputs(g)).toBe(true);
    expect(g.outputs.map((v) => v.node.kind)).toEqual(['aten::neg', 'aten::relu']);
    expect(printGraph(g)).not.toContain('TupleConstruct');
  });

  it('leaves a graph without a tuple output unchanged', () => {
    const text = `graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %a : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::relu(%x)
  return (%a)
`;
    const g = parseIR(text);
    expect(lowerTupleOutputs(g)).toBe(false);
    expect(printGraph(g)).toBe(printGraph(parseIR(text)));
  });
});
