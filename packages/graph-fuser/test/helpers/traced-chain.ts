// A traced-style chain as PyTorch's tracer prints it: aten::add(prev, y, 1) / aten::mul(prev, y)
// alternating over a 4×8 Float, every node also reading the second input y (so y has n users) —
// the shape the chain tests (run-chain-20k, run-chain-linear) fuse and run.

/** The tensor type every value of the chain has. */
export const CHAIN_TENSOR_TYPE = 'Float(4, 8, strides=[8, 1], requires_grad=0, device=cuda:0)';

/** The IR text of an n-node chain. */
export function tracedChain(n: number): string {
  const T = CHAIN_TENSOR_TYPE;
  const lines = [`graph(%x.1 : ${T},`, `      %y.1 : ${T}):`, '  %one : int = prim::Constant[value=1]()'];
  let prev = '%x.1';
  for (let i = 0; i < n; i += 1) {
    const v = `%${i + 10}`;
    lines.push(i % 2 === 0 ? `  ${v} : ${T} = aten::add(${prev}, %y.1, %one) # model.py:${i}:4` : `  ${v} : ${T} = aten::mul(${prev}, %y.1) # model.py:${i}:4`);
    prev = v;
  }
  lines.push(`  return (${prev})`);
  return `${lines.join('\n')}\n`;
}
