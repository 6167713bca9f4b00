/**
 * The payload hash taken on a helper thread: it settles to exactly the hash the gate takes on its own thread, for
 * every text (lone surrogates included, which the thread hands back), every byte array and any order of settling;
 * the gate's outcome, event and model content are the same whether or not the thread took the hash; and the thread
 * never keeps a process alive.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import fc from "fast-check";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { GateEvent, Outcome } from "../../../runtime/index.js";
import { toModelContent } from "../../../runtime/index.js";
import * as hashThread from "../../../runtime/record/hash-thread.js";
import {
  hashBytesLater,
  hashTextLater,
  heldBuffers,
  holdsLargeBuffer,
  MAX_UNITS,
  MIN_UNITS,
  threadAnswers,
  threadJobs,
} from "../../../runtime/record/hash-thread.js";
import { type HashedText, hashTextNow } from "../../../runtime/record/provenance.js";
import { isWellFormedText } from "../../../runtime/text/hygiene.js";
import { hashThreadReady } from "../../fixtures/hash-thread.js";
import { goodRecord, recordTool, textTool } from "../fixture.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const utf8 = (text: string) => Buffer.from(text, "utf8");

/** Waits until the source's hash thread is ready. */
const threadReady = () => hashThreadReady(hashThread);

/**
 * The buffers the gate and the thread hold, once the thread holds no more than the gate (woken, it drops what the
 * gate let go of), or after 5 s.
 */
async function heldOnceSettled(): Promise<{ gate: number; thread: number | undefined }> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const held = heldBuffers();
    if (held.thread === held.gate || Date.now() > deadline) return held;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * A record whose JSON text is about `units` UTF-16 units, its summary built of `piece`. A lone surrogate is written
 * into the text as it is (`JSON.stringify` would write it as an escape, which the parse stage refuses instead).
 */
function largeRecordText(units: number, piece: string): string {
  const summary = piece.repeat(Math.ceil(units / piece.length)).slice(0, units);
  return JSON.stringify(goodRecord({ summary })).replaceAll("\\ud83d", "\uD83D");
}

/**
 * A settled hash without what only the thread adds, whether the payload holds `\u` (a JSON escape), once that is
 * checked against the payload: the finding is there exactly when the thread answered.
 */
function hashOf(settled: HashedText | undefined, payload: string | Uint8Array): HashedText | undefined {
  if (settled === undefined) return undefined;
  const { escapes, ...hash } = settled;
  if (escapes !== undefined) {
    found.escapes += escapes ? 1 : 0;
    const holds = typeof payload === "string" ? payload.includes("\\u") : Buffer.from(payload).includes("\\u");
    expect(escapes).toBe(holds);
  }
  return hash;
}

/** How many payloads the thread found a `\u` in, for the tests' positive control. */
const found = { escapes: 0 };

/** An outcome and its event without what differs between two admits of the same payload (the clock, the turn). */
function comparable(outcome: Outcome<unknown, unknown>, events: GateEvent[]) {
  return {
    outcome: { ...outcome, provenance: { ...outcome.provenance, receivedAt: "" } },
    event: events.map((event) => ({ ...event, receivedAt: "", turn: "" })),
    content: toModelContent(outcome),
  };
}

/** A large text result, admitted by text tools under a byte and a token budget: the text view fits it to each. */
const LOG = Array.from({ length: 3000 }, (_, i) => `${i} request served in ${i % 97} ms, café 東京 🚀 status ok`).join(
  "\n",
);
const TEXT_TOOLS = {
  bytes: textTool({ context: { unit: "bytes", max: 4000 }, limits: { maxBytes: 4 * 1024 * 1024, maxDepth: 1 } }),
  tokens: textTool({
    context: { unit: "tokens", max: 2000, tokenizer: "o200k_base" },
    limits: { maxBytes: 4 * 1024 * 1024, maxDepth: 1 },
  }),
};

async function admittedText(tool: keyof typeof TEXT_TOOLS, raw: string | Uint8Array) {
  const events: GateEvent[] = [];
  const outcome = await TEXT_TOOLS[tool].admit(raw, { correlationId: "c-1", sink: (event) => events.push(event) });
  return comparable(outcome as Outcome<unknown, unknown>, events);
}

async function admitted(text: string, hook?: () => boolean) {
  const events: GateEvent[] = [];
  const tool = recordTool({ context: { unit: "bytes", max: 1_000_000 } });
  const outcome = await tool.admit(text, {
    correlationId: "c-1",
    sink: (event) => events.push(event),
    ...(hook === undefined ? {} : { hooks: { semantic: hook } }),
  });
  return comparable(outcome as Outcome<unknown, unknown>, events);
}

