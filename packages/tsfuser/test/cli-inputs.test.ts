// `tsfuser run` inputs (issue 21): --inputs scalar text per dtype, bad .npy files, --shape and
// repro-script inputs past the allocation limits — each one line naming the input, exit 1, fast.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HostTensor } from '@tsfuser/fusion-ir';
import { readNpy, writeNpy, NpyError } from '../src/io/npy.js';
import { runCli } from './helpers.js';

const DIR = mkdtempSync(join(tmpdir(), 'tsfuser-cli-inputs-'));

const HEADER = `import torch
from nvfuser import FusionDefinition, DataType
def nvfuser_fusion_id0(fd : FusionDefinition) -> None :
`;

/** T0 Float[-1, -1], S1 Double, S2 Int, S3 Bool: out = T0 * S1 + S2. */
const DEFINITION = `${HEADER}    T0 = fd.define_tensor(shape=[-1, -1], contiguity=[True, True], dtype=DataType.Float, is_cpu=False)
    S1 = fd.define_scalar(None, dtype=DataType.Double)
    S2 = fd.define_scalar(None, dtype=DataType.Int)
    S3 = fd.define_scalar(None, dtype=DataType.Bool)
    T4 = fd.ops.mul(T0, S1)
    T5 = fd.ops.add(T4, S2)
    fd.add_output(T5)
`;

function script(name: string, inputs = ''): string {
  const file = join(DIR, name);
  writeFileSync(file, inputs === '' ? DEFINITION : `${DEFINITION}\ninputs = [\n${inputs}\n]\n`);
  return file;
}

function npy(name: string, bytes: Uint8Array): string {
  const file = join(DIR, name);
  writeFileSync(file, bytes);
  return file;
}

/** A .npy file whose header says `descr` and `shape`, followed by `dataBytes` zero bytes. */
function rawNpy(descr: string, shape: string, dataBytes: number): Uint8Array {
  let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + h.length + dataBytes);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, h.length, true);
  for (let i = 0; i < h.length; i += 1) out[10 + i] = h.charCodeAt(i);
  return out;
}

const x = npy('x.npy', writeNpy(HostTensor.fromValues('Float', [2, 2], [1, 2, 3, 4])));

async function runInputs(inputs: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(['run', script('def.py'), '--backend', 'reference', '--inputs', inputs]);
}

describe('--inputs scalar text', () => {
  it.each([
    ['inf', 'out0: shape [2, 2] Float sum inf first [inf, inf, inf, inf]'],
    ['-inf', 'first [-inf, -inf, -inf, -inf]'],
    ['nan', 'first [nan, nan, nan, nan]'],
    ['2.5e0', 'first [3.50000, 6, 8.50000, 11]'],
  ])('a Double scalar accepts %s', async (text, expected) => {
    const r = await runInputs(`${x},${text},1,true`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.toLowerCase()).toContain(expected.toLowerCase());
  });

  it.each([
    ['Infinity', '1', 'true', /input 1: S1 expects a Double scalar \(a decimal number, inf, -inf or nan\), got 'Infinity'/],
    ['0x10', '1', 'true', /input 1: S1 expects a Double scalar .*got '0x10'/],
    ['1e999', '1', 'true', /input 1: .*got '1e999' \(it overflows a double: write inf\)/],
    ['1', '2.5', 'true', /input 2: S2 expects a Int scalar \(a decimal integer\), got '2.5'/],
    ['1', '9223372036854775808', 'true', /input 2: S2 expects a Int scalar, got the bigint 9223372036854775808n, which is outside the int64 range/],
    ['1', '1', '7', /input 3: S3 expects a Bool scalar \(true, false, True, False, 1 or 0\), got '7'/],
    ['1', '1', 'b.npy', /input 3: S3 expects a Bool scalar, got the file b.npy/],
  ])('refuses %s, %s, %s with exit 1 and the input index', async (s1, s2, s3, message) => {
    const r = await runInputs(`${x},${s1},${s2},${s3}`);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n')).toHaveLength(2);
  });

  it('reads int64 scalars exactly up to 2^63 - 1', async () => {
    const r = await runInputs(`${x},0,9223372036854775807,true`);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('first [9.22337e+18');
  });

  it('a tensor input needs a .npy file', async () => {
    const r = await runInputs('1.5,1,1,true');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("tsfuser: input 0: T0 expects a Float tensor (a .npy file), got '1.5'\n");
  });
});

