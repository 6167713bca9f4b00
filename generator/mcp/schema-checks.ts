/**
 * What `import` asks of a definition's schemas before it writes a contract: every check `generate` makes of them
 * before it emits code, with the same pointer and message, so that no contract import writes fails later.
 *
 * - the front stages (`contract/index.ts`: dialect, dialect misuse, references), then the kept overlays
 *   (`x-toolgate.refine`, `refineInput`);
 * - the safety stage (`checks/safety.ts`: patterns that backtrack, sizes past the limits, unknown asserted formats);
 * - the validator stage's refusals (`validator/index.ts`: what Ajv would validate wrongly, recursion that costs
 *   exponential time, a schema Ajv cannot compile), worded as `emit` words them;
 *
 * and the bounds check's findings and derived size bound for the output schema.
 */
import { checkBounds, type Finding } from "../checks/index.js";
import { checkSchemaSafety } from "../checks/safety.js";
import { ContractError, collectContractErrors } from "../contract/errors.js";
import { prepareSchema } from "../contract/index.js";
import { displayPath } from "../contract/load.js";
import { refineSchema, refines, replacementsOf } from "../contract/refine.js";
import { isSchemaObject } from "../schema/guards.js";
import type { JsonSchema, ResolvedSchema, SchemaObject } from "../schema/shapes.js";
import { compileValidators, type ValidatorRequest } from "../validator/index.js";

/** The output schema's bounds, or every reason the definition cannot become a contract. */
export type SchemaChecks =
  | { findings: Finding[]; maxBytes: number | null; bundled?: JsonSchema; warnings: string[] }
  | { reasons: string[] };

/**
 * Every check `generate` makes of a definition's schemas, as import reports it (`#pointer: message`), or the
 * output schema's bounds.
 * @param file where the contract will be written (absolute); references resolve from it
 * @param kept the `x-toolgate` block a re-import keeps, whose `refine` and `formats` generate will apply
 */
export async function checkSchemas(
  definition: SchemaObject,
  file: string,
  projectRoot: string,
  contractsFolder: string,
  kept: SchemaObject | undefined,
): Promise<SchemaChecks> {
  const shown = displayPath(file);
  const errors: ContractError[] = [];
  const formats = kept?.formats === "assert" ? "assert" : "annotate";
  const options = { projectRoot, remotes: [], roots: [contractsFolder] };
  const resolved: { outputSchema?: ResolvedSchema; inputSchema?: ResolvedSchema } = {};
  for (const key of ["outputSchema", "inputSchema"] as const) {
    const schema = definition[key] as JsonSchema | undefined;
    if (schema === undefined) continue;
    try {
      resolved[key] = await prepareSchema(schema, shown, file, `/${key}`, options);
    } catch (error) {
      collectContractErrors(errors, error);
    }
  }
  // The kept overlays, as generate will merge them (refine.ts): the output's, its replacements alone for the
  // advertised schema's validator, and the input's.
  const overlay = (
    schema: ResolvedSchema | undefined,
    refine: unknown,
    overlayName: "refine" | "refineInput",
    only?: (refine: Record<string, Record<string, unknown>>) => Record<string, Record<string, unknown>>,
  ): ResolvedSchema | undefined => {
    if (schema === undefined || !isSchemaObject(refine) || !refines(refine)) return schema;
    const keywords = refine as Record<string, Record<string, unknown>>;
    try {
      return refineSchema(schema, only === undefined ? keywords : only(keywords), {
        file: shown,
        formats,
        overlay: overlayName,
      });
    } catch (error) {
      collectContractErrors(errors, error);
      return schema;
    }
  };
  const result = overlay(resolved.outputSchema, kept?.refine, "refine");
  const advertised = overlay(resolved.outputSchema, kept?.refine, "refine", replacementsOf);
  const input = overlay(resolved.inputSchema, kept?.refineInput, "refineInput");
  if (errors.length === 0) {
    const schemas = [result, advertised === result ? undefined : advertised, input].filter(
      (schema) => schema !== undefined,
    );
    errors.push(...(await checkSchemaSafety({ file: shown, schemas, formats })));
  }
  if (errors.length === 0) errors.push(...validatorRefusals(shown, { result, advertised, input }, formats));
  if (errors.length > 0) return { reasons: errors.map((e) => `#${e.pointer}: ${e.message}`) };
  // What generate will warn of, worded as its errors are.
  const warnings = [result, resolved.inputSchema]
    .flatMap((schema) => schema?.warnings ?? [])
    .map((warning) => `#${warning.pointer}: ${warning.message}`);
  // A tool without an output schema (a text result) has nothing to bound: its ceiling is declared.
  if (result === undefined) return { findings: [], maxBytes: null, warnings };
  return { ...checkBounds(result.bundled, { dialect: result.dialect }), bundled: result.bundled, warnings };
}

/** What the validator stage refuses in the validators `generate` compiles, as `emit` reports it. */
function validatorRefusals(
  file: string,
  schemas: {
    result?: ResolvedSchema | undefined;
    advertised?: ResolvedSchema | undefined;
    input?: ResolvedSchema | undefined;
  },
  formats: "annotate" | "assert",
): ContractError[] {
  const { result, advertised, input } = schemas;
  const requests: ValidatorRequest[] = [];
  if (result !== undefined) requests.push({ exportName: "validateResult", schema: result, formats });
  if (advertised !== undefined && advertised !== result) {
    requests.push({ exportName: "validateAdvertised", schema: advertised, formats });
  }
  if (input !== undefined) requests.push({ exportName: "validateInput", schema: input, formats });
  const compiled = compileValidators(requests);
  if (!("refusals" in compiled)) return [];
  return compiled.refusals.map((refusal) => new ContractError(file, refusal.pointer, `refused: ${refusal.reason}`));
}
