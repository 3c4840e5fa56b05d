// Fuzzer of the CLI's path options: random --save-outputs directories (built from pieces that
// have broken the CLI before: a file in the way, a dangling symlink, a 300-character name, '',
// /proc and /sys, '..', odd characters, out0.npy taken by a directory) and random --inputs .npy
// paths (missing, a directory, truncated or extra-key files), through `run` and `fuse` in-process.
// Every case must end with exit 0 (and then the files exist and read back), or exit 1 or 2 with
// exactly one line on stderr and no stack trace. Deterministic from the seed.

import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HostTensor } from '@tsfuser/fusion-ir';
import { readNpyFile } from '../../src/io/npy-file.js';
import { writeNpy } from '../../src/io/npy.js';
import { FIXTURES, runCli } from '../helpers.js';

export interface PathFuzzFailure {
  caseIndex: number;
  argv: string[];
  problem: string;
}

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 2246822519) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)] as T;
}

/** The scratch pieces every case draws from (made once). */
function scratch(root: string): Record<string, string> {
  const file = join(root, 'a-file');
  writeFileSync(file, 'x');
  const dir = join(root, 'a-dir');
  mkdirSync(dir);
  const taken = join(root, 'taken');
  mkdirSync(join(taken, 'out0.npy'), { recursive: true });
  const dangling = join(root, 'dangling');
  symlinkSync(join(root, 'nowhere'), dangling);
  const toProc = join(root, 'to-proc');
  symlinkSync('/proc/self', toProc);
  const good = join(root, 'good.npy');
  writeFileSync(good, writeNpy(HostTensor.fromValues('Float', [2, 4], [1, 2, 3, 4, 5, 6, 7, 8])));
  const truncated = join(root, 'truncated.npy');
  writeFileSync(truncated, writeNpy(HostTensor.fromValues('Float', [2, 4], [1, 2, 3, 4, 5, 6, 7, 8])).subarray(0, 90));
  const extraKey = join(root, 'extra.npy');
  const h = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), 'x': 1, }";
  const padded = h + ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
  const bytes = new Uint8Array(10 + padded.length + 32);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(bytes.buffer).setUint16(8, padded.length, true);
  for (let i = 0; i < padded.length; i += 1) bytes[10 + i] = padded.charCodeAt(i);
  writeFileSync(extraKey, bytes);
  return { root, file, dir, taken, dangling, toProc, good, truncated, extraKey };
}

function saveDir(next: () => number, s: Record<string, string>, i: number): string {
  const base = pick(next, [s['root'], s['file'], s['dir'], s['taken'], s['dangling'], s['toProc'], '/proc', '/sys/kernel', '/dev', '']) as string;
  const tail = pick(next, ['', `fresh${i}`, 'n'.repeat(300), `sub${i}/../up${i}`, `a b${i}`, `ü${i}/x`, `deep${i}/er/still`, '.', `x${i}\\y`]);
  // '' is the usage error; every other path stays under the scratch root or a pseudo file system.
  if (base === '') return '';
  return tail === '' ? base : join(base, tail);
}

function inputPath(next: () => number, s: Record<string, string>): string {
  return pick(next, [s['good'], s['good'], s['truncated'], s['extraKey'], s['dir'], join(s['root'] as string, 'missing.npy'), s['dangling']]) as string;
}

async function checkCase(argv: string[], saveTo: string | undefined): Promise<string | null> {
  const r = await runCli(argv);
  if (/\n\s+at /.test(r.stderr)) return `stack trace: ${r.stderr.slice(0, 300)}`;
  if (r.code === 0) {
    if (saveTo !== undefined) {
      try {
        readNpyFile(join(saveTo, 'out0.npy'));
      } catch (e) {
        return `exit 0 but out0.npy does not read back: ${String(e)}`;
      }
    }
    return null;
  }
  if (r.code !== 1 && r.code !== 2) return `exit ${r.code}`;
  const lines = r.stderr.trim().split('\n');
  if (lines.length !== 1 || lines[0] === '') return `exit ${r.code} with ${lines.length} stderr lines: ${r.stderr.slice(0, 300)}`;
  return null;
}

/** Runs `cases` cases from `seed` in `root` (a fresh temp dir); returns the failures and outcome counts. */
export async function runCliPathsFuzz(seed: number, cases: number, root: string): Promise<{ failures: PathFuzzFailure[]; outcomes: Map<string, number> }> {
  const s = scratch(root);
  const next = random(seed);
  const failures: PathFuzzFailure[] = [];
  const outcomes = new Map<string, number>();
  const readme = join(FIXTURES, 'nvfuser_readme.py');
  const graph = join(FIXTURES, '..', 'torchscript', 'traced', 'bias_gelu.traced.ir');
  for (let i = 0; i < cases; i += 1) {
    const command = next() < 0.5 ? 'run' : 'fuse';
    const argv = command === 'run' ? ['run', readme, '--backend', 'reference'] : ['fuse', graph, '--run', '--backend', 'reference'];
    const save = next() < 0.8 ? saveDir(next, s, i) : undefined;
    if (save !== undefined) argv.push('--save-outputs', save);
    if (command === 'run' && next() < 0.4) argv.push('--inputs', `${inputPath(next, s)},${inputPath(next, s)}`);
    const resolved = save === undefined || save === '' ? undefined : save;
    const problem = await checkCase(argv, resolved);
    const key = `${command}/${problem === null ? 'ok' : 'failed'}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
    if (problem !== null) failures.push({ caseIndex: i, argv, problem });
  }
  return { failures, outcomes };
}
