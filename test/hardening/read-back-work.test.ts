/**
 * A read-back call is bounded in the work it computes, not only in what it returns: a pointer's cost is its
 * matches times its segments, and a pattern of `*` followed by hundreds of `/0` over a 21 KB spill once held the
 * event loop for 16 to 24 seconds. Each case ends at once as `invalid_arguments` saying which bound it met; beside
 * them, ordinary patterns over the same spills page their values as before.
 */
import { describe, expect, it } from "vitest";
import { MemorySpillStore, type ReadBackOutcome, readBack } from "../../runtime/index.js";
import { MAX_POINTER_SEGMENTS, MAX_SELECT_STEPS } from "../../runtime/read-back/select.js";

async function spill(value: unknown) {
  const store = new MemorySpillStore();
  const { handle } = await store.put({ tool: "t", json: JSON.stringify(value), sha256: "a".repeat(64) });
  return { reader: readBack(store), handle };
}

function problemOf(outcome: ReadBackOutcome): string {
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return "";
  expect(outcome.error.code).toBe("invalid_arguments");
  return outcome.error.message;
}

/** About 21 KB: 500 entries of a name and a pair. */
const ENTRIES = { entries: Array.from({ length: 500 }, (_, i) => ({ name: `e${i}`, pair: [i, i + 1] })) };

describe("the work of one read-back call is bounded", () => {
  it("a star followed by 507 index segments is refused by its length, before any match is built", async () => {
    const { reader, handle } = await spill(ENTRIES);
    const pointer = `/entries/*${"/0".repeat(507)}`;
    expect(pointer.length).toBeLessThanOrEqual(1024);
    expect(problemOf(await reader.handle({ handle, pointer }))).toContain(`more than ${MAX_POINTER_SEGMENTS} segments`);
  });

  it("a pointer of 65 segments without a star is refused the same way; one of 64 that names nothing is not found", async () => {
    const deep = { a: [] as unknown[] };
    const { reader, handle } = await spill(deep);
    const long = `/a${"/0".repeat(64)}`;
    expect(problemOf(await reader.handle({ handle, pointer: long }))).toContain("segments");
    const within = `/a${"/0".repeat(63)}`;
    expect(problemOf(await reader.handle({ handle, pointer: within }))).toBe("nothing is at that pointer");
  });

  it("nested stars whose matches times segments pass the step bound are refused, naming it", async () => {
    const grid = {
      rows: Array.from({ length: 300 }, () => ({ cells: Array.from({ length: 300 }, (_, j) => ({ v: j })) })),
    };
    const { reader, handle } = await spill(grid);
    const pointer = `/rows/*/cells/*${"/v".repeat(40)}`;
    expect(problemOf(await reader.handle({ handle, pointer }))).toContain(`more than ${MAX_SELECT_STEPS} steps`);
  });

  it("the ordinary patterns over the same spills still page their values", async () => {
    const { reader, handle } = await spill(ENTRIES);
    const names = await reader.handle({ handle, pointer: "/entries/*/name", limit: 3 });
    expect(names.ok && names.page.matches).toEqual(
      [0, 1, 2].map((i) => ({ at: `/entries/${i}/name`, value: `e${i}` })),
    );
    const second = await reader.handle({ handle, pointer: "/entries/*/pair/1", limit: 2 });
    expect(second.ok && second.page.matches).toEqual([
      { at: "/entries/0/pair/1", value: 1 },
      { at: "/entries/1/pair/1", value: 2 },
    ]);
    const grid = {
      rows: Array.from({ length: 100 }, () => ({ cells: Array.from({ length: 100 }, (_, j) => ({ v: j })) })),
    };
    const big = await spill(grid);
    const cells = await big.reader.handle({ handle: big.handle, pointer: "/rows/*/cells/*/v", limit: 2 });
    expect(cells.ok && cells.page.note).toBe("matches 1–2 of 10,000 at /rows/*/cells/*/v");
  });
});
