// `--save-outputs DIR` of `run` and `fuse`: checks DIR, creates it one component at a time and
// writes each tensor as DIR/out<i>.npy, streamed (writeNpyFile). Every file-system failure is one
// SaveOutputsError naming the path and what is wrong (a file in the way, a dangling symlink, a
// name too long, no permission, out<i>.npy is a directory); '' is a usage error; a directory
// under /proc, /sys or /dev is refused before anything is created (a recursive mkdir there
// spins). Invariant: nothing is created or written outside DIR, and every error is reported
// before a stack trace could be.

import { lstatSync, mkdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { HostTensor } from '@tsfuser/fusion-ir';
import { NpyFileError, writeNpyFile, NPY_CHUNK_BYTES } from '../io/npy-file.js';
import { UsageError } from './console.js';

/** A --save-outputs failure: exit status 1, the message names the path. */
export class SaveOutputsError extends Error {
  override readonly name = 'SaveOutputsError';
}

/** Pseudo file systems where outputs make no sense (and where mkdir -p can spin forever). */
const PSEUDO_FILE_SYSTEMS = ['/proc', '/sys', '/dev'];

const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENAMETOOLONG: 'a name in the path is too long',
  ENOTDIR: 'a component of the path is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EISDIR: 'it is a directory',
  ELOOP: 'too many levels of symbolic links',
  EEXIST: 'it already exists',
  EDQUOT: 'disk quota exceeded',
};

function codeOf(e: unknown): string {
  return e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : 'EIO';
}

function reason(code: string): string {
  return `${REASONS[code] ?? 'file-system error'} (${code})`;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (e) {
    const code = codeOf(e);
    if (code === 'ENOENT') return null;
    throw new SaveOutputsError(`--save-outputs: cannot use ${path}: ${reason(code)}`);
  }
}

/** The real path of the deepest existing ancestor of `path`, joined with the rest. */
function realTarget(path: string): string {
  const exists = (p: string): boolean => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false; // missing, or under a file: makeDirectory names the problem
    }
  };
  let existing = path;
  while (!exists(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    return join(realpathSync(existing), path.slice(existing.length));
  } catch {
    return path;
  }
}

function underPseudoFileSystem(path: string): string | undefined {
  return PSEUDO_FILE_SYSTEMS.find((root) => path === root || path.startsWith(`${root}${sep}`));
}

/** Makes `dir` (absolute) one component at a time, each failure named. */
function makeDirectory(dir: string): void {
  const parts = dir.split(sep).filter((p) => p.length > 0);
  let current: string = sep;
  for (const part of parts) {
    current = join(current, part);
    const st = lstatOrNull(current);
    if (st === null) {
      try {
        mkdirSync(current);
      } catch (e) {
        throw new SaveOutputsError(`--save-outputs: cannot create the directory ${current}: ${reason(codeOf(e))}`);
      }
      continue;
    }
    if (st.isDirectory()) continue;
    if (st.isSymbolicLink()) {
      let target: Stats;
      try {
        target = statSync(current);
      } catch {
        throw new SaveOutputsError(`--save-outputs: ${current} is a dangling symbolic link`);
      }
      if (target.isDirectory()) continue;
    }
    throw new SaveOutputsError(`--save-outputs: ${current} exists and is not a directory${current === dir ? '' : ` (needed for ${dir})`}`);
  }
}

/** Checks `--save-outputs` text and creates the directory; returns its absolute path. */
export function prepareOutputDirectory(text: string, cwd: string): string {
  if (text.trim() === '') throw new UsageError("--save-outputs needs a directory, got ''");
  const dir = resolve(cwd, text);
  const pseudo = underPseudoFileSystem(dir) ?? underPseudoFileSystem(realTarget(dir));
  if (pseudo !== undefined) throw new SaveOutputsError(`--save-outputs: refusing ${dir}: it is under ${pseudo}, not a place for output files`);
  makeDirectory(dir);
  return dir;
}

/** Writes `tensors` (index → tensor; gaps are outputs that are not tensors) as dir/out<i>.npy. */
export function writeOutputFiles(dir: string, tensors: ReadonlyMap<number, HostTensor>, chunkBytes = NPY_CHUNK_BYTES): void {
  for (const [i, t] of tensors) {
    const path = join(dir, `out${i}.npy`);
    const st = lstatOrNull(path);
    if (st?.isDirectory() === true) throw new SaveOutputsError(`--save-outputs: cannot write ${path}: it is a directory`);
    try {
      writeNpyFile(path, t, chunkBytes);
    } catch (e) {
      if (e instanceof NpyFileError) throw new SaveOutputsError(`--save-outputs: cannot write ${path}: ${reason(e.code)}`);
      throw e;
    }
  }
}
