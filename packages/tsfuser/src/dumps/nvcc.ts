// nvcc for the `ptx`, `cubin` and `ptxas_verbose` dumps: the kernel's complete CUDA source (what
// NVRTC compiles on the GPU path) compiled for the target architecture, in a temporary
// directory, as `__tmp_<kernel>.cu` (the name NVRTC gives it, so ptxas's log names it the same).
// Invariant: nvcc is looked up once (NVCC, then PATH, then /usr/local/cuda/bin); when it is absent
// every nvcc dump says so in one line instead of failing.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

let found: string | null | undefined;

/** The nvcc executable, or null when none is installed. */
export function findNvcc(env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  if (found !== undefined) return found;
  const explicit = env['NVCC'];
  const candidates = [
    ...(explicit === undefined || explicit === '' ? [] : [explicit]),
    ...(env['PATH'] ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, 'nvcc')),
    '/usr/local/cuda/bin/nvcc',
  ];
  found = candidates.find((c) => existsSync(c)) ?? null;
  return found;
}

export const NVCC_MISSING = 'nvcc is not installed (set NVCC or put nvcc on PATH); this dump needs it';

/** nvcc could not run or refused the source; the message holds its log. */
export class NvccError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NvccError';
  }
}

export interface NvccResult {
  /** The PTX text or cubin bytes. */
  output: Buffer;
  /** nvcc's and ptxas's messages (the -Xptxas -v log when `verbose`). */
  log: string;
}

/** Compiles `source` with nvcc to PTX or a cubin for `arch`; an NvccError with nvcc's log on failure. */
export function nvccCompile(nvcc: string, source: string, kernelName: string, arch: string, kind: 'ptx' | 'cubin', verbose = false): NvccResult {
  const dir = mkdtempSync(join(tmpdir(), 'tsfuser-dump-'));
  try {
    const file = join(dir, `__tmp_${kernelName}.cu`);
    const out = join(dir, `__tmp_${kernelName}.${kind}`);
    writeFileSync(file, source);
    const args = [`-${kind}`, `-arch=${arch}`, '-std=c++17', '-diag-suppress=177', ...(verbose ? ['-Xptxas', '-v'] : []), file, '-o', out];
    const r = spawnSync(nvcc, args, { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 });
    const log = `${r.stdout}${r.stderr}`.split(`${dir}/`).join('');
    if (r.error !== undefined) throw new NvccError(`nvcc (${nvcc}) could not run: ${r.error.message}`);
    if (r.status !== 0) throw new NvccError(`nvcc ${args.slice(0, -3).join(' ')} failed for ${kernelName} (exit status ${String(r.status)})${log.trim() === '' ? '' : `:\n${log.trimEnd()}`}`);
    return { output: readFileSync(out), log };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
