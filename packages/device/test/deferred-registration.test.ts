// DeferredRegistration (deferred-registration.ts), the late leak-finalizer registration of device
// tensors: objects released before a flush are never registered, live ones are registered at the
// next turn of the event loop or when the list is full, and each exactly once. Also through
// Tensor: a tensor disposed in the job that made it leaves nothing registered, so gc frees nothing
// (the finalizer test covers a leaked one).
import { describe, expect, it } from 'vitest';
import { DeferredRegistration } from '../src/deferred-registration.js';

interface Item {
  id: number;
  released: boolean;
}

function recording(capacity: number): { guard: DeferredRegistration<Item>; registered: number[] } {
  const registered: number[] = [];
  const guard = new DeferredRegistration<Item>((item) => {
    if (!item.released) registered.push(item.id);
  }, capacity);
  return { guard, registered };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('DeferredRegistration', () => {
  it('registers nothing synchronously below capacity, then the live objects at the next turn', async () => {
    const { guard, registered } = recording(8);
    const items = Array.from({ length: 5 }, (_, id) => ({ id, released: false }));
    for (const item of items) guard.add(item);
    (items[1] as Item).released = true;
    (items[3] as Item).released = true;
    expect(registered).toEqual([]);
    expect(guard.pendingCount).toBe(5);
    await nextTurn();
    expect(registered).toEqual([0, 2, 4]);
    expect(guard.pendingCount).toBe(0);
    await nextTurn();
    expect(registered).toEqual([0, 2, 4]);
  });

  it('flushes when the list is full, in a loop that never yields', () => {
    const { guard, registered } = recording(4);
    for (let id = 0; id < 10; id += 1) {
      const item = { id, released: false };
      guard.add(item);
      // Every other object is released right away (a loop disposing its outputs).
      if (id % 2 === 1) item.released = true;
    }
    // Two flushes of 4 ran; ids 8 and 9 are still listed.
    expect(registered).toEqual([0, 2, 4, 6]);
    expect(guard.pendingCount).toBe(2);
    guard.flush();
    expect(registered).toEqual([0, 2, 4, 6, 8]);
  });

  it('a loop of released objects registers none', async () => {
    const { guard, registered } = recording(64);
    for (let id = 0; id < 1000; id += 1) {
      const item = { id, released: false };
      guard.add(item);
      item.released = true;
    }
    await nextTurn();
    expect(registered).toEqual([]);
    expect(guard.pendingCount).toBe(0);
  });
});
