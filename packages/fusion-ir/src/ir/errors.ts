// Typed errors of the Fusion IR. Each carries the context a user needs to find the problem.

/** An op was called with operands it cannot accept (ranks, shapes, dtypes, axes). */
export class FusionIrError extends Error {
  override readonly name: string = 'FusionIrError';
}

/** A scheduling transform was asked for something illegal (split a broadcast, bad reorder …). */
export class TransformError extends FusionIrError {
  override readonly name: string = 'TransformError';
}

/** The reference evaluator was given inputs that do not fit the fusion. */
export class EvaluationError extends FusionIrError {
  override readonly name: string = 'EvaluationError';
}
