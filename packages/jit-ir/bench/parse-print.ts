// Benchmark (not a test): builds the text of a 10,000-node graph, then times parseIR and
// printGraph. Reports the median of several runs.
// Run: npx esbuild bench/parse-print.ts --bundle --platform=node --format=esm --outfile=/tmp/bench.mjs && node /tmp/bench.mjs

import { parseIR } from '../src/index.js';

const NODE_COUNT = 10_000;
const RUNS = 9;
const T = 'Float(32, 1024, strides=[1024, 1], requires_grad=0, device=cuda:0)';

function buildText(nodes: number): string {
  const lines = [`graph(%x.1 : ${T},`, `      %y.1 : ${T}):`, '  %alpha : int = prim::Constant[value=1]()', '  %half : float = prim::Constant[value=0.5]()'];
  let prev = '%x.1';
  const ops = ['aten::add(PREV, %y.1, %alpha)', 'aten::mul(PREV, %half)', 'aten::relu(PREV)', 'aten::sigmoid(PREV)'];
  for (let i = 0; i < nodes - 2; i++) {
    const op = (ops[i % ops.length] ?? 'aten::relu(PREV)').replace('PREV', prev);
    lines.push(`  %v${i}.1 : ${T} = ${op} # bench.py:${i + 1}:4`);
    prev = `%v${i}.1`;
  }
  lines.push(`  return (${prev})`);
  return lines.join('\n') + '\n';
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

const text = buildText(NODE_COUNT);
const parseTimes: number[] = [];
const printTimes: number[] = [];
let printed = '';
for (let r = 0; r < RUNS; r++) {
  const t0 = performance.now();
  const g = parseIR(text);
  const t1 = performance.now();
  printed = g.toString();
  const t2 = performance.now();
  parseTimes.push(t1 - t0);
  printTimes.push(t2 - t1);
}
if (parseIR(printed).toString() !== printed) throw new Error('round trip failed');
const p = median(parseTimes);
const q = median(printTimes);
console.log(`nodes=${NODE_COUNT} text=${(text.length / 1024).toFixed(0)} KiB runs=${RUNS}`);
console.log(`parse median ${p.toFixed(1)} ms, print median ${q.toFixed(1)} ms, parse+print ${(p + q).toFixed(1)} ms`);
