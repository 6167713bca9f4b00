/**
 * Read-back: a 10 MB spilled result read back page by page through the read-back tool (every page fitted to its
 * 16,000-byte budget, rendered for the model, its next arguments followed) against reading it whole once from the
 * same store (`get`: read, verify, parse). Both start from a fresh store and reader each round, so both pay for
 * reading and verifying the file; the target is that paging through all of it costs at most 2× one whole read.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { FileSpillStore, readBack } from "@toolgate/runtime";
import { interleave, ratio } from "./lib/stats.js";

/** A structured value of about `bytes` of JSON: items with a name, tags and a sentence of text. */
function bigValue(bytes) {
  const items = [];
  let size = 0;
  for (let id = 0; size < bytes; id++) {
    const item = {
      id,
      name: `record-${id}`,
      tags: ["alpha", "beta", id % 7 === 0 ? "gamma <&>" : "delta"],
      text: `Record ${id} was reviewed on day ${id % 365} and found to be within the limits set for its class.`,
    };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return { items, total: items.length };
}

/** @param {{ rounds: number, work: string }} options */
export async function runReadBack({ rounds, work }) {
  const directory = path.join(work, "read-back-spill");
  const value = bigValue(10 * 1024 * 1024);
  const json = JSON.stringify(value);
  const sha256 = createHash("sha256").update(json).digest("hex");
  const { handle, bytes } = await new FileSpillStore({ directory }).put({ tool: "bench", json, sha256 });
  let pages = 0;
  let items = 0;
  const timing = await interleave(
    {
      whole: async () => {
        const start = performance.now();
        const read = await new FileSpillStore({ directory }).get(handle);
        if (read.items.length !== value.items.length) throw new Error("whole read lost items");
        return performance.now() - start;
      },
      paged: async () => {
        const start = performance.now();
        const reader = readBack(new FileSpillStore({ directory }));
        let args = { handle, pointer: "/items", limit: 1000 };
        pages = 0;
        items = 0;
        while (args !== undefined) {
          const page = await reader.handle(args);
          if (!page.ok) throw new Error(`read-back failed: ${page.error.code}`);
          pages++;
          items += page.page.items.length;
          args = page.page.next;
        }
        if (items !== value.items.length) throw new Error("paging lost items");
        return performance.now() - start;
      },
    },
    rounds,
  );
  return { bytes, items: value.items.length, pages, timing, ratio: ratio(timing.paged, timing.whole) };
}
