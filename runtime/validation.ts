/**
 * The helpers precompiled validators call at run time, in place of the modules Ajv's standalone code would
 * `require`: deep equality for `const`, `enum` and `uniqueItems`, string length in code points for
 * `minLength`/`maxLength`, and the format checks. None of them needs Ajv's compiler.
 *
 * Generated code imports them from their own light entries (`toolgate/runtime/validators` and
 * `toolgate/runtime/formats`); this module gathers them for `toolgate/runtime`.
 */
export { formatValidators } from "./formats.js";
export { jsonEqual } from "./validators.js";