// Texts for the gate: each admitted once before the thread is ready (hashed on this thread) and once after.
const GATE_TEXTS = {
  ascii: largeRecordText(40_000, "plain words of a summary "),
  wide: largeRecordText(60_000, "東京 데이터 🚀 café "),
  lone: largeRecordText(40_000, "half a pair \uD83D then more "),
};
const before = new Map<string, Awaited<ReturnType<typeof admitted>>>();
let hooked = 0;

beforeAll(async () => {
  // The first large payload starts the thread and is hashed here; so is every payload until the thread is ready.
  for (const [name, text] of Object.entries(GATE_TEXTS)) {
    before.set(
      name,
      await admitted(text, () => {
        hooked++;
        return true;
      }),
    );
  }
  for (const tool of ["bytes", "tokens"] as const) {
    before.set(`${tool} string`, await admittedText(tool, LOG));
    before.set(`${tool} bytes`, await admittedText(tool, utf8(LOG)));
  }
  await threadReady();
}, 30_000);

describe("a hash taken on the helper thread", () => {
  /** A text of at least MIN_UNITS units from random pieces: ASCII, BMP, astral, U+FFFD, and lone surrogates. */
  const piece = fc.oneof(
    fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 40 }),
    fc.constantFrom("\uD83D\uDE80", "\uFFFD", "é", "東京", "\uD800", "\uDC00", "\n", '"\\u00e9"'),
  );
  const largeText = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 3 }))
    .map(([pieces, extra]) => {
      const unit = pieces.join("");
      const times = Math.ceil(MIN_UNITS / unit.length) + extra;
      return unit.repeat(times);
    });

  it("settles to what hashing on this thread gives: the UTF-8 length, the sha256 and whether U+FFFD is in it", () => {
    fc.assert(
      fc.property(largeText, (text) => {
        const pending = hashTextLater(text);
        expect(pending).toBeDefined();
        const settled = pending?.settle();
        const bytes = utf8(text);
        expect(settled?.byteLength).toBe(bytes.byteLength);
        expect(settled?.sha256).toBe(sha256(bytes));
        expect(hashOf(settled, text)).toEqual(hashTextNow(text));
        if (settled?.replacement === false) expect(isWellFormedText(text)).toBe(true);
      }),
      { numRuns: 60 },
    );
    // The thread found the escape in some texts (and said so of none without one).
    expect(found.escapes).toBeGreaterThan(0);
  });

  it("keeps a surrogate pair whole where the thread's pieces meet", () => {
    for (const at of [64 * 1024 - 1, 64 * 1024, 128 * 1024 - 1]) {
      const text = `${"a".repeat(at)}\uD83D\uDE80${"b".repeat(1000)}`;
      const settled = hashTextLater(text)?.settle();
      expect(hashOf(settled, text)).toEqual({
        byteLength: at + 4 + 1000,
        sha256: sha256(utf8(text)),
        replacement: false,
      });
    }
  });

  it("hashes bytes as they were handed over, whatever the caller writes into them afterwards", () => {
    const bytes = new Uint8Array(100_000).map((_, i) => (i * 7) & 0xff);
    const expected = sha256(bytes);
    const handed = bytes.slice();
    const pending = hashBytesLater(bytes);
    bytes.fill(0);
    expect(hashOf(pending?.settle(), handed)).toEqual({ byteLength: 100_000, sha256: expected, replacement: false });
  });

  it("settles many pending hashes in any order, each to its own payload's, and keeps only the buffers it reuses", async () => {
    const texts = Array.from({ length: 12 }, (_, i) => `${i} `.repeat(MIN_UNITS / 2 + i * 997));
    const pending = texts.map((text) => hashTextLater(text));
    for (const i of [5, 0, 11, 3, 7, 1, 9, 2, 10, 4, 8, 6]) {
      expect(pending[i]?.settle().sha256).toBe(sha256(utf8(texts[i] as string)));
    }
    // Buffers given back are reused: another round still hashes each text as its own.
    const again = texts.map((text) => hashTextLater(text)?.settle().sha256);
    expect(again).toEqual(texts.map((text) => sha256(utf8(text))));
    // Twelve buffers were needed at once; the gate keeps a few for the next payloads, and the thread lets go of the
    // others as the gate does.
    const held = await heldOnceSettled();
    expect(held.gate).toBeGreaterThan(0);
    expect(held.gate).toBeLessThan(12);
    expect(held.thread).toBe(held.gate);
  });

  it("takes back a job the thread has not begun, and a buffer reused at once still hashes its own job", () => {
    // Settled right after it is handed over, a job is mostly taken back and hashed here; its message may still be
    // on its way when the next job of the same size reuses its buffer.
    const texts = Array.from({ length: 3 }, (_, i) => `${"東京 café ".repeat(6_000)}${i}`);
    for (let round = 0; round < 300; round++) {
      const first = texts[round % 3] as string;
      const second = texts[(round + 1) % 3] as string;
      const taken = hashTextLater(first);
      expect(hashOf(taken?.settle(), first)).toEqual(hashTextNow(first));
      const next = hashTextLater(second);
      const bytes = hashBytesLater(utf8(first));
      expect(bytes?.settle().sha256).toBe(sha256(utf8(first)));
      expect(hashOf(next?.settle(), second)).toEqual(hashTextNow(second));
    }
  });

  it("drops a job no one will read, and the jobs after it, in its buffer or not, hash their own payloads", () => {
    const texts = Array.from({ length: 3 }, (_, i) => `${"東京 café ".repeat(6_000)}${i}`);
    for (let round = 0; round < 200; round++) {
      const dropped = hashTextLater(texts[round % 3] as string);
      dropped?.drop();
      // Dropping again does nothing, and a settle after a drop still answers the payload's own hash.
      dropped?.drop();
      expect(hashOf(dropped?.settle(), texts[round % 3] as string)).toEqual(hashTextNow(texts[round % 3] as string));
      const next = texts[(round + 1) % 3] as string;
      expect(hashOf(hashTextLater(next)?.settle(), next)).toEqual(hashTextNow(next));
    }
  });

  it("leaves short payloads and huge ones to be hashed at once", () => {
    expect(hashTextLater("x".repeat(MIN_UNITS - 1))).toBeUndefined();
    expect(hashBytesLater(new Uint8Array(MIN_UNITS - 1))).toBeUndefined();
    expect(hashTextLater("x".repeat(MAX_UNITS + 1))).toBeUndefined();
    expect(hashBytesLater(new Uint8Array(MAX_UNITS + 1))).toBeUndefined();
  });

  it("does a job handed over while it still looks for one, and one handed over after it went to sleep", async () => {
    // The thread looks at its doorbell for a while after each job and is rung without a wake-up then; past that it
    // sleeps, and the ring wakes it. A second job follows the first after a gap from none to longer than the look,
    // and both are given ample time before they settle: a job the thread never saw would be taken back and hashed
    // here, and not counted as the thread's answer.
    const text = `{"log":"${"x".repeat(MIN_UNITS)} 東京 🚀"}`;
    const busy = (ms: number) => {
      const start = performance.now();
      while (performance.now() - start < ms) {
        // Holding this thread, as a gate busy with its next result does.
      }
    };
    for (const gapMs of [0, 0.1, 0.3, 1, 5]) {
      const answers = threadAnswers();
      const first = hashTextLater(text);
      busy(gapMs);
      const second = hashTextLater(text);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(hashOf(first?.settle(), text)).toEqual(hashTextNow(text));
      expect(hashOf(second?.settle(), text)).toEqual(hashTextNow(text));
      expect(threadAnswers()).toBe(answers + 2);
    }
  });

  it("hashes a 10 MB payload there too, keeps its buffer for the next one and lets it go when no more come", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const texts = ["a", "b"].map((letter) => `{"log":"${letter.repeat(10_000_000)} 東京 🚀"}`);
      for (const text of [...texts, ...texts]) {
        const pending = hashTextLater(text);
        expect(pending).toBeDefined();
        expect(hashOf(pending?.settle(), text)).toEqual(hashTextNow(text));
      }
      // Given back, a buffer is kept for the next large payload, though too large for the buffers kept for good. (A
      // job the thread did not finish in time keeps its buffer to itself; of four, one is given back.)
      expect(holdsLargeBuffer()).toBe(true);
      vi.advanceTimersByTime(1_999);
      expect(holdsLargeBuffer()).toBe(true);
      const before = heldBuffers().gate;
      vi.advanceTimersByTime(1);
      expect(holdsLargeBuffer()).toBe(false);
      // Let go of by the thread too, which sleeps until woken for it: 32 MB no longer held anywhere.
      const held = await heldOnceSettled();
      expect(held.gate).toBe(before - 1);
      expect(held.thread).toBe(held.gate);
      // A payload after the release hashes in a buffer of its own, as the first one did.
      expect(hashOf(hashTextLater(texts[0] as string)?.settle(), texts[0] as string)).toEqual(
        hashTextNow(texts[0] as string),
      );
    } finally {
      vi.useRealTimers();
    }
  }, 30_000);
});

