// A definition as a JS module for `tsfuser run`: the default export is a define function that
// receives the FusionDefinition (no imports needed); `inputs` describes the inputs to make.
// Computes gelu(x + bias) with bias broadcast along the rows, in fp32.
export default function geluBias(fd) {
  const x = fd.defineTensor({ shape: [-1, -1], contiguity: [true, true], dtype: 'Float' });
  const bias = fd.defineTensor({ shape: [-1], contiguity: [true], dtype: 'Float' });
  const b = fd.ops.broadcastInDim(bias, x.shape(), [1]);
  const y = fd.ops.add(x, b);
  fd.addOutput(fd.ops.gelu(y, 'tanh'));
  fd.addOutput(fd.ops.sum(y, [0]));
}

export const inputs = [
  { shape: [6, 32], dtype: 'Float' },
  { shape: [32], dtype: 'Float', factory: 'rand' },
];
