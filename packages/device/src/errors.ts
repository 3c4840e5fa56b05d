// Typed errors of the device layer. CudaError is also thrown from C++: the addon is handed this
// constructor (setErrorClass) and calls it as new CudaError(message, call, code, errorName).

/** A failed CUDA driver or NVRTC call, or a call made when the driver is unavailable (code -1). */
export class CudaError extends Error {
  override readonly name = 'CudaError';
  constructor(
    message: string,
    /** The API call that failed, e.g. "cuLaunchKernel". */
    readonly call: string,
    /** CUresult / nvrtcResult value; -1 when the library could not be loaded. */
    readonly code: number,
    /** CUDA's name for the code, e.g. "CUDA_ERROR_INVALID_VALUE". */
    readonly errorName: string,
  ) {
    super(message);
  }
}

/** NVRTC rejected a CUDA source; `log` holds the compiler's messages. */
export class CompileError extends Error {
  override readonly name = 'CompileError';
  constructor(
    message: string,
    readonly log: string,
    readonly sourceName: string,
    readonly options: readonly string[],
  ) {
    super(message);
  }
}

/** The native addon or the CUDA libraries are missing; `reason` says which and why. */
export class RuntimeUnavailableError extends Error {
  override readonly name = 'RuntimeUnavailableError';
  constructor(readonly reason: string) {
    super(`tsfuser runtime unavailable: ${reason}`);
  }
}

/**
 * A GEMM descriptor cuBLASLt cannot run as given (bad shape, leading dimension, dtype mix,
 * epilogue), found before any native call; `field` names the part of the descriptor at fault
 * (e.g. "b.ld", "epilogue.bias.dtype").
 */
export class GemmError extends Error {
  override readonly name = 'GemmError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`GEMM ${field}: ${detail}`);
  }
}
