/**
 * The validator stage's output as tests read it: one ESM module body (no header) exporting each requested
 * validator, or the stage's refusals. The generator itself compiles with `compileValidators` and assembles the
 * modules it writes; tests that want one module per request build it here the same way.
 */
import {
  assembleModule,
  compileValidators,
  type Refusal,
  type ValidatorRequest,
} from "../../../generator/validator/index.js";

/** One module body exporting each requested validator; or the reasons the generator refuses. */
export function emitValidators(requests: ValidatorRequest[]): { code: string } | { refusals: Refusal[] } {
  const compiled = compileValidators(requests);
  if ("refusals" in compiled) return compiled;
  return { code: assembleModule(compiled.validators) };
}
