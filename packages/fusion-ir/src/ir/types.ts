// Enumerations shared by the Fusion IR: how an IterDomain iterates, which hardware index binds
// it, and where a TensorView lives.

export const ITER_TYPES = ['Iteration', 'Reduction', 'Broadcast', 'Symbolic'] as const;
export type IterType = (typeof ITER_TYPES)[number];

export const PARALLEL_TYPES = [
  'Serial',
  'BIDx',
  'BIDy',
  'BIDz',
  'TIDx',
  'TIDy',
  'TIDz',
  'Vectorize',
  'Unroll',
  'Unswitch',
] as const;
export type ParallelType = (typeof PARALLEL_TYPES)[number];

export const MEMORY_TYPES = ['Global', 'Local', 'Shared'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export function isThreadParallel(p: ParallelType): boolean {
  return p === 'TIDx' || p === 'TIDy' || p === 'TIDz';
}

export function isBlockParallel(p: ParallelType): boolean {
  return p === 'BIDx' || p === 'BIDy' || p === 'BIDz';
}

/** Parallel types that bind a hardware index (and so create no loop). */
export function isParallelIndex(p: ParallelType): boolean {
  return isThreadParallel(p) || isBlockParallel(p);
}

/** The CUDA builtin an index-binding parallel type reads, e.g. `threadIdx.x`. */
export function parallelIndexName(p: ParallelType): string {
  switch (p) {
    case 'BIDx':
      return 'blockIdx.x';
    case 'BIDy':
      return 'blockIdx.y';
    case 'BIDz':
      return 'blockIdx.z';
    case 'TIDx':
      return 'threadIdx.x';
    case 'TIDy':
      return 'threadIdx.y';
    case 'TIDz':
      return 'threadIdx.z';
    case 'Serial':
    case 'Vectorize':
    case 'Unroll':
    case 'Unswitch':
      throw new Error(`parallel type ${p} binds no hardware index`);
    default: {
      const unreachable: never = p;
      throw new Error(`unknown parallel type ${String(unreachable)}`);
    }
  }
}

/** The CUDA builtin giving the extent of an index-binding parallel type, e.g. `blockDim.x`. */
export function parallelDimName(p: ParallelType): string {
  return parallelIndexName(p).replace('blockIdx', 'gridDim').replace('threadIdx', 'blockDim');
}

/** The text nvFuser prints inside an IterDomain name: `S`, `threadIdx.x`, `V`, `U`, `US`. */
export function parallelTypeShortName(p: ParallelType): string {
  switch (p) {
    case 'Serial':
      return 'S';
    case 'Vectorize':
      return 'V';
    case 'Unroll':
      return 'UR';
    case 'Unswitch':
      return 'US';
    default:
      return parallelIndexName(p);
  }
}

export function iterTypePrefix(t: IterType): string {
  switch (t) {
    case 'Iteration':
      return 'i';
    case 'Reduction':
      return 'r';
    case 'Broadcast':
      return 'b';
    case 'Symbolic':
      return '?';
    default: {
      const unreachable: never = t;
      throw new Error(`unknown iter type ${String(unreachable)}`);
    }
  }
}

export function memoryTypeSuffix(m: MemoryType): string {
  switch (m) {
    case 'Global':
      return 'g';
    case 'Local':
      return 'l';
    case 'Shared':
      return 's';
    default: {
      const unreachable: never = m;
      throw new Error(`unknown memory type ${String(unreachable)}`);
    }
  }
}
