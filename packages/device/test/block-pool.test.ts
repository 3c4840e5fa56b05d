// The caching allocator's pool policy (DeviceContext delegates its bookkeeping to BlockPool).
import { describe, expect, it } from 'vitest';
import { BlockPool } from '../src/block-pool.js';

describe('BlockPool', () => {
  it('reuses a block of the same rounded size only', () => {
    const pool = new BlockPool(1000);
    expect(pool.give(0x100n, 512)).toEqual([]);
    expect(pool.take(1024)).toBeUndefined();
    expect(pool.take(512)).toBe(0x100n);
    expect(pool.bytes).toBe(0);
  });

  it('evicts the largest pooled blocks to make room instead of refusing the new one', () => {
    const pool = new BlockPool(3000);
    pool.give(0x1n, 2048);
    pool.give(0x2n, 512);
    // 2048 + 512 + 1024 > 3000: the 2048 block goes back to the driver, the small ones stay.
    expect(pool.give(0x3n, 1024)).toEqual([0x1n]);
    expect(pool.bytes).toBe(1536);
    expect(pool.take(512)).toBe(0x2n);
    expect(pool.take(1024)).toBe(0x3n);
  });

  it('never pools a block larger than the limit', () => {
    const pool = new BlockPool(1000);
    pool.give(0x1n, 512);
    expect(pool.give(0x2n, 4096)).toEqual([0x2n]);
    expect(pool.bytes).toBe(512);
  });

  it('trim after lowering the limit and drain release everything beyond it', () => {
    const pool = new BlockPool(10000);
    pool.give(0x1n, 4096);
    pool.give(0x2n, 512);
    pool.give(0x3n, 512);
    pool.limitBytes = 1024;
    expect(pool.trim()).toEqual([0x1n]);
    expect(pool.bytes).toBe(1024);
    expect(pool.drain().sort()).toEqual([0x2n, 0x3n]);
    expect(pool.bytes).toBe(0);
  });

  it('takeBlock takes exactly that pooled block back, and only a pooled one of that size', () => {
    const pool = new BlockPool(10000);
    pool.give(0x1n, 512);
    pool.give(0x2n, 512);
    pool.give(0x3n, 1024);
    expect(pool.takeBlock(0x1n, 512)).toBe(true);
    expect(pool.bytes).toBe(1536);
    expect(pool.takeBlock(0x1n, 512)).toBe(false); // taken already
    expect(pool.takeBlock(0x3n, 512)).toBe(false); // pooled under another size
    expect(pool.takeBlock(0x9n, 1024)).toBe(false); // never pooled
    expect(pool.take(512)).toBe(0x2n);
    expect(pool.take(512)).toBeUndefined();
    expect(pool.bytes).toBe(1024);
  });

  it('keeps bytes equal to the sum of pooled sizes and within the limit under random traffic', () => {
    const pool = new BlockPool(8192);
    const live = new Map<bigint, number>();
    let next = 1n;
    for (let i = 0; i < 2000; i += 1) {
      if (Math.random() < 0.5 || live.size === 0) {
        const size = 512 * (1 + Math.floor(Math.random() * 8));
        const p = pool.take(size) ?? next++;
        live.set(p, size);
      } else {
        const [p, size] = [...live.entries()][Math.floor(Math.random() * live.size)] as [bigint, number];
        live.delete(p);
        pool.give(p, size);
      }
      expect(pool.bytes).toBeLessThanOrEqual(8192);
    }
  });
});
