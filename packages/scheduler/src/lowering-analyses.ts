// LoweringAnalyses: the analyses of a scheduled fusion that codegen's lowering reads — the exact
// logical map (through slice / pad / cat when the fusion has them), the exact map that does not
// cross them, the reshape index graph towards the reference, and the resize index spaces. The
// scheduler's final step (`scheduledFusion` in scheduler.ts) makes one LoweringAnalyses per
// ScheduledFusion and the scheduled fusion carries it, so lowering builds none of them itself
// (issue 32: "the analyses lowering needs travel with the scheduled fusion").
//
// Each analysis is built on its first read, on the fusion as scheduled (schedule() has returned;
// lowering never mutates the fusion): a greedy kernel reads none, a fusion without resizes has no
// index spaces and one exact map serves as both maps (without resizes they join the same pairs).
// Errors stay where they were: an analysis that cannot be built fails at lowering's read.
//
// Invariant: each analysis is built at most once per LoweringAnalyses (`counts` says how often
// each was built: tests assert one per compiled segment, none more for the dumps after an execute).

import type { Fusion, TensorView } from '@tsfuser/fusion-ir';
import { ExactLogicalMap } from './analysis/domain-map.js';
import { ReshapeIndexGraph } from './pointwise/reshape-index-graph.js';
import { hasResizeExprs, type IndexSpaces } from './pointwise/resize/index-space.js';
import { indexSpacesOf } from './pointwise/resize/prepare.js';

/** How often each analysis was built (not read). */
export interface LoweringAnalysisCounts {
  exactMaps: number;
  reshapeIndexGraphs: number;
  indexSpaces: number;
}

export class LoweringAnalyses {
  readonly counts: LoweringAnalysisCounts = { exactMaps: 0, reshapeIndexGraphs: 0, indexSpaces: 0 };
  /** Whether the fusion has slice / pad / cat (then the maps differ and index spaces exist). */
  readonly hasResize: boolean;
  private plainMap: ExactLogicalMap | null = null;
  private resizeMap: ExactLogicalMap | null = null;
  private reshapeGraph: ReshapeIndexGraph | null = null;
  private spaces: IndexSpaces | null = null;

  constructor(
    readonly fusion: Fusion,
    readonly reference: TensorView,
  ) {
    this.hasResize = hasResizeExprs(fusion);
  }

  /** The exact logical map, through resized pairs when the fusion has slice / pad / cat. */
  exactMap(): ExactLogicalMap {
    if (!this.hasResize) return this.exactMapNoResize();
    if (this.resizeMap === null) {
      this.counts.exactMaps += 1;
      this.resizeMap = new ExactLogicalMap(this.fusion, this.fusion.allTvs(), { throughResize: true });
    }
    return this.resizeMap;
  }

  /** The exact logical map that does not cross slice / pad / cat (the same map without them). */
  exactMapNoResize(): ExactLogicalMap {
    if (this.plainMap === null) {
      this.counts.exactMaps += 1;
      this.plainMap = new ExactLogicalMap(this.fusion);
    }
    return this.plainMap;
  }

  /** Indexing through reshapes towards the reference (pointwise/reshape-index-graph.ts). */
  reshapeIndex(): ReshapeIndexGraph {
    if (this.reshapeGraph === null) {
      this.counts.reshapeIndexGraphs += 1;
      this.reshapeGraph = new ReshapeIndexGraph(this.fusion, this.reference);
    }
    return this.reshapeGraph;
  }

  /** Each tensor's logical dims as reference dims through slice / pad / cat; null without resizes. */
  indexSpaces(): IndexSpaces | null {
    if (!this.hasResize) return null;
    if (this.spaces === null) {
      this.counts.indexSpaces += 1;
      this.spaces = indexSpacesOf(this.fusion, this.reference, { plainMap: this.exactMapNoResize() });
    }
    return this.spaces;
  }
}
