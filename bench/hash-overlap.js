/**
 * What the provenance hash of a JSON text costs the gate's own thread, by where it is taken: `JSON.parse` of the gate
 * benchmark's payload alone; the same parse with the payload's hash handed to the helper thread before it and settled
 * after it, as an admit does (the hand-over, the parse beside the thread's transcoding and hashing, the settle, each
 * timed); and the hash taken on this thread (`hashTextNow`: UTF-8 encoding and sha256). Rounds alternate the three.
 * A check of the gate rows' floor on this machine, not a row of its own.
 *
 *   node bench/hash-overlap.js [bytes …]    (default: 65536 1048576)
 */
import { hashTextLater } from "../runtime/dist/record/hash-thread.js";
import { hashTextNow } from "../runtime/dist/record/provenance.js";
import { issuesPayload } from "./lib/payloads.js";

const given = process.argv.slice(2).map(Number);
const sizes = given.length > 0 ? given : [64 * 1024, 1024 * 1024];

/** Microseconds since an arbitrary start, from the monotonic clock. */
const now = () => Number(process.hrtime.bigint()) / 1000;

/** The median of `values`. */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

// The thread starts on the first hand-over and takes jobs once it is ready.
const { text: warm } = issuesPayload(64 * 1024);
for (let tries = 0; tries < 200; tries++) {
  const pending = hashTextLater(warm);
  if (pending !== undefined) {
    pending.settle();
    break;
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
}

for (const size of sizes) {
  const { text } = issuesPayload(size);
  const calls = Math.max(5, Math.round(2e7 / size));
  const rounds = { alone: [], total: [], handOver: [], parse: [], settle: [], here: [] };
  for (let round = 0; round < 11; round++) {
    let start = now();
    for (let i = 0; i < calls; i++) JSON.parse(text);
    rounds.alone.push((now() - start) / calls);
    let handOver = 0;
    let parse = 0;
    let settle = 0;
    for (let i = 0; i < calls; i++) {
      const a = now();
      const pending = hashTextLater(text);
      const b = now();
      JSON.parse(text);
      const c = now();
      pending?.settle();
      const d = now();
      handOver += b - a;
      parse += c - b;
      settle += d - c;
    }
    rounds.handOver.push(handOver / calls);
    rounds.parse.push(parse / calls);
    rounds.settle.push(settle / calls);
    rounds.total.push((handOver + parse + settle) / calls);
    start = now();
    for (let i = 0; i < calls; i++) {
      JSON.parse(text);
      hashTextNow(text);
    }
    rounds.here.push((now() - start) / calls);
  }
  const alone = median(rounds.alone);
  const line = [
    `JSON.parse alone ${alone.toFixed(0)} µs`,
    `with the hash on the helper thread ${median(rounds.total).toFixed(0)} µs (hand-over ${median(rounds.handOver).toFixed(0)}, parse beside the thread ${median(rounds.parse).toFixed(0)}, settle ${median(rounds.settle).toFixed(0)})`,
    `with the hash on this thread ${median(rounds.here).toFixed(0)} µs`,
  ];
  console.log(`${size} bytes: ${line.join("; ")}`);
}
