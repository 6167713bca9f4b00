/**
 * Hand-made traces for the report's tests: events as `jsonLinesSink` writes them (every field an event has), so a
 * test states only what it is about.
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { GateEvent } from "@toolgate/runtime";
import { afterAll } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../../..");

/** The scratch folders the importing test file made: removed when it ends (the screenshots stay beside them). */
const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.splice(0).map((folder) => rm(folder, { recursive: true, force: true })));
});

/** A scratch folder of the report's tests, under `.tmp/report/`, removed when the test file ends. */
export async function scratch(name: string): Promise<string> {
  const folder = path.join(REPO, ".tmp", "report", `${name}-${process.pid}`);
  await mkdir(folder, { recursive: true });
  made.push(folder);
  return folder;
}

/** One event's JSON line: a successful direct admit unless `fields` say otherwise. */
export function event(fields: Partial<GateEvent> & { tool: string }): string {
  const full: GateEvent = {
    v: 1,
    contractVersion: "1.0.0",
    code: "ok",
    stage: "done",
    rawKind: "string",
    sizes: { rawBytes: 120, maxBytes: 65536, viewSize: 80, budget: 4000, unit: "tokens" },
    receivedAt: "2026-01-01T00:00:00.000Z",
    policy: "direct",
    ...fields,
  };
  if (full.code === "oversize" && fields.policy === undefined) full.policy = "drop";
  return JSON.stringify(full);
}

/** `n` copies of an event in numbered turns `prefix1…prefixN`, each with `fields(i)` for the i-th (from 0). */
export function turns(n: number, prefix: string, fields: (i: number) => Partial<GateEvent> & { tool: string }) {
  return Array.from({ length: n }, (_, i) => event({ turn: `${prefix}${i + 1}`, ...fields(i) }));
}

/** Labels for turns `prefix1…prefixN`, the first `correct` of them correct. */
export function labels(n: number, prefix: string, correct: number): string[] {
  return Array.from({ length: n }, (_, i) => JSON.stringify({ turn: `${prefix}${i + 1}`, correct: i < correct }));
}

/** Writes lines to a file, each ending in a line break. */
export async function writeLines(file: string, lines: readonly string[]): Promise<string> {
  await writeFile(file, lines.map((l) => `${l}\n`).join(""));
  return file;
}
