// Typed errors of the scheduler package. A SchedulingError names the tensor or input and the
// sizes involved, so a user reading a segmentation explanation can act on it.

export class SchedulingError extends Error {
  override readonly name: string = 'SchedulingError';
}
