// Vitest setup for this package (issue 19's round-trip acceptance over every test definition):
// each FusionDefinition a test file finalizes is printed in nvFuser's python form and imported
// again into a fresh cache; when the test file ends, every definition whose re-import does not
// give the same records (hence the same hash, the cache id's key) fails the file, with the
// printed text. Outputs are compared for the fixtures and the op table in
// python-import-round-trip.test.ts, where inputs are known.
//
// Invariant: the check never changes what a test sees — it runs after finalize, in another
// cache, and never throws inside the test.

import { afterAll, expect } from 'vitest';
import { FusionCache, FusionDefinition, canonicalRecords, hashRecords, importPythonDefinition } from '../src/index.js';

interface RoundTripFailure {
  printed: string;
  problem: string;
}

const checked = new WeakSet<FusionDefinition>();
const failures: RoundTripFailure[] = [];
let definitions = 0;
/** True while a re-import runs: the definitions it finalizes are not checked again. */
let reimporting = false;

function roundTrip(fd: FusionDefinition): void {
  if (checked.has(fd) || reimporting) return;
  checked.add(fd);
  // The importer refuses a definition without outputs on purpose (a pasted repro that lost its
  // add_output lines); the API may still finalize one, which then has nothing to round-trip.
  if (!fd.records().some((r) => r.op === 'addOutput')) return;
  definitions += 1;
  const printed = fd.printPython();
  reimporting = true;
  try {
    const again = importPythonDefinition(printed, { cache: new FusionCache() });
    if (hashRecords(again.records()) !== hashRecords(fd.records())) {
      failures.push({ printed, problem: `records differ after the re-import:\n${canonicalRecords(again.records())}\nvs\n${canonicalRecords(fd.records())}` });
    }
  } catch (error) {
    failures.push({ printed, problem: `re-import failed: ${error instanceof Error ? error.message : String(error)}` });
  } finally {
    reimporting = false;
  }
}

const finalize = FusionDefinition.prototype.finalize;
FusionDefinition.prototype.finalize = function patchedFinalize<T extends FusionDefinition>(this: T): T {
  const wasFinalized = this.isFinalized;
  const result = finalize.call(this) as T;
  if (!wasFinalized) roundTrip(this);
  return result;
};

afterAll(() => {
  expect(failures.map((f) => `${f.problem}\n--- printed:\n${f.printed}`), `print → import round trip of the ${definitions} definitions this file finalized`).toEqual([]);
});