describe('--inputs .npy files', () => {
  it.each([
    ['a missing file', join(DIR, 'missing.npy'), /input 0: cannot read .*missing.npy \(ENOENT\)/],
    ['bad magic', npy('magic.npy', new Uint8Array(20)), /input 0: .*magic.npy: not a .npy file \(bad magic\)/],
    ['a uint8 array', npy('u8.npy', rawNpy('|u1', '(2, 2)', 4)), /input 0: .*u8.npy: uint8 data \('\|u1'\) is not supported: fusion-ir has no UInt8 dtype/],
    ['a 100000x100000 header', npy('huge.npy', rawNpy('<f4', '(100000, 100000)', 16)), /input 0: .*huge.npy: the array of shape \(100000, 100000\) needs 10000000000 elements \(37.3 GiB of Float\), more than the limit/],
    ['a header past 2^53', npy('past.npy', rawNpy('<f4', '(99999999999999999999,)', 16)), /bad shape entry '99999999999999999999'/],
    ['truncated data', npy('short.npy', rawNpy('<f4', '(1000, 1000)', 16)), /input 0: .*short.npy: truncated data: shape \(1000, 1000\) needs 4000000 bytes, the file has 16/],
    ['a rank mismatch', npy('rank.npy', writeNpy(HostTensor.fromValues('Float', [3], [1, 2, 3]))), /input 0: T0 expects rank 2/],
    ['a dtype mismatch', npy('f64.npy', writeNpy(HostTensor.fromValues('Double', [1, 1], [1]))), /input 0: T0 expects dtype Float, got Double/],
  ])('%s is one error naming the input, exit 1', async (_what, file, message) => {
    const started = Date.now();
    const r = await runInputs(`${file},1,1,true`);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('readNpy refuses uint8 instead of reading it as Bool', () => {
    expect(() => readNpy(rawNpy('|u1', '(2,)', 2))).toThrow(NpyError);
  });
});

describe('allocation limits before any allocation', () => {
  it('--shape past 2^53 is exit 1', async () => {
    const r = await runCli(['run', script('def.py'), '--backend', 'reference', '--shape', '9007199254740993,2']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('tsfuser: --shape: size 9007199254740993 is past 2^53 (no tensor can have it)\n');
  });

  it('--shape with 2^31 elements is refused at once, naming the input and its size', async () => {
    const started = Date.now();
    const r = await runCli(['run', script('def.py'), '--backend', 'reference', '--shape', '65536,32768']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('tsfuser: input 0: T0 of sizes [65536, 32768] needs 2147483648 elements (8.0 GiB of Float), more than the limit of 2147483647 elements per tensor\n');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('TSFUSER_MAX_HOST_BYTES bounds all inputs together', async () => {
    const r = await runCli(['run', script('def.py'), '--backend', 'reference', '--shape', '100,100'], { TSFUSER_MAX_HOST_BYTES: '10000' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tsfuser: input 0: T0 of sizes \[100, 100\] needs 39.1 KiB .*more than the limit of 9.8 KiB for all inputs\n$/);
    const bad = await runCli(['run', script('def.py'), '--shape', '2,2'], { TSFUSER_MAX_HOST_BYTES: 'lots' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("tsfuser: TSFUSER_MAX_HOST_BYTES must be a positive integer, got 'lots'\n");
  });

  it('torch.randn(65536, 65536) in a script is refused at once with the input index', async () => {
    const started = Date.now();
    const r = await runCli(['run', script('big.py', '    torch.randn(65536, 65536, device="cuda"),\n    1.0, 2, True,'), '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('tsfuser: input 0: torch.randn(65536, 65536) needs 4294967296 elements (16.0 GiB of Float), more than the limit of 2147483647 elements per tensor\n');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a script input of the wrong rank is named as such before its size is considered', async () => {
    const r = await runCli(['run', script('rank.py', '    torch.randn(65536, 65536, 4),\n    1.0, 2, True,'), '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tsfuser: input 0: T0 expects rank 2 \(\[-1, -1\]\), got rank 3/);
  });

  it('torch.randn(-1) in a script is file:line:col, exit 1', async () => {
    const file = script('negative.py', '    torch.randn(-1, 2),\n    1.0, 2, True,');
    const r = await runCli(['run', file, '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${file}:13:5: torch.randn: size -1 of dim 0 is negative (PyTorch: "Trying to create tensor with negative dimension")\n`);
  });

  it('script scalars are checked against their dtype', async () => {
    const r = await runCli(['run', script('scalar.py', '    torch.randn(2, 3),\n    1.0, 2.5, True,'), '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('tsfuser: input 2: S2 expects a Int scalar, got the number 2.5, which is not an integer\n');
  });

  it('script inputs with views are checked against the contiguity, and run once contiguous', async () => {
    const view = '    torch.arange(12, dtype=torch.float32).as_strided((3, 4), (4, 1))[:, 1:3]';
    const strided = await runCli(['run', script('views.py', `${view},\n    2.0, 1, True,`), '--backend', 'reference']);
    expect(strided.code).toBe(1);
    expect(strided.stderr).toMatch(/^tsfuser: input 0: T0 dim 0 is declared contiguous.*, so its stride must be 2, got 4 \(strides \[4, 1\]/);
    const dense = await runCli(['run', script('dense.py', `${view}.contiguous(),\n    2.0, 1, True,`), '--backend', 'reference']);
    expect(dense.stderr).toBe('');
    // [[1, 2], [5, 6], [9, 10]] * 2 + 1
    expect(dense.stdout).toContain('out0: shape [3, 2] Float sum 72 first [3, 5, 11, 13');
  });
});
