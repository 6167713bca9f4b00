/**
 * gpt-tokenizer is an optional peer of the runtime: a contract that counts its budget in tokens needs it where the
 * adapters run, for every view larger in UTF-8 bytes than its budget in tokens (a smaller one is within the budget
 * uncounted). Where it is not installed, every call that needs a count ends in a typed `transport_error` whose
 * `detail.reason` names the cause (`tokenizer_unavailable`, not retryable), the call's turn records it as failed, and
 * `admit` still never rejects, also when a turn measures a failure's note; a view within the budget by its bytes is
 * admitted whole. Checked with the built runtime copied into a project that has no gpt-tokenizer,
 * in a process of its own, so the package really cannot be resolved.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";

const run = promisify(execFile);
const REPO = path.resolve(import.meta.dirname, "../../..");

/** A text tool counting its budget in tokens, as a generated adapter would define it. */
const SCRIPT = `
import { defineTool, Turn } from "@toolgate/runtime";
const adapter = defineTool({
  name: "read_note",
  contract: { version: "1", sha256: "c".repeat(64), file: "read_note.tool.json" },
  view: { plan: { kind: "value" }, maxStringChars: 2000 },
  buildView: () => { throw new Error("the gate's own view serves text results"); },
  limits: { maxBytes: 65536, maxDepth: 1 },
  context: { unit: "tokens", max: 200, tokenizer: "o200k_base" },
  oversize: ["drop"], recallLimit: 1, summaryMax: 200, spillPreview: 2, retry: {}, fields: [],
  exposeToolError: false, mcp: {},
  result: { kind: "text", text: { maxLines: 100, headShare: 0.67 }, content: { maxBlocks: 4, text: { maxCount: 2 } } },
});
const summary = (outcome) => ({
  ok: outcome.ok,
  code: outcome.ok ? undefined : outcome.error.code,
  reason: outcome.ok ? undefined : outcome.diagnostics.detail?.reason,
  retryable: outcome.ok ? undefined : outcome.error.retryable,
  message: outcome.ok ? undefined : outcome.error.message,
});
const turn = new Turn();
turn.expect("read_note", "c1");
turn.expect("read_note", "c2");
turn.expect("read_note", "c3");
// 1,200 bytes of prose: about 250 tokens, over the budget of 200 only by a count.
const long = "The committee reviewed the report and found most samples within limits.\\n".repeat(16);
const results = [
  summary(await adapter.admit(long)),
  summary(await adapter.admit(long, { turn, correlationId: "c1" })),
  // A failure before anything is measured; the turn then measures its note, within the budget by its bytes.
  summary(await adapter.admit("half a pair \\ud800", { turn, correlationId: "c2" })),
];
// Within the budget by its bytes: no count is needed, so the note reaches the model whole without the tokenizer.
const short = await adapter.admit("a short note", { turn, correlationId: "c3" });
const fits = { ok: short.ok, text: short.ok ? short.view.text : undefined, contextUsed: short.ok ? short.contextUsed : undefined };
const statuses = turn.report().contributions.map((entry) => [entry.correlationId, entry.status, entry.reason]);
console.log(JSON.stringify({ results, fits, statuses }));
`;

describe("a contract counting tokens where gpt-tokenizer is not installed", () => {
  let project: string;

  beforeAll(async () => {
    await ensureBuilt();
    project = await mkdtemp(path.join(tmpdir(), "toolgate-no-tokenizer-"));
    const runtime = path.join(project, "node_modules", "@toolgate", "runtime");
    await mkdir(runtime, { recursive: true });
    await cp(path.join(REPO, "runtime", "dist"), path.join(runtime, "dist"), { recursive: true });
    await cp(path.join(REPO, "runtime", "package.json"), path.join(runtime, "package.json"));
    await writeFile(path.join(project, "package.json"), '{ "type": "module" }\n');
    await writeFile(path.join(project, "main.js"), SCRIPT);
  }, 120_000);

  it("ends each call in a typed transport_error naming the missing tokenizer, and never rejects", async () => {
    const { stdout } = await run(process.execPath, ["main.js"], { cwd: project });
    const { results, fits, statuses } = JSON.parse(stdout);
    const [plain, inTurn, failure] = results;
    const unavailable = {
      ok: false,
      code: "transport_error",
      reason: "tokenizer_unavailable",
      retryable: false,
      message: expect.stringContaining("gpt-tokenizer"),
    };
    expect(plain).toEqual(unavailable);
    expect(inTurn).toEqual(unavailable);
    // The failure stands as the call's outcome; only its note in the turn goes unmeasured.
    expect(failure).toMatchObject({ ok: false, code: "invalid_encoding" });
    expect(fits.ok).toBe(true);
    expect(fits.text).toBe("a short note");
    expect(fits.contextUsed).toMatchObject({ unit: "tokens", budget: 200, exact: false });
    expect(fits.contextUsed.value).toBeLessThanOrEqual(200);
    // The turn knows of both failed calls as failed, not as results that never arrived, and of the note it read.
    expect(statuses).toEqual([
      ["c1", "failed", "transport_error"],
      ["c2", "failed", "invalid_encoding"],
      ["c3", "complete", null],
    ]);
  });
});
