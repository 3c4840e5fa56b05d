// Inlining: computeAt / inlineAt / inlineMost set a producer's computeAtPosition (its first k
// loop IDs share the consumers' loops) and the consumers' maxProducerPosition.
//
// Legality of producer position k with respect to one consumer (checked for every consumer):
//   * the producer is not a fusion input (inputs live in global memory; their position stays 0);
//   * none of the producer's first k loop IDs is a reduction (a reduction result is only ready
//     after its loop closes) or vectorized (a vector access is one instruction, not a loop);
//   * each of the first k producer loop IDs is mapped (id-graph.ts, built over just this pair)
//     to a consumer loop ID, at strictly increasing consumer positions; consumer loop IDs skipped
//     in between must be broadcasts the producer lacks; mapped IDs may not carry two different
//     non-serial parallel types, and a vectorized consumer ID is never shared (nvFuser).
// The consumer position of producer position k is (consumer position of the k-th mapped ID)+1.
// Transforms are not replayed here: propagate the reference's transforms first.

import { TransformError } from '../ir/errors.js';
import type { Fusion } from '../ir/fusion.js';
import type { TensorView } from '../ir/tensor-view.js';
import { buildIdGraph } from './id-graph.js';
import { consumersOf, producersOf, siblingsOf } from './logical-domain-map.js';
import { logicalMapBetween, replayStart } from './propagator.js';
import { replayLoopDomain } from './replay.js';

/** Why position `pos` is illegal for producer→consumer, or null; `consumerPos` is filled when legal. */
function checkPairPosition(producer: TensorView, consumer: TensorView, pos: number): { reason: string | null; consumerPos: number } {
  const graph = buildIdGraph([producer, consumer]);
  let j = 0;
  for (let i = 0; i < pos; i += 1) {
    const pid = producer.axis(i);
    while (j < consumer.nDims() && !graph.same(pid, consumer.axis(j))) {
      const skipped = consumer.axis(j);
      const lacksInProducer = skipped.isBroadcast() && !producer.domain.loop.some((p) => graph.same(p, skipped));
      if (!lacksInProducer) {
        return {
          reason: `producer loop ID ${pid.name} (axis ${i}) does not map to consumer loop ID ${skipped.name} (axis ${j}) of T${consumer.name}`,
          consumerPos: 0,
        };
      }
      j += 1;
    }
    if (j >= consumer.nDims()) {
      return { reason: `producer loop ID ${pid.name} (axis ${i}) has no mapped loop ID in T${consumer.name}`, consumerPos: 0 };
    }
    const cid = consumer.axis(j);
    if (cid.parallelType === 'Vectorize') {
      return { reason: `consumer loop ID ${cid.name} (axis ${j}) of T${consumer.name} is vectorized`, consumerPos: 0 };
    }
    if (pid.parallelType !== 'Serial' && cid.parallelType !== 'Serial' && pid.parallelType !== cid.parallelType) {
      return {
        reason: `axis ${i} is ${pid.parallelType} in the producer but ${cid.parallelType} in T${consumer.name}`,
        consumerPos: 0,
      };
    }
    j += 1;
  }
  return { reason: null, consumerPos: j };
}

/** Why `tv` alone cannot have position `pos` (input, reduction, vectorize), or null. */
function checkSelfPosition(tv: TensorView, pos: number): string | null {
  if (tv.isFusionInput()) return 'it is a fusion input (inputs are never inlined)';
  for (let i = 0; i < pos; i += 1) {
    const id = tv.axis(i);
    if (id.isReduction()) return `axis ${i} is a reduction ID (${id.name}); a reduction is inlined only up to its first reduction axis`;
    if (id.parallelType === 'Vectorize') return `axis ${i} is vectorized (${id.name})`;
  }
  return null;
}

/** Recomputes `consumer.maxProducerPosition` from its producers' positions. */
function updateProducerPosition(consumer: TensorView): void {
  let max = 0;
  for (const p of producersOf(consumer)) {
    if (p.computeAtPosition === 0) continue;
    const { reason, consumerPos } = checkPairPosition(p, consumer, p.computeAtPosition);
    if (reason === null) max = Math.max(max, consumerPos);
  }
  consumer.maxProducerPosition = max;
}

function normalizePosition(tv: TensorView, pos: number, op: string): number {
  const n = tv.nDims();
  const p = pos < 0 ? pos + n + 1 : pos;
  if (!Number.isInteger(pos) || p < 0 || p > n) {
    throw new TransformError(`${op} of T${tv.name}: position ${pos} is out of range for ${n} loop dims`);
  }
  return p;
}

/**
 * inlineAt(tv, pos): sets tv's compute-at position (negative counts from the end, -1 = all).
 * Sibling outputs of a multi-output expr (Welford) share one loop nest, so they get the same
 * position, validated for each of them.
 */
export function inlineAt(tv: TensorView, pos: number): TensorView {
  const p = normalizePosition(tv, pos, 'inlineAt');
  const group = [tv, ...siblingsOf(tv)];
  if (p > 0) {
    for (const t of group) {
      const self = checkSelfPosition(t, p);
      if (self !== null) throw new TransformError(`cannot inline T${t.name} at position ${p}: ${self}`);
      for (const c of consumersOf(t)) {
        const { reason } = checkPairPosition(t, c, p);
        if (reason !== null) throw new TransformError(`cannot inline T${t.name} at position ${p} into T${c.name}: ${reason}`);
      }
    }
  }
  for (const t of group) t.computeAtPosition = p;
  for (const t of group) for (const c of consumersOf(t)) updateProducerPosition(c);
  return tv;
}

