/**
 * Generated files show every character a contract put in them: a bidi control, an invisible character or a tag
 * character in a tool name, a description, an enum value, a property name or a pattern is written as an escape in
 * every file (adapters, types, views, validators, the catalog and the lock), so a reviewed diff cannot be reordered
 * or hide text ("Trojan Source"). The escapes mean the same characters: the generated validator still accepts the
 * value with the bidi control and refuses the one without it, the code type-checks, and `--check` reads the lock back.
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { spellHidden } from "../../generator/schema/visible.js";
import { toolgate } from "../cli.js";
import { adaptersOf, generateInto, typeCheck, writeContracts } from "./scratch.js";

/** Raw characters that must not appear in generated text. */
const RAW_HIDDEN = /[\u0080-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{E0000}-\u{E007F}]/u;
const TAG_A = String.fromCodePoint(0xe0041);

const value = `admin\u202E\u2066txt${TAG_A}`;

const contract = {
  name: "bidi_tool",
  description: `Reads a record.\u202E hidden \u2067 text${TAG_A}`,
  inputSchema: { type: "object", properties: { "id\u200B": { type: "string", maxLength: 10 } } },
  outputSchema: {
    type: "object",
    properties: {
      role: { enum: [value, "user"] },
      "note\u202D": { type: "string", maxLength: 40, pattern: "^[^\u202E]*$" },
    },
    required: ["role"],
    additionalProperties: false,
  },
  "x-toolgate": { context: { unit: "bytes", max: 4000 } },
};

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe("generated files hide nothing", () => {
  it("write every hidden character of a contract as an escape, and mean the same", async () => {
    const schemas = await writeContracts("visible-output", { "bidi.tool.json": contract });
    const folder = await generateInto(schemas);
    const files = await filesUnder(folder.out);
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = await readFile(file, "utf8");
      expect(RAW_HIDDEN.test(text), path.relative(folder.out, file)).toBe(false);
      expect(text.includes(TAG_A), path.relative(folder.out, file)).toBe(false);
    }
    const validators = await readFile(path.join(folder.out, "validators.js"), "utf8");
    expect(validators).toContain("\\u202e");

    // The positive control: the escapes mean the characters they stand for.
    expect(await typeCheck(folder)).toBe("");
    const tool = (await adaptersOf(folder)).get("bidi_tool");
    const ok = await tool?.admit(JSON.stringify({ role: value }));
    expect(ok?.ok).toBe(true);
    const plain = await tool?.admit(JSON.stringify({ role: "admintxt" }));
    expect(plain?.ok === false && plain.error.code).toBe("schema_mismatch");
    const check = await toolgate("generate", "--check", "--schemas", schemas, "--out", folder.out);
    expect(check.code, check.err).toBe(0);
  });

  it("spells out only hidden characters, and leaves ordinary text alone", () => {
    expect(spellHidden("plain ASCII, é, 中文, 😀")).toBe("plain ASCII, é, 中文, 😀");
    expect(spellHidden(`"a\u202Eb"`)).toBe('"a\\u202eb"');
    expect(JSON.parse(spellHidden(JSON.stringify({ [value]: value })))).toEqual({ [value]: value });
  });
});
