/**
 * `npm run demo`: every example adapter over its sample payloads (good, malformed, invalid, hostile, oversize), with
 * the outcome and exactly what the model would see.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describeUnread, MemorySpillStore, type Outcome, ownedByTenant, Turn, toModelContent } from "@toolgate/runtime";
import { catalog } from "../generated/index.js";

const PAYLOADS = path.join("test", "fixtures", "payloads");
const WIDTH = 100;

/** Hooks a real caller would pass: the tenant check for records, a summarizer, a narrower re-call. */
const hooks = {
  semantic: ownedByTenant("/owner/tenantId"),
  summarize: async (data: unknown) =>
    `A result of ${JSON.stringify(data).length} characters, summarized by the caller's own model.`,
  recall: async (args: unknown) => ({ ...(args as object), limit: 5 }),
};

function show(label: string, outcome: Outcome<unknown, unknown>): void {
  const verdict = outcome.ok
    ? `ok${outcome.complete ? "" : " (incomplete)"}${outcome.policy === undefined ? "" : `, ${outcome.policy}`}`
    : `${outcome.error.code}${outcome.error.retryable ? " (retryable)" : ""}: ${outcome.error.message}`;
  console.log(`  ${label.padEnd(16)} ${verdict}`);
  const content = toModelContent(outcome);
  const shown = content.length > WIDTH * 3 ? `${content.slice(0, WIDTH * 3)}… (${content.length} characters)` : content;
  console.log(`${shown.replace(/^/gm, "      │ ")}\n`);
}

const spillStore = new MemorySpillStore();
const turn = new Turn();
for (const [name, entry] of Object.entries(catalog)) {
  console.log(`\n${name} (contract v${entry.version})`);
  const folder = path.join(PAYLOADS, name);
  for (const file of (await readdir(folder)).sort()) {
    const raw = await readFile(path.join(folder, file));
    const outcome = await (
      entry.adapter as { admit: (raw: unknown, ctx: object) => Promise<Outcome<unknown, unknown>> }
    ).admit(raw, {
      correlationId: `demo/${name}/${file}`,
      tenant: "tn_acme0042",
      args: {},
      hooks,
      turn,
      spillStore,
      call: async () => raw,
    });
    show(file, outcome);
  }
}

// The same record, read by another tenant: the semantic hook refuses it.
const record = await readFile(path.join(PAYLOADS, "get_record", "good.json"));
const admitAny = catalog.get_record.adapter.admit as (raw: unknown, ctx: object) => Promise<Outcome<unknown, unknown>>;
show("other tenant", await admitAny(record, { tenant: "tn_globex0001", hooks, turn }));
const report = turn.report();
const statuses = new Map<string, number>();
for (const c of report.contributions) statuses.set(c.status, (statuses.get(c.status) ?? 0) + 1);
const counts = [...statuses].map(([status, n]) => `${n} ${status}`);
console.log(
  `\nThe turn: ${report.contributions.length} calls (${counts.join(", ")}), context used ${report.contextUsed.tokens} tokens + ${report.contextUsed.bytes} bytes, recalls ${JSON.stringify(report.recalls)}.`,
);
console.log("What an answer must say it could not read:");
console.log(describeUnread(report).replace(/^/gm, "  "));
