// C++ spellings of dtypes in generated kernels (no CUDA headers: `long long`, own half types).
// The one table for kernel source text. fusion-ir's `cppTypeName` is a different thing: the
// name nvFuser's IR printer shows (`int64_t`); NVRTC compiles without <cstdint>, so kernel
// source spells Int as `long long` (same 64-bit type on every CUDA target).
import { isFloat8Type, type DataType } from '@tsfuser/fusion-ir';

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
    case 'Float8_e4m3fn':
      return '__e4m3';
    case 'Float8_e5m2':
      return '__e5m2';
    case 'Float8_e8m0fnu':
      return '__e8m0';
    case 'UInt64':
      return 'unsigned long long';
    case 'ComplexFloat':
      return 'nvf_cfloat';
    case 'ComplexDouble':
      return 'nvf_cdouble';
    default: {
      const unreachable: never = d;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

export type ComputeKind = 'float' | 'int' | 'bool' | 'complex';

/** The C type an op of compute dtype `d` works in (half, bfloat16 and fp8 compute in float). */
export function computeType(d: DataType): string {
  if (d === 'Half' || d === 'BFloat16' || isFloat8Type(d)) return 'float';
  if (d === 'Index') return 'long long';
  return storageType(d);
}

export function computeKind(d: DataType): ComputeKind {
  if (d === 'Half' || d === 'BFloat16' || d === 'Float' || d === 'Double' || isFloat8Type(d)) return 'float';
  if (d === 'ComplexFloat' || d === 'ComplexDouble') return 'complex';
  if (d === 'Bool') return 'bool';
  return 'int';
}

/** `text` (of dtype `from`) as a value of C type `to`. */
export function convertTo(text: string, from: DataType, to: string): string {
  if (from === 'ComplexFloat' || from === 'ComplexDouble') {
    if (to === storageType(from)) return text;
    if (isComplexCType(to)) return `nvf_to_${to.slice(4)}(${text})`;
    return `static_cast<${to}>((${text}).re)`; // complex → real keeps the real part, as a cast does
  }
  if (isComplexCType(to)) {
    const real = to === 'nvf_cfloat' ? 'float' : 'double';
    return `nvf_to_${to.slice(4)}(${convertTo(text, from, real)})`;
  }
  if (from === 'Half') return to === 'float' ? `__half2float(${text})` : `static_cast<${to}>(__half2float(${text}))`;
  if (from === 'BFloat16') return to === 'float' ? `__bfloat2float(${text})` : `static_cast<${to}>(__bfloat2float(${text}))`;
  if (isFloat8Type(from)) {
    const decoded = `__${fp8Name(from)}2float(${text})`;
    return to === 'float' ? decoded : `static_cast<${to}>(${decoded})`;
  }
  if (computeType(from) === to) return text;
  return `static_cast<${to}>(${text})`;
}

/** The fp8 name inside the runtime's conversions (`__float2e4m3`, `__e4m32float`): the storage type without `__`. */
function fp8Name(d: 'Float8_e4m3fn' | 'Float8_e5m2' | 'Float8_e8m0fnu'): string {
  return storageType(d).slice(2);
}

/** A value of C type `from` rounded into a variable of dtype `to`. */
export function storeAs(text: string, from: string, to: DataType): string {
  if (isComplexCType(from)) {
    if (storageType(to) === from) return text;
    if (to === 'ComplexFloat' || to === 'ComplexDouble') return `nvf_to_${storageType(to).slice(4)}(${text})`;
    return storeAs(`(${text}).re`, from === 'nvf_cfloat' ? 'float' : 'double', to);
  }
  if (to === 'ComplexFloat' || to === 'ComplexDouble') {
    const value = from === 'float' || from === 'double' ? text : `static_cast<double>(${text})`;
    return `nvf_to_${storageType(to).slice(4)}(${value})`;
  }
  if (to === 'Half') return from === 'float' ? `__float2half(${text})` : `__double2half(static_cast<double>(${text}))`;
  if (to === 'BFloat16') return from === 'float' ? `__float2bfloat(${text})` : `__double2bfloat(static_cast<double>(${text}))`;
  if (isFloat8Type(to)) {
    // double first rounds to float, as PyTorch's conversion (and the reference evaluator) does.
    const name = fp8Name(to);
    return from === 'float' ? `__float2${name}(${text})` : `__float2${name}(static_cast<float>(${text}))`;
  }
  if (storageType(to) === from) return text;
  return `static_cast<${storageType(to)}>(${text})`;
}

/** True for the C types of complex values (the runtime's nvf_cfloat / nvf_cdouble). */
export function isComplexCType(ctype: string): boolean {
  return ctype === 'nvf_cfloat' || ctype === 'nvf_cdouble';
}
