/**
 * Differential fuzzing: the generated standalone validators against Ajv compiling the same schema at run time with
 * the generator's options, on mutated instances of the official JSON Schema Test Suite's cases (2020-12).
 *
 * The suite's own cases are checked by `test/conformance/`; here each case's data is mutated (parts removed,
 * replaced, repeated, wrapped, numbers shifted to the edges of precision, strings extended with combining marks,
 * lone surrogates and NUL, and pieces of the sibling cases put in), so the two implementations meet values nobody
 * wrote a test for. Any disagreement fails, with the group, the case and the mutations.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { SchemaObject } from "../../generator/schema/shapes.js";
import { compilerFor, type FormatMode } from "../../generator/validator/compiler.js";
import type { ValidatorRequest } from "../../generator/validator/index.js";
import { loadGroups, type SuiteGroup, suiteFiles } from "../conformance/suite.js";
import { emitValidators } from "../generator/validator/emit-module.js";
import { generatedValidator, resolved } from "../generator/validator/load.js";
import { ensureRuntimeBuilt } from "../mcp/fixture-catalog.js";
import { mutatedValue, type ValueMutation } from "./payloads.js";
import { SCRATCH } from "./scratch.js";

/** Mutated instances per suite case (the suite has 1,299 cases in its main folder). */
const MUTATIONS_PER_CASE = Number(process.env.FUZZ_DIFFERENTIAL ?? 40);
const WORK = path.join(SCRATCH, "differential");

type Validate = (data: unknown) => boolean;

/**
 * Run-time Ajv compares `const`, `enum` and `uniqueItems` with fast-deep-equal, which calls a value's own
 * `toString` and `valueOf` when they are not Object.prototype's, so a payload with such keys makes it throw. The
 * generated validators compare with the runtime's own `jsonEqual` and answer; that case is tested on its own below,
 * and those keys are left out of the differential run.
 */
const withoutMethodKeys = (mutation: ValueMutation) => !/ (toString|valueOf)$/.test(mutation.name);

/** A group both sides can judge: the generated validator and Ajv at run time. */
interface Judged {
  group: SuiteGroup;
  generated: Validate;
  runtime: Validate;
}

/** A verdict, or the error's name when the validator threw (stack overflow on deep values, say). */
function verdict(validate: Validate, data: unknown): boolean | string {
  try {
    return validate(data);
  } catch (error) {
    return `threw ${(error as Error).name}`;
  }
}

/** Every group of some suite files that the validator stage accepts, with both validators. */
async function judgedGroups(files: string[], formats: FormatMode): Promise<{ judged: Judged[]; refused: number }> {
  const judged: Judged[] = [];
  let refused = 0;
  for (const file of files) {
    const groups = loadGroups(file);
    const request = (group: SuiteGroup): ValidatorRequest => ({
      exportName: `group${group.index}`,
      schema: group.schema,
      formats,
    });
    const accepted = groups.filter((group) => "code" in emitValidators([request(group)]));
    refused += groups.length - accepted.length;
    if (accepted.length === 0) continue;
    const emitted = emitValidators(accepted.map(request));
    if (!("code" in emitted)) throw new Error(`${file}: accepted groups refused together`);
    const target = path.join(WORK, formats, `${file.replace(/\.json$/, "")}.js`);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, emitted.code);
    const module = (await import(/* @vite-ignore */ pathToFileURL(target).href)) as Record<string, Validate>;
    for (const group of accepted) {
      const runtime = compilerFor(group.schema, formats).getSchema(group.schema.baseUri);
      const generated = module[`group${group.index}`];
      if (runtime === undefined || generated === undefined) throw new Error(`${file}#${group.index}: no validator`);
      judged.push({ group, generated, runtime: runtime as Validate });
    }
  }
  return { judged, refused };
}

describe.each([
  ["the main suite, formats annotating", "" as const, "annotate" as const],
  ["the format suite, formats asserted", "optional/format" as const, "assert" as const],
])("%s", (_label, folder, formats) => {
  let judged: Judged[] = [];

  beforeAll(async () => {
    await ensureRuntimeBuilt();
    ({ judged } = await judgedGroups(suiteFiles(folder), formats));
  });

  it("judges most groups (the rest are refused by the validator stage, tested in test/conformance)", () => {
    expect(judged.length).toBeGreaterThan(folder === "" ? 300 : 20);
  });

  it(`agrees with run-time Ajv on ${MUTATIONS_PER_CASE} mutations of every case`, { timeout: 600_000 }, () => {
    let compared = 0;
    for (const { group, generated, runtime } of judged) {
      const pieces = group.cases.map((c) => c.data);
      for (const [index, suiteCase] of group.cases.entries()) {
        fc.assert(
          fc.property(mutatedValue(suiteCase.data, pieces, withoutMethodKeys), ({ value, made }) => {
            compared += 1;
            const verdicts = { standalone: verdict(generated, value), runtime: verdict(runtime, value) };
            const where = `${group.file}#${group.index} (${group.description}), case ${index}, ${made.join(" + ")}`;
            expect({ where, ...verdicts }).toEqual({ where, standalone: verdicts.runtime, runtime: verdicts.runtime });
          }),
          // One seed per case, so a failure replays the same way on every machine.
          { numRuns: MUTATIONS_PER_CASE, seed: group.index * 1000 + index },
        );
      }
    }
    console.info(`${folder || "main"}: ${judged.length} groups, ${compared} mutated instances compared`);
    expect(compared).toBeGreaterThan(0);
  });
});

describe("where run-time Ajv's deep equality is fooled by keys a payload chooses", () => {
  const cases: Array<[string, SchemaObject, unknown, boolean]> = [
    ["an own toString key (run-time Ajv throws)", { const: { a: false } }, { a: false, toString: {} }, false],
    ["an own valueOf key (run-time Ajv throws)", { enum: [{ a: 1 }] }, { valueOf: 1 }, false],
    [
      "equal objects under a constructor key (run-time Ajv says unequal)",
      { const: { constructor: { x: 1 } } },
      { constructor: { x: 1 } },
      true,
    ],
  ];

  it.each(cases)("%s: the generated validator answers by JSON equality", async (_label, schema, raw, valid) => {
    const data = JSON.parse(JSON.stringify(raw));
    const generated = await generatedValidator(resolved(schema));
    expect(generated(data)).toBe(valid);
    const runtime = compilerFor(resolved(schema), "annotate").getSchema(resolved(schema).baseUri) as Validate;
    expect(verdict(runtime, data)).not.toBe(valid);
  });
});
