// The CLI's contract on hostile input (issue 37): a closed stdout ends the CLI quietly, a .mjs
// definition that does not parse is one error with file:line:col, a .py that is not UTF-8 is
// refused with the line and column of the first bad byte (CPython's rule), a bad .npy given to
// `fuse --inputs` exits 1 as `run` does, and --seed is a decimal in [0, 2^32).

import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitQuietlyOnBrokenPipe } from '../src/cli/console.js';
import { firstInvalidUtf8 } from '../src/cli/load-definition.js';
import { FIXTURES, runCli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'tsfuser-contract-'));

function brokenPipe(code: string): { exits: number[]; reports: string[] } {
  const stream = new EventEmitter();
  const exits: number[] = [];
  const reports: string[] = [];
  exitQuietlyOnBrokenPipe(stream, (c) => exits.push(c), (t) => reports.push(t));
  stream.emit('error', Object.assign(new Error(`write ${code}`), { code }));
  return { exits, reports };
}

describe('stdout closed early', () => {
  it('EPIPE exits 0 with nothing printed; another write error is one line and exit 1', () => {
    expect(brokenPipe('EPIPE')).toEqual({ exits: [0], reports: [] });
    expect(brokenPipe('ENOSPC')).toEqual({ exits: [1], reports: ['tsfuser: cannot write the output: write ENOSPC\n'] });
  });
});

describe('definition files that do not parse', () => {
  it('a .mjs with a syntax error: one line with file:line:col, exit 1', async () => {
    const file = join(dir, 'broken.mjs');
    writeFileSync(file, 'export default (fd) => {\n  const x = ;\n};\n');
    const r = await runCli(['run', file, '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tsfuser: ${file}:2:13: SyntaxError: Unexpected token ';'\n`);
  });

  it('a .mjs whose top level throws: one line naming the file, exit 1', async () => {
    const file = join(dir, 'throws.mjs');
    writeFileSync(file, 'undefinedName.x = 1;\nexport default () => {};\n');
    const r = await runCli(['run', file, '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tsfuser: ${file}: ReferenceError: undefinedName is not defined\n`);
  });

  it('a .py with invalid UTF-8 is refused with the position of the first bad byte', async () => {
    const file = join(dir, 'latin1.py');
    writeFileSync(file, Buffer.concat([Buffer.from('# ok é\nx = 1  # caf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const r = await runCli(['run', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`tsfuser: ${file}:2:13: SyntaxError: Non-UTF-8 code starting with '\\xe9' in file ${file} on line 2, but no encoding declared (the source must be UTF-8)\n`);
  });

  it('firstInvalidUtf8 finds truncated, overlong and surrogate sequences', () => {
    expect(firstInvalidUtf8(new TextEncoder().encode('aé€😀'))).toBe(-1);
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xc3]))).toBe(1); // truncated 2-byte
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0xc0, 0x80]))).toBe(1); // overlong NUL
    expect(firstInvalidUtf8(new Uint8Array([0xed, 0xa0, 0x80]))).toBe(0); // a surrogate
    expect(firstInvalidUtf8(new Uint8Array([0x61, 0x62, 0xff]))).toBe(2);
  });
});

describe('--seed', () => {
  it.each(['0x10', '1e3', '-1', '4294967296', '12345678901234567890', ' 7', '1.0'])('%s is refused (decimal, [0, 2^32))', async (seed) => {
    const r = await runCli(['run', join(FIXTURES, 'nvfuser_readme.py'), '--backend', 'reference', '--seed', seed]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`tsfuser: --seed must be a decimal integer in [0, 4294967296), got '${seed}'\n`);
  });

  it('4294967295 is accepted', async () => {
    const r = await runCli(['run', join(FIXTURES, 'nvfuser_readme.py'), '--backend', 'reference', '--seed', '4294967295']);
    expect(r.code).toBe(0);
  });
});

describe('fuse --run --check on host ops PyTorch refuses', () => {
  it.each([
    ['aten::size(x, 9)', '%d : int = prim::Constant[value=9]()\n  %r : int = aten::size(%x, %d)', 'aten::size: Dimension out of range (expected to be in range of [-2, 1], but got 9)'],
    ['floordiv by 0', '%a : int = prim::Constant[value=2]()\n  %b : int = prim::Constant[value=0]()\n  %r : int = aten::floordiv(%a, %b)', 'aten::floordiv: ZeroDivisionError: division by 0'],
  ])('%s: one error, exit 1 (it answered 0 or null and --check passed)', async (_name, body, message) => {
    const file = join(dir, `host-op-${_name.replace(/[^a-z0-9]/gi, '_')}.ir`);
    writeFileSync(file, `graph(%x : Float(2, 3)):\n  ${body}\n  %y : Float(2, 3) = aten::relu(%x)\n  return (%y, %r)\n`);
    const r = await runCli(['fuse', file, '--run', '--check', '--backend', 'reference']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain('check: passed');
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
