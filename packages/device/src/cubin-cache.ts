// CubinCache: compiled cubins kept in memory and on disk, so a process (or the next one)
// skips NVRTC for a kernel it has compiled before.
//
// Key: `${arch}-${compilerVersion}-${sha256(source, options)}`. Files live in
// $TSFUSER_CACHE_DIR or ~/.cache/tsfuser, as <key>.cubin (+ <key>.log when NVRTC had
// something to say). Writes go to a temporary file renamed into place, so concurrent
// processes never read a half-written cubin; an unreadable or empty file counts as a miss.

import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface CubinRequest {
  source: string;
  /** NVRTC options other than the architecture. */
  options: readonly string[];
  arch: string;
  /** Identifies the compiler, e.g. "nvrtc-13.0"; a new compiler never sees old cubins. */
  compilerVersion: string;
}

export interface CubinEntry {
  key: string;
  cubin: Uint8Array;
  log: string;
  hit: 'memory' | 'disk' | 'miss';
  /** Milliseconds spent in getOrCompile (lookup, plus compile and store on a miss). */
  ms: number;
}

export interface CubinCacheStats {
  memoryHits: number;
  diskHits: number;
  misses: number;
  /** Disk writes that failed (the cubin was still returned). */
  writeErrors: number;
}

export interface CubinCacheOptions {
  /** Disk directory; default CubinCache.defaultDirectory(). `null` keeps the cache in memory only. */
  directory?: string | null;
}

export class CubinCache {
  readonly directory: string | null;
  readonly stats: CubinCacheStats = { memoryHits: 0, diskHits: 0, misses: 0, writeErrors: 0 };
  private readonly memory = new Map<string, { cubin: Uint8Array; log: string }>();

  constructor(options: CubinCacheOptions = {}) {
    this.directory = options.directory === undefined ? CubinCache.defaultDirectory() : options.directory;
  }

  /** $TSFUSER_CACHE_DIR, else ~/.cache/tsfuser. */
  static defaultDirectory(env: NodeJS.ProcessEnv = process.env): string {
    const explicit = env.TSFUSER_CACHE_DIR;
    return explicit !== undefined && explicit !== '' ? explicit : join(homedir(), '.cache', 'tsfuser');
  }

  key(request: CubinRequest): string {
    const hash = createHash('sha256');
    hash.update(request.source);
    for (const option of request.options) hash.update(`\0${option}`);
    const safe = (text: string): string => text.replace(/[^A-Za-z0-9._-]/g, '_');
    return `${safe(request.arch)}-${safe(request.compilerVersion)}-${hash.digest('hex')}`;
  }

  getOrCompile(request: CubinRequest, compile: () => { cubin: Uint8Array; log: string }): CubinEntry {
    const start = performance.now();
    const key = this.key(request);
    const inMemory = this.memory.get(key);
    if (inMemory !== undefined) {
      this.stats.memoryHits += 1;
      return { key, ...inMemory, hit: 'memory', ms: performance.now() - start };
    }
    const onDisk = this.readDisk(key);
    if (onDisk !== undefined) {
      this.stats.diskHits += 1;
      this.memory.set(key, onDisk);
      return { key, ...onDisk, hit: 'disk', ms: performance.now() - start };
    }
    this.stats.misses += 1;
    const compiled = compile();
    const entry = { cubin: compiled.cubin, log: compiled.log };
    this.memory.set(key, entry);
    this.writeDisk(key, entry);
    return { key, ...entry, hit: 'miss', ms: performance.now() - start };
  }

  /** Forgets the in-memory layer (the disk layer stays). */
  clearMemory(): void {
    this.memory.clear();
  }

  private readDisk(key: string): { cubin: Uint8Array; log: string } | undefined {
    if (this.directory === null) return undefined;
    try {
      const bytes = readFileSync(join(this.directory, `${key}.cubin`));
      if (bytes.length === 0) return undefined;
      let log = '';
      try {
        log = readFileSync(join(this.directory, `${key}.log`), 'utf8');
      } catch {
        // no log file: NVRTC printed nothing
      }
      return { cubin: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), log };
    } catch {
      return undefined;
    }
  }

  private writeDisk(key: string, entry: { cubin: Uint8Array; log: string }): void {
    if (this.directory === null) return;
    try {
      mkdirSync(this.directory, { recursive: true });
      if (entry.log !== '') atomicWrite(join(this.directory, `${key}.log`), entry.log);
      atomicWrite(join(this.directory, `${key}.cubin`), entry.cubin);
    } catch {
      this.stats.writeErrors += 1;
    }
  }
}

function atomicWrite(path: string, data: Uint8Array | string): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
