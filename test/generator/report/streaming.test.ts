/**
 * Streaming: a trace of one million events is reported in bounded memory. The report runs in a child process with
 * `--expose-gc`, which samples its live heap after a full collection every second: the growth over the baseline must
 * stay under 64 MB (the file itself is about 300 MB).
 */
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import { writeSyntheticTrace } from "./big-trace.js";
import { scratch } from "./trace.js";

const MILLION = 1_000_000;
let file: string;
beforeAll(async () => {
  await ensureBuilt();
  file = path.join(await scratch("streaming"), "million.jsonl");
  await writeSyntheticTrace(file, MILLION);
}, 300_000);

// The trace is about 300 MB: it goes when the test is done.
afterAll(async () => {
  await rm(path.dirname(file), { recursive: true, force: true });
});

describe("a million events", () => {
  it("are all counted with the heap growing by less than 64 MB", async () => {
    const child = path.join(import.meta.dirname, "heap-child.mjs");
    const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", child, file], {
      maxBuffer: 1 << 20,
    });
    const result = JSON.parse(stdout) as { peak: number; held: number; events: number; turns: number; ms: number };
    expect(statSync(file).size).toBeGreaterThan(250 * 1024 * 1024);
    expect(result.events).toBe(MILLION);
    expect(result.turns).toBe(MILLION / 4);
    expect(result.peak).toBeLessThan(64 * 1024 * 1024);
    console.log(
      `1M events in ${Math.round(result.ms)} ms; live heap growth at most ${(result.peak / 2 ** 20).toFixed(1)} MB, ` +
        `${(result.held / 2 ** 20).toFixed(1)} MB held at the end`,
    );
  }, 300_000);
});
