// CudaGraph: an executable CUDA graph made by capturing a DeviceContext's stream (the driver's
// cuStreamBeginCapture → cuStreamEndCapture → cuGraphInstantiateWithFlags), replayed with
// cuGraphLaunch on that stream and destroyed with cuGraphExecDestroy / cuGraphDestroy.
// A captured launch reads and writes the device addresses it was captured with, so memory that
// work inside the capture used must outlive the graph: the context defers every free made while
// it captures (DeviceContext.beginCapture) and hands those blocks to the graph, which returns them
// to the pool only when it is destroyed (after the stream finished its last replay).
// Invariant: a live CudaGraph holds its executable graph, its graph and every deferred block;
// destroy() releases all three exactly once.

import type { Handle, NativeAddon } from './native/addon.js';

/** What a graph needs of the context that captured it. */
export interface GraphOwner {
  readonly stream: bigint;
  synchronize(): void;
  free(pointer: bigint): void;
  readonly isDisposed: boolean;
}

export class CudaGraph {
  private destroyed = false;
  /** Replays so far. */
  launches = 0;

  constructor(
    private readonly addon: NativeAddon,
    private readonly owner: GraphOwner,
    private readonly graph: Handle,
    private readonly exec: Handle,
    /** Blocks freed during the capture: the graph's until destroy(). */
    readonly ownedBlocks: readonly bigint[],
  ) {}

  get isDestroyed(): boolean {
    return this.destroyed;
  }

  /** Enqueues the whole graph on the capturing context's stream. */
  launch(): void {
    if (this.destroyed) throw new Error('CudaGraph: launched after destroy()');
    this.addon.graphLaunch(this.exec, this.owner.stream);
    this.launches += 1;
  }

  /** Waits for the stream (a replay may still read the blocks), then frees graph and blocks. */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    if (this.owner.isDisposed) return; // the context's release reclaimed everything
    this.owner.synchronize();
    this.addon.graphExecDestroy(this.exec);
    this.addon.graphDestroy(this.graph);
    for (const p of this.ownedBlocks) this.owner.free(p);
  }
}
