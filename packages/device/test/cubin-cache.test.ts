import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CubinCache, type CubinRequest } from '../src/index.js';

const request: CubinRequest = {
  source: '__global__ void k() {}',
  options: ['-lineinfo'],
  arch: 'sm_90',
  compilerVersion: 'nvrtc-13.0',
};

/** A stand-in for NVRTC that counts its calls and returns a recognisable "cubin". */
function fakeCompiler(): { compile: () => { cubin: Uint8Array; log: string }; calls: () => number } {
  let calls = 0;
  return {
    compile: () => {
      calls += 1;
      return { cubin: new Uint8Array([0x7f, 0x45, 0x4c, 0x46, calls]), log: calls === 1 ? 'warning: x' : '' };
    },
    calls: () => calls,
  };
}

describe('CubinCache', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tsfuser-cubin-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keys by sha256 of source and options, plus arch and compiler version', () => {
    const cache = new CubinCache({ directory: null });
    const key = cache.key(request);
    expect(key).toMatch(/^sm_90-nvrtc-13\.0-[0-9a-f]{64}$/);
    expect(cache.key({ ...request })).toBe(key);
    expect(cache.key({ ...request, source: `${request.source} ` })).not.toBe(key);
    expect(cache.key({ ...request, options: [] })).not.toBe(key);
    expect(cache.key({ ...request, options: ['-line', 'info'] })).not.toBe(cache.key({ ...request, options: ['-lineinfo'] }));
    expect(cache.key({ ...request, arch: 'sm_80' })).not.toBe(key);
    expect(cache.key({ ...request, compilerVersion: 'nvrtc-12.8' })).not.toBe(key);
  });

  it('compiles once, then answers from memory, then from disk in a new process (new cache object)', () => {
    const compiler = fakeCompiler();
    const first = new CubinCache({ directory: dir });
    const miss = first.getOrCompile(request, compiler.compile);
    expect(miss.hit).toBe('miss');
    expect(miss.log).toBe('warning: x');
    expect(first.getOrCompile(request, compiler.compile).hit).toBe('memory');
    expect(compiler.calls()).toBe(1);
    expect(readdirSync(dir).sort()).toEqual([`${miss.key}.cubin`, `${miss.key}.log`]);

    const second = new CubinCache({ directory: dir });
    const fromDisk = second.getOrCompile(request, compiler.compile);
    expect(fromDisk.hit).toBe('disk');
    expect([...fromDisk.cubin]).toEqual([...miss.cubin]);
    expect(fromDisk.log).toBe('warning: x');
    expect(second.getOrCompile(request, compiler.compile).hit).toBe('memory');
    expect(compiler.calls()).toBe(1);
    expect(second.stats).toEqual({ memoryHits: 1, diskHits: 1, misses: 0, writeErrors: 0 });
  });

  it('treats an empty cubin file as a miss and rewrites it', () => {
    const cache = new CubinCache({ directory: dir });
    writeFileSync(join(dir, `${cache.key(request)}.cubin`), new Uint8Array(0));
    const compiler = fakeCompiler();
    expect(cache.getOrCompile(request, compiler.compile).hit).toBe('miss');
    cache.clearMemory();
    expect(cache.getOrCompile(request, compiler.compile).hit).toBe('disk');
  });

  it('still returns the cubin when the directory cannot be written', () => {
    const blocker = join(dir, 'file');
    writeFileSync(blocker, 'not a directory');
    const cache = new CubinCache({ directory: join(blocker, 'sub') });
    const entry = cache.getOrCompile(request, fakeCompiler().compile);
    expect(entry.hit).toBe('miss');
    expect(cache.stats.writeErrors).toBe(1);
  });

  it('uses $TSFUSER_CACHE_DIR, else ~/.cache/tsfuser', () => {
    expect(CubinCache.defaultDirectory({ TSFUSER_CACHE_DIR: '/tmp/x' })).toBe('/tmp/x');
    expect(CubinCache.defaultDirectory({})).toMatch(/\.cache[/\\]tsfuser$/);
  });

  it('keeps a memory-only cache off the disk', () => {
    const cache = new CubinCache({ directory: null });
    const compiler = fakeCompiler();
    cache.getOrCompile(request, compiler.compile);
    cache.clearMemory();
    expect(cache.getOrCompile(request, compiler.compile).hit).toBe('miss');
    expect(compiler.calls()).toBe(2);
  });
});
