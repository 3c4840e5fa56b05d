// Emission of kernel IR `Rng` statements: one call of the Philox helper (runtime/philox.ts) on
// the thread's `NvfRngCache` with subsequence linearIndex / m and component linearIndex % m
// (m = 2 for Double, 4 otherwise: nvFuser's getPhiloxMultiple), its result converted to the
// destination's storage type. Kernels with Rng statements declare the cache at their top.

import type { DataType } from '@tsfuser/fusion-ir';
import { CodegenError } from '../errors.js';
import { printIndex } from '../kernel-ir/index-expr.js';
import type { Stmt } from '../kernel-ir/nodes.js';
import { someStmt } from '../kernel-ir/walk.js';
import { computeType, convertTo, storeAs } from './types.js';

export const RNG_CACHE_DECL = 'NvfRngCache nvf_rng; nvf_rng_cache_init(nvf_rng);';

function helperSuffix(dtype: DataType): string {
  switch (dtype) {
    case 'Float':
      return 'float';
    case 'Double':
      return 'double';
    case 'Half':
      return 'half';
    case 'BFloat16':
      return 'bfloat';
    default:
      throw new CodegenError(`random numbers of dtype ${dtype} are not supported (Float, Double, Half, BFloat16)`);
  }
}

export function rngStatementText(s: Extract<Stmt, { kind: 'Rng' }>): string {
  const multiple = s.dtype === 'Double' ? 2 : 4;
  const linear = `static_cast<long long>(${printIndex(s.linearIndex)})`;
  const words = `nvf_philox_words(nvf_rng, static_cast<long long>(${s.seed.text}), static_cast<long long>(${s.offset.text}), ${linear} / ${multiple})`;
  const params = s.parameters.map((p) => `, ${convertTo(p.text, p.dtype, 'double')}`).join('');
  const call = `nvf_rng_${s.op}_${helperSuffix(s.dtype)}(${words}, static_cast<int>(${linear} % ${multiple})${params})`;
  // The helper returns the RNG dtype's storage type; a buffer of another dtype gets it converted.
  const ctype = computeType(s.dtype);
  const stored = s.out.dtype === s.dtype ? call : storeAs(convertTo(call, s.dtype, ctype), ctype, s.out.dtype);
  return `${s.out.tensor}[${printIndex(s.out.index)}] = ${stored};`;
}

export function usesRng(stmts: readonly Stmt[]): boolean {
  return someStmt(stmts, (s) => s.kind === 'Rng');
}