describe("the gate with the hash thread", () => {
  it("admits a large result with the same outcome, event and model content as when it hashed it itself", async () => {
    for (const name of ["ascii", "wide"] as const) {
      const jobs = threadJobs();
      const after = await admitted(GATE_TEXTS[name], () => true);
      expect(threadJobs()).toBe(jobs + 1);
      expect(after).toEqual(before.get(name));
      // The positive control: the result reaches the model whole, with the hash of what was received.
      const { outcome } = after;
      expect(outcome.ok).toBe(true);
      expect(outcome.provenance.rawBytes).toBe(utf8(GATE_TEXTS[name]).byteLength);
      expect(outcome.provenance.rawSha256).toBe(sha256(utf8(GATE_TEXTS[name])));
      expect(after.content).toContain(`source="sha256:${sha256(utf8(GATE_TEXTS[name])).slice(0, 16)}"`);
      expect(after.content).toContain('"owner":"acme"');
      expect((outcome as { data: { summary: string } }).data.summary).toBe(JSON.parse(GATE_TEXTS[name]).summary);
    }
  });

  it("fits a large text result to its budget as it did before: the content it measures names the hash", async () => {
    for (const tool of ["bytes", "tokens"] as const) {
      for (const [form, raw] of [
        ["string", LOG],
        ["bytes", utf8(LOG)],
      ] as const) {
        const jobs = threadJobs();
        const after = await admittedText(tool, raw);
        expect(threadJobs()).toBe(jobs + 1);
        expect(after).toEqual(before.get(`${tool} ${form}`));
        // The positive control: an excerpt of whole lines within the budget, the first line among them.
        const { outcome } = after;
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) continue;
        expect(outcome.contextUsed?.value).toBeLessThanOrEqual(tool === "bytes" ? 4000 : 2000);
        expect(after.content).toContain("0 request served in 0 ms");
        expect(after.content).toContain(`source="sha256:${sha256(utf8(LOG)).slice(0, 16)}"`);
      }
    }
  });

  it("refuses a large text with a lone surrogate as it did before, and no hook sees it", async () => {
    expect(isWellFormedText(GATE_TEXTS.lone)).toBe(false);
    const hooksBefore = hooked;
    const after = await admitted(GATE_TEXTS.lone, () => {
      hooked++;
      return true;
    });
    expect(after).toEqual(before.get("lone"));
    expect(hooked).toBe(hooksBefore);
    expect(hooked).toBe(2);
    const { outcome } = after;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.code).toBe("invalid_encoding");
      expect(outcome.diagnostics).toMatchObject({ stage: "decode", detail: { reason: "lone_surrogate" } });
    }
    expect(outcome.provenance.rawSha256).toBeUndefined();
    expect(outcome.provenance.rawBytes).toBe(utf8(GATE_TEXTS.lone).byteLength);
  });

  it("refuses a large text that breaks two rules for its encoding first, as the gate always has", async () => {
    // Not JSON as well as not well-formed: receive refuses the encoding before anything parses.
    const broken = `${GATE_TEXTS.lone.slice(0, -1)},`;
    const { outcome } = await admitted(broken);
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("invalid_encoding");
    // And a well-formed text that does not parse fails as invalid JSON, with its hash.
    const notJson = `${GATE_TEXTS.ascii.slice(0, -1)},`;
    const parsed = await admitted(notJson);
    expect(parsed.outcome.ok ? "ok" : parsed.outcome.error.code).toBe("invalid_json");
    expect(parsed.outcome.provenance.rawSha256).toBe(sha256(utf8(notJson)));
    expect(parsed.event[0]?.sizes.rawBytes).toBe(utf8(notJson).byteLength);
  });
});

describe("the thread and the process", () => {
  it("never keeps a process alive", async () => {
    const module = path.resolve("runtime/dist/record/hash-thread.js");
    const script = `
      const { hashTextLater } = await import(${JSON.stringify(module)});
      const text = "x".repeat(100000);
      let pending;
      for (let i = 0; i < 200 && pending === undefined; i++) {
        pending = hashTextLater(text);
        if (pending === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      // A large payload's buffer, kept for a while after it settles, does not keep the process alive either.
      hashTextLater("y".repeat(10000000))?.settle();
      console.log(pending === undefined ? "never ready" : pending.settle().sha256);
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
      timeout: 20_000,
    });
    expect(stdout.trim()).toBe(sha256(utf8("x".repeat(100000))));
  }, 30_000);
});