/**
 * computeAt(producer, consumer, pos): computes `producer` inside the first `pos` loops of its
 * consumer `consumer` (negative pos counts from the end). The producer position is the number of
 * its leading loop IDs mapped into those loops; every consumer loop ID there must be mapped from
 * the producer or be a broadcast the producer lacks. The result is validated against every
 * consumer of the producer, as inlineAt does. With `{replay: true}` the consumer's loop
 * transforms are first replayed onto the (not yet inlined) producer, as nvFuser's computeAt does
 * for a direct producer.
 */
export function computeAt(producer: TensorView, consumer: TensorView, pos: number, opts: { replay?: boolean } = {}): TensorView {
  if (!producersOf(consumer).includes(producer)) {
    throw new TransformError(`computeAt: T${producer.name} is not a producer of T${consumer.name}`);
  }
  const cPos = normalizePosition(consumer, pos, 'computeAt');
  if (opts.replay === true) {
    if (producer.computeAtPosition > 0 || producer.maxProducerPosition > 0) {
      throw new TransformError(`computeAt with replay: T${producer.name} is already inlined; its loops cannot be replayed`);
    }
    // nvFuser's replayPasC: the producer takes the consumer's loop structure first.
    replayLoopDomain(consumer, producer, logicalMapBetween(consumer, producer), replayStart(consumer, producer));
  }
  let p = 0;
  let reached = 0;
  while (p < producer.nDims()) {
    const { reason, consumerPos } = checkPairPosition(producer, consumer, p + 1);
    if (reason !== null || consumerPos > cPos) break;
    p += 1;
    reached = consumerPos;
  }
  const graph = buildIdGraph([producer, consumer]);
  for (let j = reached; j < cPos; j += 1) {
    const cid = consumer.axis(j);
    const lacks = cid.isBroadcast() && !producer.domain.loop.some((id) => graph.same(id, cid));
    if (!lacks) {
      throw new TransformError(
        `computeAt T${producer.name} at position ${pos} of T${consumer.name}: consumer loop ID ${cid.name} (axis ${j}) has no mapped loop ID at producer position ${p}; propagate the consumer's transforms first`,
      );
    }
  }
  return inlineAt(producer, p);
}

/** The largest legal compute-at position of `tv` with respect to itself and all its consumers. */
export function maxInlinePosition(tv: TensorView): number {
  if (tv.isFusionInput()) return 0;
  const consumers = consumersOf(tv);
  let best = 0;
  for (let p = 1; p <= tv.nDims(); p += 1) {
    if (checkSelfPosition(tv, p) !== null) break;
    if (consumers.some((c) => checkPairPosition(tv, c, p).reason !== null)) break;
    best = p;
  }
  return best;
}

/**
 * inlineMost(fusion | tvs): inlines every given tensor (default: all tensors of the fusion) at
 * its largest legal position. Fusion inputs stay at 0; a tensor without consumers (a terminal
 * output) gets the position its own loop allows (up to its first reduction or vectorized ID),
 * as nvFuser prints `ca_pos` on outputs.
 */
export function inlineMost(target: Fusion | readonly TensorView[]): void {
  const given = Array.isArray(target) ? (target as readonly TensorView[]) : (target as Fusion).allTvs();
  const tvs = [...new Set(given.flatMap((tv) => [tv, ...siblingsOf(tv)]))];
  for (const tv of tvs) {
    if (tv.isFusionInput()) continue;
    tv.computeAtPosition = Math.min(maxInlinePosition(tv), ...siblingsOf(tv).map(maxInlinePosition));
  }
  const touched = new Set<TensorView>();
  for (const tv of tvs) for (const c of consumersOf(tv)) touched.add(c);
  for (const c of touched) updateProducerPosition(c);
}

/**
 * inlineSelectedAt(tvs, reference, pos, bestEffort = true) — nvFuser's inline propagator: each of
 * `tvs` is inlined at the position covering the loop IDs it shares (permissive ID graph over the
 * fusion) with the reference's first `pos` loop IDs. Best effort lowers each position to its
 * largest legal one; otherwise an illegal position is a TransformError. Inputs are skipped.
 */
export function inlineSelectedAt(tvs: readonly TensorView[], reference: TensorView, pos: number, bestEffort = true): void {
  const p = normalizePosition(reference, pos, 'inlineSelectedAt');
  const fusion = reference.fusion;
  const all = fusion.allTvs();
  const graph = buildIdGraph(all.includes(reference) ? all : [...all, reference]);
  const refIds = reference.domain.loop.slice(0, p);
  for (const tv of tvs) {
    if (tv.isFusionInput()) continue;
    let want = 0;
    while (want < tv.nDims() && refIds.some((r) => graph.same(r, tv.axis(want)))) want += 1;
    const legal = Math.min(maxInlinePosition(tv), ...siblingsOf(tv).map(maxInlinePosition));
    if (want > legal && !bestEffort) {
      throw new TransformError(
        `inlineSelectedAt: T${tv.name} maps ${want} loop IDs into the first ${p} of T${reference.name}, but only position ${legal} is legal`,
      );
    }
    inlineAt(tv, Math.min(want, legal));
  }
}

/** inlineAllAt(reference, pos, bestEffort = true): inlineSelectedAt over every tensor of the fusion. */
export function inlineAllAt(reference: TensorView, pos: number, bestEffort = true): void {
  inlineSelectedAt(reference.fusion.allTvs(), reference, pos, bestEffort);
}
