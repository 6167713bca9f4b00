/**
 * The injection table through the whole generator: every row's contract generates, the output type-checks under
 * strict, the generated validators judge values with those names and values exactly as Ajv does when it compiles
 * the same schema at run time, and the view keeps the hostile keys.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { HOSTILE_ROWS, hostileContract, hostileInstances, rowNames } from "./injection.js";
import {
  type AnyAdapter,
  adaptersOf,
  type GeneratedFolder,
  generateInto,
  importGenerated,
  typeCheck,
  writeContracts,
} from "./scratch.js";

type Validator = ((value: unknown) => boolean) & { errors?: unknown };

let folder: GeneratedFolder;
let adapters: Map<string, AnyAdapter>;
const contracts = HOSTILE_ROWS.map(([, text], index) => hostileContract(index, text));

beforeAll(async () => {
  const files = Object.fromEntries(contracts.map((contract, index) => [`row${index}.tool.json`, contract]));
  folder = await generateInto(await writeContracts("injection", files));
  adapters = await adaptersOf(folder);
});

describe("the injection table", () => {
  it("generates a tool for every row", () => {
    expect(folder.result.tools.map((tool) => tool.tool).sort()).toEqual(
      contracts.map((contract) => contract.name as string).sort(),
    );
  });

  /** tsc's report for the folder, one line per error (computed once: tsc takes seconds). */
  let report: Promise<string[]> | undefined;
  const errors = () => {
    report ??= typeCheck(folder).then((text) => text.split("\n").filter((line) => line.includes("error TS")));
    return report;
  };
  // A view plan property named like an Object.prototype member (`constructor`) gets no contextual type from
  // TypeScript; templates/view.ts writes `satisfies ViewPlan` after it, so it type-checks like every other row.
  it("type-checks under strict", async () => {
    expect(await errors()).toEqual([]);
  });

  describe.each(HOSTILE_ROWS.map(([label, text], index) => [label, text, index] as const))(
    "%s",
    (_label, text, index) => {
      const tool = `injection_${index}`;
      const contract = contracts[index] as { outputSchema: object; inputSchema: object };

      it("the generated validators judge every instance as run-time Ajv does", async () => {
        const summary = folder.result.tools.find((t) => t.tool === tool);
        const generated = await importGenerated<{ validateResult: Validator; validateInput: Validator }>(
          folder,
          `${summary?.folder}/validate.js`,
        );
        // With own-property semantics, as the generator documents: `constructor` is not found on the prototype.
        const ajv = new Ajv2020({ strict: false, ownProperties: true });
        const runtimeResult = ajv.compile(contract.outputSchema);
        const runtimeInput = ajv.compile(contract.inputSchema);
        for (const { label, value, valid } of hostileInstances(text)) {
          const verdicts = {
            label,
            result: generated.validateResult(value),
            input: generated.validateInput(value),
          };
          expect(verdicts).toEqual({ label, result: runtimeResult(value), input: runtimeInput(value) });
          // The input schema does not require the $ref'd field; the output schema does.
          expect(verdicts.result, label).toBe(valid);
        }
      });

      it("the view keeps the hostile keys, and the tool keeps its name and version", async () => {
        const adapter = adapters.get(tool) as AnyAdapter;
        const names = rowNames(text);
        const [valid] = hostileInstances(text);
        const outcome = await adapter.admit(JSON.stringify(valid?.value));
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        const view = outcome.view as Record<string, unknown>;
        expect(Object.keys(view).sort()).toEqual([names.ref, names.enumKey, names.constKey, names.patternKey].sort());
        expect(Object.getPrototypeOf(view)).toBe(Object.prototype);
        // Values keep their meaning; text hygiene may only drop control and invisible characters.
        // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what hygiene may drop.
        const visible = (value: unknown) => String(value).replace(/[\u0000-\u001f\u2028\u2029]/g, "");
        expect(visible(view[names.enumKey])).toBe(visible(text));
        expect(visible(view[names.constKey])).toBe(visible(text));
        expect(outcome.provenance.tool).toBe(tool);
        expect(outcome.provenance.contractVersion).toBe(`v${text}`);
        expect(adapter.spec.contract.version).toBe(`v${text}`);
      });
    },
  );
});
