// The GPU backend slot. The GPU path (scheduler → codegen → runtime: segment, schedule, emit
// CUDA, compile with NVRTC, launch) replaces `gpuBackend()` here; everything above it
// (FusionDefinition.execute, `tsfuser run --backend gpu`, --check) already goes through it.
// Until then it reports itself unavailable, and `auto` falls back to the reference backend.

import { BackendUnavailableError } from '../errors.js';
import type { Backend } from './backend.js';

const REASON = 'the GPU path (scheduler, codegen, runtime) is not connected to tsfuser yet';

export function gpuBackend(): Backend {
  return {
    name: 'gpu',
    availability: () => ({ available: false, reason: REASON }),
    run: () => Promise.reject(new BackendUnavailableError(`gpu backend unavailable: ${REASON}`)),
  };
}
