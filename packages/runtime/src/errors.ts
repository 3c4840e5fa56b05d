// Typed errors of the orchestration (the device layer's own are @tsfuser/device's errors.ts).

/** Arguments of an execute call that do not fit the fusion (count, kind, dtype, rank, sizes). */
export class ExecutorInputError extends Error {
  override readonly name = 'ExecutorInputError';
}
