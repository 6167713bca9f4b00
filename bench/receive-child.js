/**
 * One receive run in a fresh process (started with --expose-gc):
 * `node --expose-gc bench/receive-child.js <compiled adapter module> gate|drain [read-ahead chunks]`.
 *
 * A web `ReadableStream` offers 1 GiB in 64 KiB chunks, each a fresh allocation, so anything a reader keeps shows
 * up as memory. The stream reads ahead as many chunks as asked (default none: a chunk is produced only when read,
 * so the bytes handed out are the bytes the reader read; the web default is one chunk ahead). `gate` admits it against a 1 MiB ceiling; `drain` reads it all, counting and keeping nothing, which
 * is the least any reader without a ceiling pays. Prints one JSON line: bytes the stream handed out, the outcome,
 * the time, and memory growth over a collected baseline (peak resident set, and peak heap plus array buffers
 * sampled at every pull).
 */
import { pathToFileURL } from "node:url";

const [adapterModule, mode, readAhead = "0"] = process.argv.slice(2);
const STREAM_BYTES = 1024 ** 3;
const CHUNK = 64 * 1024;
const CEILING = 1024 * 1024;

const { listIssues } = await import(pathToFileURL(adapterModule).href);
const { defineTool } = await import("@toolgate/runtime");
const gate = defineTool({ ...listIssues.spec, limits: { ...listIssues.spec.limits, maxBytes: CEILING } });

const heapNow = () => {
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.arrayBuffers };
};
let pulled = 0;
let pulls = 0;
let peakHeap = 0;
const stream = new ReadableStream(
  {
    pull(controller) {
      if (pulled >= STREAM_BYTES) {
        controller.close();
        return;
      }
      const chunk = new Uint8Array(CHUNK).fill(0x20);
      if (pulled === 0) chunk.set(new TextEncoder().encode('{"totalCount":1,"issues":['));
      pulled += CHUNK;
      if (pulls++ % 16 === 0) peakHeap = Math.max(peakHeap, heapNow().heap);
      controller.enqueue(chunk);
    },
  },
  { highWaterMark: Number(readAhead) },
);

// One small admit through a stream first, so code the gate compiles on its first call is not counted as memory the
// 1 GiB stream cost.
const warmChunk = new TextEncoder().encode('{"totalCount":0,"issues":[]}');
await gate.admit(
  new ReadableStream({
    start(controller) {
      controller.enqueue(warmChunk);
      controller.close();
    },
  }),
);

globalThis.gc();
const base = heapNow();
const baseMaxRss = process.resourceUsage().maxRSS * 1024;
peakHeap = base.heap;
const start = performance.now();
let code;
if (mode === "gate") {
  const outcome = await gate.admit(stream);
  code = outcome.ok ? "ok" : outcome.error.code;
} else {
  let total = 0;
  const reader = stream.getReader();
  for (let step = await reader.read(); !step.done; step = await reader.read()) total += step.value.byteLength;
  code = `drained ${total}`;
}
const ms = performance.now() - start;
peakHeap = Math.max(peakHeap, heapNow().heap);
const maxRss = process.resourceUsage().maxRSS * 1024;
process.stdout.write(
  `${JSON.stringify({
    mode,
    readAhead: Number(readAhead),
    code,
    ms,
    bytesRead: pulled,
    ceiling: CEILING,
    rssGrowth: Math.max(0, maxRss - Math.max(baseMaxRss, base.rss)),
    heapGrowth: peakHeap - base.heap,
  })}\n`,
);
