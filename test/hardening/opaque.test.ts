/**
 * Opaque means opaque (issue 12, class 11). An `opaque` field and the continuation token are defined by what they
 * may hold, ASCII letters, digits and `-` `_` `.` `=` `+`, not by what a URL or path parser would recognise:
 * - a token with any other character (the issue's `https:\\evil.example\collect`, `ws:evil.example`, `~root/.ssh`,
 *   `etc/passwd`, and neighbours: fullwidth colons, `%`-encoding, `@`, invisible characters, standard base64 `/`)
 *   fails the call as `semantic_violation` and never reaches the model; a continuation token with one is not passed
 *   on as the continuation;
 * - a token of the set passes, except one made only of dots (`.`, `..` are path steps);
 * - a contract whose `view.continuation` is a field `view.omit` leaves out (or lies under one) is a contract error
 *   naming the file and `/x-toolgate/view/continuation`.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { opaqueTokenProblem, toModelContent } from "../../runtime/index.js";
import { type AnyAdapter, adaptersOf, contractErrors, generateInto, REPO, writeContracts } from "./scratch.js";

/** The issue's examples and neighbours found beside them, with the problem each is reported as. */
const NOT_TOKENS: Array<[string, string]> = [
  ["https:\\\\evil.example\\collect", "url"],
  ["ws:evil.example", "url"],
  ["https:evil.example", "url"],
  ["~root/.ssh", "path"],
  ["etc/passwd", "path"],
  // Neighbours.
  ["evil.example:443", "url"],
  ["mailto:a", "url"],
  ["C:evil", "path"],
  ["\\\\?\\C:\\x", "path"],
  ["..", "path"],
  [".", "path"],
  ["ab/cd+ef==", "path"],
  ["a\tb", "command"],
  ["next;id", "command"],
  ["ｈｔｔｐｓ：／／evil.example", "charset"],
  ["%2e%2e%2fetc%2fpasswd", "charset"],
  ["user@evil.example", "charset"],
  ["c2\u200B", "charset"],
  ["c2\u180B", "charset"],
  ["é", "charset"],
];

/** Tokens as tools write them. */
const TOKENS = ["eyJwYWdlIjoyfQ", "eyJwYWdlIjoyfQ==", "aaa.bbb.ccc", "c_01HZX3V9", "page-2", "1.2.3", "a+b", "-x", "_"];

describe("opaqueTokenProblem", () => {
  it.each(NOT_TOKENS)("%j is refused as %s", (token, problem) => {
    expect(opaqueTokenProblem(token)).toBe(problem);
  });

  it.each(TOKENS)("%j passes", (token) => expect(opaqueTokenProblem(token)).toBeUndefined());

  it("numbers pass and other values are not tokens", () => {
    expect(opaqueTokenProblem(42)).toBeUndefined();
    expect(opaqueTokenProblem(null)).toBe("not_a_token");
    expect(opaqueTokenProblem({ href: "x" })).toBe("not_a_token");
  });

  it("a string passes exactly when every character is in the set and it is not only dots", () => {
    const allowed = /^[A-Za-z0-9._=+-]*$/;
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary", maxLength: 20 }), fc.stringMatching(/^[A-Za-z0-9._=+-]{0,20}$/)),
        (text) => {
          const passes = allowed.test(text) && !/^\.+$/.test(text);
          expect(opaqueTokenProblem(text) === undefined).toBe(passes);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe("through generated adapters", () => {
  let getRecord: AnyAdapter;
  let listPages: AnyAdapter;

  beforeAll(async () => {
    getRecord = (await adaptersOf(await generateInto(`${REPO}/schemas`, "opaque-examples"))).get(
      "get_record",
    ) as AnyAdapter;
    const schemas = await writeContracts("opaque", {
      "list_pages.tool.json": {
        name: "list_pages",
        description: "Lists pages.",
        inputSchema: { type: "object", additionalProperties: false },
        outputSchema: {
          type: "object",
          properties: {
            items: { type: "array", maxItems: 50, items: { type: "integer" } },
            next: { type: "string", maxLength: 256 },
          },
          required: ["items"],
          additionalProperties: false,
        },
        "x-toolgate": {
          context: { unit: "bytes", max: 100_000 },
          view: { arrays: { "/items": { take: 2 } }, continuation: "/next" },
        },
      },
    });
    listPages = (await adaptersOf(await generateInto(schemas))).get("list_pages") as AnyAdapter;
  });

  const record = (nextCursor: string) => ({
    recordId: "rec_8Hq2LmZ0aP4xT9wK",
    status: "active",
    summary: "Renewal due in March.",
    owner: { tenantId: "tn_acme0042", userId: "usr_4Fj8Kq2Lx9Pz" },
    createdAt: "2021-04-12T08:30:00Z",
    nextCursor,
  });

  it.each(NOT_TOKENS)("an opaque field holding %j fails the call and never reaches the model", async (token) => {
    const outcome = await getRecord.admit(JSON.stringify(record(token)));
    expect(outcome.ok ? "ok" : outcome.error.code).toBe("semantic_violation");
    if (!outcome.ok) expect(outcome.diagnostics.issues?.[0]).toMatchObject({ instancePath: "/nextCursor" });
    expect(toModelContent(outcome)).not.toContain(JSON.stringify(token).slice(1, -1));
  });

  it.each(TOKENS)("an opaque field holding %j passes, and is the continuation", async (token) => {
    const outcome = await getRecord.admit(JSON.stringify(record(token)));
    expect(outcome.ok).toBe(true);
  });

  it.each(NOT_TOKENS)("a continuation token %j is not passed on as the continuation", async (token) => {
    const outcome = await listPages.admit(JSON.stringify({ items: [1, 2, 3, 4], next: token }));
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.complete).toBe(false);
    expect(outcome.continuation).toBeUndefined();
    expect(toModelContent(outcome)).not.toContain("<continuation>");
  });

  it.each(TOKENS)("a continuation token %j is passed on exactly as the tool wrote it", async (token) => {
    const outcome = await listPages.admit(JSON.stringify({ items: [1, 2, 3, 4], next: token }));
    expect(outcome.ok && outcome.continuation).toBe(token);
  });
});

describe("a continuation the view leaves out", () => {
  const contract = (view: Record<string, unknown>) => ({
    name: "hidden_cursor",
    description: "Lists pages.",
    inputSchema: { type: "object", additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: {
        items: { type: "array", maxItems: 50, items: { type: "integer" } },
        private: {
          type: "object",
          properties: { cursor: { type: "string", maxLength: 64 } },
          additionalProperties: false,
        },
        next: { type: "string", maxLength: 64 },
      },
      required: ["items"],
      additionalProperties: false,
    },
    "x-toolgate": { context: { unit: "bytes", max: 100_000 }, view },
  });

  it.each([
    ["the issue's example: the omitted field itself", { omit: ["/next"], continuation: "/next" }],
    ["a field under an omitted parent", { omit: ["/private"], continuation: "/private/cursor" }],
    ["the omitted field among others", { omit: ["/items", "/private/cursor"], continuation: "/private/cursor" }],
  ])("is a contract error naming the file and the pointer: %s", async (_name, view) => {
    const schemas = await writeContracts("hidden-continuation", { "hidden_cursor.tool.json": contract(view) });
    const errors = await contractErrors(schemas);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.file).toMatch(/hidden_cursor\.tool\.json$/);
    expect(errors[0]?.pointer).toBe("/x-toolgate/view/continuation");
    expect(errors[0]?.message).toMatch(/left out of the view by \/x-toolgate\/view\/omit\/\d/);
  });
});
