// C++ spellings of dtypes in generated kernels (no CUDA headers: `long long`, own half types).
// The one table for kernel source text. fusion-ir's `cppTypeName` is a different thing: the
// name nvFuser's IR printer shows (`int64_t`); NVRTC compiles without <cstdint>, so kernel
// source spells Int as `long long` (same 64-bit type on every CUDA target).
import type { DataType } from '@tsfuser/fusion-ir';

/** Storage type of a dtype in memory and locals. */
export function storageType(d: DataType): string {
  switch (d) {
    case 'Bool':
      return 'bool';
    case 'Int32':
      return 'int';
    case 'Int':
      return 'long long';
    case 'Index':
      return 'nvfuser_index_t';
    case 'Half':
      return '__half';
    case 'BFloat16':
      return '__bfloat';
    case 'Float':
      return 'float';
    case 'Double':
      return 'double';
    default: {
      const unreachable: never = d;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

export type ComputeKind = 'float' | 'int' | 'bool';

/** The C type an op of compute dtype `d` works in (half and bfloat16 compute in float). */
export function computeType(d: DataType): string {
  if (d === 'Half' || d === 'BFloat16') return 'float';
  if (d === 'Index') return 'long long';
  return storageType(d);
}

export function computeKind(d: DataType): ComputeKind {
  if (d === 'Half' || d === 'BFloat16' || d === 'Float' || d === 'Double') return 'float';
  if (d === 'Bool') return 'bool';
  return 'int';
}

/** `text` (of dtype `from`) as a value of C type `to`. */
export function convertTo(text: string, from: DataType, to: string): string {
  if (from === 'Half') return to === 'float' ? `__half2float(${text})` : `static_cast<${to}>(__half2float(${text}))`;
  if (from === 'BFloat16') return to === 'float' ? `__bfloat2float(${text})` : `static_cast<${to}>(__bfloat2float(${text}))`;
  if (computeType(from) === to) return text;
  return `static_cast<${to}>(${text})`;
}

/** A value of C type `from` rounded into a variable of dtype `to`. */
export function storeAs(text: string, from: string, to: DataType): string {
  if (to === 'Half') return from === 'float' ? `__float2half(${text})` : `__double2half(static_cast<double>(${text}))`;
  if (to === 'BFloat16') return from === 'float' ? `__float2bfloat(${text})` : `__double2bfloat(static_cast<double>(${text}))`;
  if (storageType(to) === from) return text;
  return `static_cast<${storageType(to)}>(${text})`;
}
