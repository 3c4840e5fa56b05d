// `--save-outputs DIR` of `run` and `fuse` (one shared module, cli/save-outputs.ts): every
// file-system failure is one line on stderr naming the path, exit 1, and no stack trace; ''
// is a usage error (exit 2); /proc, /sys and /dev are refused before anything is created.
// Each case used to end in a Node stack trace (or, under /proc, a hang).

import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNpyFile } from '../src/io/npy-file.js';
import { FIXTURES, runCli } from './helpers.js';

const README = join(FIXTURES, 'nvfuser_readme.py');
const GRAPH = join(FIXTURES, '..', 'torchscript', 'traced', 'bias_gelu.traced.ir');

function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'tsfuser-save-'));
}

/** Both commands with the same --save-outputs value. */
async function both(saveDir: string): Promise<{ code: number; stdout: string; stderr: string }[]> {
  const run = await runCli(['run', README, '--backend', 'reference', '--save-outputs', saveDir]);
  const fuse = await runCli(['fuse', GRAPH, '--run', '--backend', 'reference', '--save-outputs', saveDir]);
  return [run, fuse];
}

function expectOneError(r: { code: number; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('--save-outputs', () => {
  it('writes out<i>.npy into a fresh nested directory (run and fuse)', async () => {
    const dir = join(scratch(), 'a', 'b');
    const [run, fuse] = await both(dir);
    expect(run?.code).toBe(0);
    expect(fuse?.code).toBe(0);
    const t = readNpyFile(join(dir, 'out0.npy'));
    expect(t.numel).toBeGreaterThan(0);
  });

  it('an existing file where the directory should be', async () => {
    const file = join(scratch(), 'taken');
    writeFileSync(file, 'x');
    for (const r of await both(file)) expectOneError(r, /--save-outputs: .*taken exists and is not a directory/);
  });

  it('a path under a file', async () => {
    const file = join(scratch(), 'plain');
    writeFileSync(file, 'x');
    for (const r of await both(join(file, 'sub'))) expectOneError(r, /--save-outputs: .*plain exists and is not a directory \(needed for .*plain\/sub\)/);
  });

  it('a dangling symbolic link', async () => {
    const link = join(scratch(), 'dangling');
    symlinkSync('/nonexistent/target', link);
    for (const r of await both(link)) expectOneError(r, /--save-outputs: .*dangling is a dangling symbolic link/);
  });

  it('a 300-character name', async () => {
    const long = join(scratch(), 'n'.repeat(300));
    for (const r of await both(long)) expectOneError(r, /--save-outputs: cannot (use|create the directory) .*n{300}: a name in the path is too long \(ENAMETOOLONG\)/);
  });

  it('out0.npy is a directory', async () => {
    const dir = scratch();
    mkdirSync(join(dir, 'out0.npy'));
    for (const r of await both(dir)) expectOneError(r, /--save-outputs: cannot write .*out0\.npy: it is a directory/);
  });

  it("'' is a usage error (it used to write into the cwd and report /out<i>.npy)", async () => {
    for (const r of await both('')) {
      expect(r.code).toBe(2);
      expect(r.stderr).toBe("tsfuser: --save-outputs needs a directory, got ''\n");
    }
  });

  it.each(['/proc/tsfuser-out', '/sys/kernel/x', '/dev/shm/../null/x'])('%s is refused before any mkdir (it hung)', async (path) => {
    for (const r of await both(path)) expectOneError(r, /--save-outputs: refusing .*: it is under \/(proc|sys|dev), not a place for output files/);
    expect(existsSync('/proc/tsfuser-out')).toBe(false);
  });

  it('a symlink into /proc is refused too', async () => {
    const link = join(scratch(), 'to-proc');
    symlinkSync('/proc/self', link);
    for (const r of await both(join(link, 'out'))) expectOneError(r, /refusing .*to-proc\/out: it is under \/proc/);
  });

  it('run checks the directory before running (a bad path costs no run)', async () => {
    const file = join(scratch(), 'f');
    writeFileSync(file, 'x');
    const r = await runCli(['run', README, '--backend', 'reference', '--save-outputs', file]);
    expect(r.stdout).toBe('');
    expectOneError(r, /exists and is not a directory/);
  });
});
