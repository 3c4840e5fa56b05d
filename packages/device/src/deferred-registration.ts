// DeferredRegistration: registers objects with a FinalizationRegistry late, so that the ones
// released explicitly soon after they were made are never registered at all.
//
// Why: FinalizationRegistry.register costs about 0.5 µs per object on V8 (a weak cell, an entry
// in the unregister-token map, and GC work for every live cell) — for a cached fusion call that
// returns two device tensors, more than the rest of its host path together (issue 38). Yet most
// device tensors are disposed within the synchronous job that made them (a loop of cached calls,
// a pipeline's intermediates). So `add` only remembers the object in a short list, which holds it
// strongly (it cannot be collected unregistered); `flush` registers the listed objects that are
// still live — when an object is added to a full list, and when the event loop next turns (one
// setImmediate per batch, unref'd) — and forgets the rest.
// Invariant: an object given to `add` is, until it is released, either in the list or registered.

/** Objects listed at most before a flush: bounds what the list keeps alive. */
const DEFAULT_CAPACITY = 64;

export class DeferredRegistration<T extends object> {
  private readonly pending: (T | undefined)[];
  private count = 0;
  private scheduled = false;

  /**
   * `register(target)`: called by a flush for each listed object; registers it when it is still
   * live (the caller's registry and held value), does nothing for one already released.
   */
  constructor(
    private readonly register: (target: T) => void,
    private readonly capacity = DEFAULT_CAPACITY,
  ) {
    this.pending = new Array<T | undefined>(capacity);
  }

  /** Objects listed and not yet flushed (tests). */
  get pendingCount(): number {
    return this.count;
  }

  add(target: T): void {
    // A full list is flushed before the new object is listed, never right after: the newest
    // object always gets the rest of the job to be released.
    if (this.count === this.capacity) this.flush();
    this.pending[this.count] = target;
    this.count += 1;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushSoon).unref();
    }
  }

  /** Registers every listed object still live, and empties the list. */
  flush(): void {
    const n = this.count;
    // Emptied first: a register callback that throws leaves no object listed twice.
    this.count = 0;
    for (let i = 0; i < n; i += 1) {
      const target = this.pending[i] as T;
      this.pending[i] = undefined;
      this.register(target);
    }
  }

  private readonly flushSoon = (): void => {
    this.scheduled = false;
    this.flush();
  };
}
