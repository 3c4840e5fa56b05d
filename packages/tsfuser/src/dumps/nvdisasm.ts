// nvdisasm for the `sass` and `sass_to_file` dumps: the cubin nvcc compiles for the target (the
// `cubin` dump's) disassembled, as nvFuser disassembles its kernels' cubins with nvdisasm.
// Invariant: nvdisasm is looked up once (NVDISASM, then beside nvcc, then PATH, then
// /usr/local/cuda/bin); when it is absent every sass dump says so in one line instead of failing.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { NvccError } from './nvcc.js';

let found: string | null | undefined;

/** The nvdisasm executable, or null when none is installed. */
export function findNvdisasm(nvcc: string | null, env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  if (found !== undefined) return found;
  const explicit = env['NVDISASM'];
  const candidates = [
    ...(explicit === undefined || explicit === '' ? [] : [explicit]),
    ...(nvcc === null ? [] : [join(dirname(nvcc), 'nvdisasm')]),
    ...(env['PATH'] ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, 'nvdisasm')),
    '/usr/local/cuda/bin/nvdisasm',
  ];
  found = candidates.find((c) => existsSync(c)) ?? null;
  return found;
}

export const NVDISASM_MISSING = 'nvdisasm is not installed (set NVDISASM or install the CUDA toolkit beside nvcc); this dump needs it';

/** The SASS of a cubin (nvdisasm -c: code sections only); an NvccError with nvdisasm's log on failure. */
export function disassemble(nvdisasm: string, cubin: Uint8Array, kernelName: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsfuser-sass-'));
  try {
    const file = join(dir, `__tmp_${kernelName}.cubin`);
    writeFileSync(file, cubin);
    const r = spawnSync(nvdisasm, ['-c', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.error !== undefined) throw new NvccError(`nvdisasm (${nvdisasm}) could not run: ${r.error.message}`);
    if (r.status !== 0) throw new NvccError(`nvdisasm -c failed for ${kernelName} (exit status ${String(r.status)}): ${r.stderr.trim()}`);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
