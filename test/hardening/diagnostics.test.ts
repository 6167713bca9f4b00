/**
 * Issue 12, class 12: text built from payload keys (instance paths, pointers a hook returns, the MCP validator's
 * error message that the SDK rethrows as its `McpError`; the path of the largest array that an `oversize` message
 * names goes through the same function, though a view holds only the plan's keys) is bounded (128 code points per path) and escaped: no control, invisible or tag character survives, and a
 * 100,000-character key costs a few hundred characters of diagnostics at most.
 */
import { describe, expect, it } from "vitest";
import { MAX_PATH_CHARS } from "../../runtime/contract/failure.js";
import { type Failure, mcpValidatorProvider, outputSchemaSha256 } from "../../runtime/index.js";
import { compile, goodRecord, recordTool } from "../runtime/fixture.js";

/** Tag characters spelling "ignore", a bidi override, a zero-width space, a NUL, an escape and a C1 control. */
const INVISIBLE = "\u{E0069}\u{E0067}\u{E006E}\u202E\u200B\u0000\u001B\u009B";
/** Whether a text holds anything that must not survive into diagnostic text (controls, invisible, tags, lone halves). */
function hasForbidden(text: string): boolean {
  return [...text].some((char) => {
    const point = char.codePointAt(0) as number;
    return (
      point < 0x20 ||
      (point >= 0x7f && point <= 0x9f) ||
      (point >= 0x200b && point <= 0x200f) ||
      (point >= 0x202a && point <= 0x202e) ||
      (point >= 0x2060 && point <= 0x206f) ||
      point === 0xfeff ||
      (point >= 0xd800 && point <= 0xdfff) ||
      (point >= 0xe0000 && point <= 0xe007f)
    );
  });
}

/** A schema whose values of any key must be numbers: the offending key lands in the instance path. */
const numbersOnly = { type: "object", additionalProperties: { type: "number" } } as const;
const validateNumbers = compile(numbersOnly);

const codePoints = (text: string) => [...text].length;

/** Every issue's instance path, checked bounded and clean. */
function expectSafePaths(outcome: Awaited<ReturnType<ReturnType<typeof recordTool>["admit"]>>): string[] {
  expect(outcome.ok).toBe(false);
  const paths = ((outcome as Failure).diagnostics.issues ?? []).map((issue) => issue.instancePath);
  expect(paths.length).toBeGreaterThan(0);
  for (const path of paths) {
    expect(codePoints(path)).toBeLessThanOrEqual(MAX_PATH_CHARS);
    expect(hasForbidden(path)).toBe(false);
  }
  return paths;
}

describe("instance paths in diagnostics", () => {
  it("a 256-character key is bounded (the issue's example), and a 100,000-character one costs no more", async () => {
    const tool = recordTool({ validateResult: validateNumbers as never });
    for (const length of [256, 100_000]) {
      const outcome = await tool.admit(JSON.stringify({ ["k".repeat(length)]: "not a number" }));
      const [path] = expectSafePaths(outcome);
      expect(path?.endsWith("…")).toBe(true);
    }
  });

  it("tag characters, bidi controls, NUL and C1 controls in a key are escaped, visibly", async () => {
    const tool = recordTool({ validateResult: validateNumbers as never });
    const outcome = await tool.admit(JSON.stringify({ [`a${INVISIBLE}b`]: "x" }));
    const [path] = expectSafePaths(outcome);
    expect(path).toBe("/a\\u{E0069}\\u{E0067}\\u{E006E}\\u{202E}\\u{200B}\\u{0}\\u{1B}\\u{9B}b");
    // Two keys that differ only by an invisible character stay two different paths.
    const twin = await tool.admit(JSON.stringify({ "a\u200Bb": "x", ab: "y" }));
    expect(new Set(expectSafePaths(twin)).size).toBe(2);
  });

  it("a semantic hook's path built from the data's keys is bounded and escaped the same way", async () => {
    const key = `${INVISIBLE}${"z".repeat(5000)}`;
    const tool = recordTool();
    const outcome = await tool.admit(JSON.stringify(goodRecord()), {
      hooks: { semantic: () => ({ path: `/${key}`, rule: "tenant" }) },
    });
    expectSafePaths(outcome);
  });
});

describe("mcpValidatorProvider's message, which the SDK rethrows as the McpError message", () => {
  const provider = mcpValidatorProvider({ [outputSchemaSha256(numbersOnly) as string]: validateNumbers as never });
  const validate = provider.getValidator(numbersOnly);

  it("five 20,000-character keys with tag characters: 100,108 characters before, a bounded clean line now", () => {
    const keys = Array.from({ length: 5 }, (_, i) => `${INVISIBLE}${String(i).repeat(20_000)}`);
    const result = validate(Object.fromEntries(keys.map((key) => [key, "x"])));
    expect(result.valid).toBe(false);
    const message = result.errorMessage as string;
    expect(message.length).toBeLessThan(5 * (MAX_PATH_CHARS * 12 + 20) + 100);
    expect(hasForbidden(message)).toBe(false);
    expect(message.startsWith("does not match the contract at /")).toBe(true);
  });

  it("many errors are counted, not listed; a short path is shown as it is", () => {
    const many = validate(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "x"])));
    // Ajv stops at the first error unless allErrors; either way the message stays a single bounded line.
    expect(many.errorMessage).toMatch(/^does not match the contract at \/k\d+ \(type\)/);
    expect(many.errorMessage?.length ?? 0).toBeLessThan(1000);
  });

  it("a validator that throws on hostile nesting is a refusal, not an exception through the SDK", () => {
    const throwing = Object.assign(
      (_: unknown): _ is never => {
        throw new RangeError("Maximum call stack size exceeded");
      },
      { errors: null },
    );
    const deepProvider = mcpValidatorProvider({ [outputSchemaSha256(numbersOnly) as string]: throwing });
    const result = deepProvider.getValidator(numbersOnly)({});
    expect(result.valid).toBe(false);
  });
});
