// Small TorchScript graphs for tests: `tensorType('Float', 3, 4)` prints a complete CUDA tensor
// type, `graphOf(inputs, body, outputs)` parses a graph from its parts.
import { parseIR, type Graph } from '@tsfuser/jit-ir';

export function tensorType(dtype: string, ...sizes: number[]): string {
  const strides = sizes.map((_, i) => sizes.slice(i + 1).reduce((a, b) => a * b, 1));
  const dims = sizes.length === 0 ? '' : `${sizes.join(', ')}, strides=[${strides.join(', ')}], `;
  return `${dtype}(${dims}requires_grad=0, device=cuda:0)`;
}

/** inputs: `%x : Float(...)` entries; body: node lines; outputs: value names without `%`. */
export function graphOf(inputs: readonly string[], body: string, outputs: readonly string[]): Graph {
  const lines = body
    .trim()
    .split('\n')
    .map((l) => `  ${l.trim()}`)
    .join('\n');
  return parseIR(`graph(${inputs.join(',\n      ')}):\n${lines}\n  return (${outputs.map((o) => `%${o}`).join(', ')})\n`);
}
