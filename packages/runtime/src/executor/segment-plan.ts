// The executor's view of a segmented fusion is the scheduler's plan (SegmentPlan: groups in
// execution order, each a standalone Fusion plus the ORIGINAL fusion's vals feeding and leaving
// it). A fusion one scheduler accepts whole is a single group over itself. Invariant: every
// group input is an original fusion input or an output of an earlier group, so running groups
// in order with intermediates in global memory computes the fusion.

import type { Segmenter } from '@tsfuser/scheduler';

/** The whole fusion as one kernel. */
export const wholeFusion: Segmenter = (fusion) => ({
  groups: [{ fusion, inputs: fusion.inputs, outputs: fusion.outputs, schedulerType: null }],
});
