// Typed errors of code generation: what could not be lowered or emitted, naming the tensor.

export class LoweringError extends Error {
  override readonly name: string = 'LoweringError';
}

export class CodegenError extends Error {
  override readonly name: string = 'CodegenError';
}
