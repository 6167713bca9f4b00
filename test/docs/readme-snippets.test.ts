/**
 * Every TypeScript block of the READMEs compiles, as a user would paste it beside the example `generated/` folder,
 * under `strict`, `noUncheckedIndexedAccess` and `exactOptionalPropertyTypes`. What a block leaves to the user (the
 * model client, the message list, the function that calls the tool) is declared once below, typed as the user's own
 * code would be.
 */
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../build.js";
import { checkSnippets, extractSnippets, readSnippets } from "./snippets.js";

const REPO = path.resolve(import.meta.dirname, "..", "..");
const DOCS = ["README.md", "runtime/README.md"];

/** The user's side of the examples: a script, so every name is global to the blocks. */
const PRELUDE = `
type Generated = typeof import("./generated/index.js");
type GetRecordInput = import("./generated/index.js").GetRecordInput;
type GetRecordResult = import("./generated/index.js").GetRecordResult;

/** One message of the conversation, as the user's model client takes it. */
interface Message {
  role: "user" | "assistant" | "tool";
  content: string;
  toolCallId?: string;
}
/** The user's model client: a reply is text, or one tool call with the arguments the model chose. */
declare const model: {
  respond(request: { messages: readonly Message[]; tools: readonly unknown[] }): Promise<{
    text?: string;
    toolCall?: { id: string; name: string; args: Record<string, unknown> };
  }>;
};
declare const messages: Message[];
/** The user's own transport for get_record: whatever it delivers goes to admit. */
declare function callTheTool(args: GetRecordInput): Promise<string>;
declare const argsFromModel: unknown;
declare const correlationId: string;
declare const url: string;
declare function use(record: GetRecordResult): void;
`;

// The blocks import the runtime as a user does, through its package's exports: its built declarations.
beforeAll(ensureBuilt);

describe("the README examples", () => {
  const snippets = readSnippets(REPO, DOCS);

  it("finds the blocks of both READMEs", () => {
    for (const file of DOCS) expect(snippets.filter((s) => s.file === file).length, file).toBeGreaterThan(0);
  });

  it("compile as a user's strict program against the example generated/ folder", () => {
    const findings = checkSnippets(REPO, snippets, PRELUDE);
    expect(findings.map((f) => `${f.where}: TS${f.code} ${f.message}`)).toEqual([]);
  });

  it("report a broken block at its line in the README", () => {
    const broken = extractSnippets(
      "README.md",
      [
        "# title",
        "",
        "```ts",
        'import { getRecord } from "./generated/index.js";',
        "const input = getRecord.checkInput({});",
        "const id: number = input.ok ? input.value.recordId : 0;",
        "```",
      ].join("\n"),
    );
    const findings = checkSnippets(REPO, broken, PRELUDE);
    expect(findings.map((f) => [f.where, f.code])).toEqual([["README.md:6", 2322]]);
  });
});
