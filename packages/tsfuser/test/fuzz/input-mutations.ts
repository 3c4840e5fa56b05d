// Mutation pools and oracles of the execute-inputs fuzzer: scalar values of every kind and which
// dtypes must accept them, --inputs scalar texts and the value each must parse to, and byte-level
// mutations of .npy files (header text, version, lengths, truncation, flipped bytes).

import { Complex, type DataType } from '@tsfuser/fusion-ir';
import type { Random } from '../../src/io/random.js';

export const SCALAR_VALUES: readonly unknown[] = [
  NaN, Infinity, -Infinity, 2.5, -0, 0, 1, 7, -3, 1e30, -1e30, 2 ** 31, -(2 ** 31), 2 ** 53, 2 ** 53 + 2, Number.MAX_VALUE,
  2n ** 53n + 1n, 2n ** 63n, -(2n ** 63n), 2n ** 63n - 1n, 5n, 0n, 1n, true, false, '3', '', null, undefined, {}, [], [1], Symbol('s'),
];

/** Whether a scalar input of `dtype` must accept `v` (the documented rules, restated as an oracle). */
export function scalarValidFor(dtype: DataType, v: unknown): boolean {
  switch (dtype) {
    case 'Bool':
      return typeof v === 'boolean' || v === 0 || v === 1 || v === 0n || v === 1n;
    case 'Int32':
      return (typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) || (typeof v === 'bigint' && v >= -(2n ** 31n) && v < 2n ** 31n);
    case 'Int':
    case 'Index':
      return (typeof v === 'number' && Number.isSafeInteger(v)) || (typeof v === 'bigint' && v >= -(2n ** 63n) && v < 2n ** 63n);
    case 'UInt64':
      return (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) || (typeof v === 'bigint' && v >= 0n && v < 2n ** 64n);
    case 'Half':
    case 'BFloat16':
    case 'Float':
    case 'Double':
    case 'Float8_e4m3fn':
    case 'Float8_e5m2':
    case 'Float8_e8m0fnu':
      return typeof v === 'number' || typeof v === 'bigint';
    case 'ComplexFloat':
    case 'ComplexDouble':
      return typeof v === 'number' || typeof v === 'bigint' || v instanceof Complex;
    default: {
      const unreachable: never = dtype;
      throw new Error(`unknown dtype ${String(unreachable)}`);
    }
  }
}

export const SCALAR_TEXTS: readonly string[] = [
  '1', '-2', '0', '2.5', '.5', '5.', '1e3', '-1e-3', 'inf', '-inf', '+inf', 'nan', 'NaN', 'Inf', 'Infinity', '-Infinity', '0x10', '0b1', '1e999',
  '-1e999', '1e-999', '', ' ', 'true', 'True', 'false', 'False', 'TRUE', 'abc', '1_000', '\u0663', '9223372036854775807', '9223372036854775808',
  '-9223372036854775808', '-9223372036854775809', '2147483647', '2147483648', '9007199254740993', '00012', '+7', '--1', '1,2',
];

const FLOAT_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** The value `text` must parse to for `dtype` (undefined: it must be refused). */
function expectedScalar(dtype: DataType, text: string): number | boolean | bigint | undefined {
  switch (dtype) {
    case 'Bool':
      return ['true', 'True', '1'].includes(text) ? true : ['false', 'False', '0'].includes(text) ? false : undefined;
    case 'Int32':
    case 'Int':
    case 'Index': {
      if (!/^[+-]?\d+$/.test(text)) return undefined;
      const v = BigInt(text);
      const bits = dtype === 'Int32' ? 31n : 63n;
      return v >= -(2n ** bits) && v < 2n ** bits ? v : undefined;
    }
    default: {
      const special: Readonly<Record<string, number>> = { inf: Infinity, '+inf': Infinity, '-inf': -Infinity, nan: NaN };
      if (text in special) return special[text];
      return FLOAT_TEXT.test(text) && Number.isFinite(Number(text)) ? Number(text) : undefined;
    }
  }
}

/** null when `parsed` is what `text` means for `dtype`, else the problem. */
export function scalarTextOracle(dtype: DataType, text: string, parsed: unknown): string | null {
  const expected = expectedScalar(dtype, text);
  if (expected === undefined) return `'${text}' was accepted for a ${dtype} scalar as ${String(parsed)}`;
  const same =
    typeof expected === 'bigint'
      ? (typeof parsed === 'bigint' || typeof parsed === 'number') && BigInt(parsed) === expected
      : Object.is(parsed, expected) || (typeof expected === 'number' && parsed === expected);
  return same ? null : `'${text}' parsed as ${String(parsed)} for a ${dtype} scalar, expected ${String(expected)}`;
}

function replaceHeader(bytes: Uint8Array, from: RegExp, to: string): Uint8Array {
  const headerLen = new DataView(bytes.buffer, bytes.byteOffset).getUint16(8, true);
  const header = new TextDecoder('latin1').decode(bytes.subarray(10, 10 + headerLen));
  const changed = header.replace(from, to);
  const out = new Uint8Array(10 + changed.length + (bytes.length - 10 - headerLen));
  out.set(bytes.subarray(0, 10));
  new DataView(out.buffer).setUint16(8, changed.length, true);
  for (let i = 0; i < changed.length; i += 1) out[10 + i] = changed.charCodeAt(i) & 0xff;
  out.set(bytes.subarray(10 + headerLen), 10 + changed.length);
  return out;
}

/** One random mutation of a version-1 .npy file. */
export function mutateNpy(bytes: Uint8Array, rng: Random): { bytes: Uint8Array; name: string } {
  const shapes = ['()', '(100000, 100000)', '(-1,)', '(2.5,)', '(99999999999999999999,)', '(1e3,)', '(3, 0)', '(1, 1, 1, 1)', '(4294967296,)', '(', ''];
  const descrs = ['|u1', '<i2', '>f4', '<c8', '|b1', '<f8', '<i8', '<u2', '=f4', 'O'];
  switch (rng.int(0, 8)) {
    case 0: {
      const shape = shapes[rng.int(0, shapes.length)] as string;
      return { bytes: replaceHeader(bytes, /\([^)]*\)/, shape), name: `shape ${shape}` };
    }
    case 1: {
      const descr = descrs[rng.int(0, descrs.length)] as string;
      return { bytes: replaceHeader(bytes, /'descr': '[^']*'/, `'descr': '${descr}'`), name: `descr ${descr}` };
    }
    case 2:
      return { bytes: replaceHeader(bytes, /False/, 'True'), name: 'fortran order' };
    case 3: {
      const out = bytes.slice(0, rng.int(0, bytes.length));
      return { bytes: out, name: `truncated to ${out.length}` };
    }
    case 4: {
      const out = bytes.slice();
      out[6] = rng.int(0, 5);
      return { bytes: out, name: `version ${out[6]}` };
    }
    case 5: {
      const out = bytes.slice();
      new DataView(out.buffer).setUint16(8, rng.int(0, 65536), true);
      return { bytes: out, name: 'header length' };
    }
    case 6: {
      const out = bytes.slice();
      for (let k = 0; k < 4; k += 1) out[rng.int(0, out.length)] = rng.int(0, 256);
      return { bytes: out, name: 'flipped bytes' };
    }
    default:
      return { bytes: new Uint8Array([...bytes, ...new Uint8Array(rng.int(1, 9))]), name: 'trailing bytes' };
  }
}
