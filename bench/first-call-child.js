/**
 * One first call, in a fresh process: `node bench/first-call-child.js <toolgate | sdk> <first-call.json>`.
 *
 * The input is read first; the clock starts right after, before the first import of anything measured, and stops
 * when the first result has been admitted (toolgate: the generated adapter imported, `admit` of the MCP result) or
 * validated (the SDK client's way: an `AjvJsonSchemaValidator` constructed, every listed tool's output schema
 * compiled, the result's structured content validated). Prints one JSON line: the time, and whether it passed.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [contender, inputFile] = process.argv.slice(2);
const { adapter: adapterFile, tool, result, schemas } = JSON.parse(readFileSync(inputFile, "utf8"));

const start = performance.now();
let report;
if (contender === "toolgate") {
  const module = await import(pathToFileURL(adapterFile).href);
  const adapter = Object.values(module).find((value) => value?.name === tool);
  const outcome = await adapter.admit(result);
  report = outcome.ok
    ? { ok: true, exact: outcome.contextUsed.exact ?? true }
    : { ok: false, code: outcome.error.code };
} else {
  const { AjvJsonSchemaValidator } = await import("@modelcontextprotocol/sdk/validation/ajv");
  const provider = new AjvJsonSchemaValidator();
  const validators = schemas.map((schema) => provider.getValidator(schema));
  const verdict = validators[0](result.structuredContent);
  report = verdict.valid ? { ok: true } : { ok: false, code: "invalid" };
}
const totalMs = performance.now() - start;
process.stdout.write(`${JSON.stringify({ ...report, totalMs })}\n`);
