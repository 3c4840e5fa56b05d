// The workspace's package order: which workspace packages each package may import.
//
// Invariant: a package only ever uses packages listed above it here, so the package graph has
// no cycle by construction (`validatePackageOrder` checks the table itself).
//
// The order is DESIGN.md's pipeline read as imports rather than data flow: the TorchScript front
// end (jit-ir → graph-fuser) turns each CudaFusionGroup into a Fusion, so graph-fuser builds on
// fusion-ir as well as jit-ir and sits below both; the core (fusion-ir → scheduler → codegen →
// device → runtime) never sees TorchScript; device (CUDA driver, NVRTC, memory, Tensor) knows
// nothing of fusions, and runtime orchestrates codegen and device; tsfuser sits on everything.
// Public packages list exactly the stages they build on (`uses`). Private packages (`private: true`: shared test helpers, GPU
// programs) may use every package above them, and public packages below a private one may use
// it only from tests and other non-production files, as a devDependency.

/** @typedef {{ name: string, private?: boolean, uses?: string[] }} Stage */

/** @type {Stage[]} */
export const PACKAGE_ORDER = [
  { name: '@tsfuser/jit-ir', uses: [] },
  { name: '@tsfuser/fusion-ir', uses: [] },
  { name: '@tsfuser/graph-fuser', uses: ['@tsfuser/jit-ir', '@tsfuser/fusion-ir'] },
  { name: '@tsfuser/scheduler', uses: ['@tsfuser/fusion-ir'] },
  { name: '@tsfuser/test-support', private: true },
  { name: '@tsfuser/codegen', uses: ['@tsfuser/fusion-ir', '@tsfuser/scheduler'] },
  { name: '@tsfuser/device', uses: ['@tsfuser/fusion-ir'] },
  { name: '@tsfuser/runtime', uses: ['@tsfuser/fusion-ir', '@tsfuser/scheduler', '@tsfuser/codegen', '@tsfuser/device'] },
  {
    name: 'tsfuser',
    uses: ['@tsfuser/jit-ir', '@tsfuser/graph-fuser', '@tsfuser/fusion-ir', '@tsfuser/scheduler', '@tsfuser/codegen', '@tsfuser/device', '@tsfuser/runtime'],
  },
  { name: '@tsfuser/gpu-suites', private: true },
];

/**
 * The packages `name` may import, as a Map from package name to the role it may play:
 * 'production' (a dependency, usable from src/) or 'development' (a private package, usable only
 * from tests and other non-production files). Undefined when `name` is not in the order.
 * @param {Stage[]} order
 * @param {string} name
 * @returns {Map<string, 'production' | 'development'> | undefined}
 */
export function allowedImports(order, name) {
  const index = order.findIndex((stage) => stage.name === name);
  if (index < 0) return undefined;
  const stage = /** @type {Stage} */ (order[index]);
  const above = order.slice(0, index);
  const allowed = new Map();
  for (const other of above) {
    if (stage.private) allowed.set(other.name, 'production');
    else if (other.private) allowed.set(other.name, 'development');
    else if ((stage.uses ?? []).includes(other.name)) allowed.set(other.name, 'production');
  }
  return allowed;
}

/**
 * Problems with the table itself: duplicate names, `uses` naming a package that is not above,
 * a private package with `uses`, a public one without.
 * @param {Stage[]} order
 * @returns {string[]}
 */
export function validatePackageOrder(order) {
  const problems = [];
  const seen = new Set();
  for (const stage of order) {
    if (seen.has(stage.name)) problems.push(`${stage.name} is listed twice`);
    if (stage.private && stage.uses !== undefined) problems.push(`${stage.name} is private: it uses every package above it, drop its "uses"`);
    if (!stage.private && stage.uses === undefined) problems.push(`${stage.name} is public and needs a "uses" list`);
    for (const used of stage.uses ?? []) {
      if (!seen.has(used)) problems.push(`${stage.name} uses ${used}, which is not above it in the order`);
    }
    seen.add(stage.name);
  }
  return problems;
}
