/**
 * `toolgate/runtime/formats`: the format checks generated validators call where a contract asserts `format`.
 * An entry of its own, so validators that only annotate formats (the 2020-12 default) never load them.
 */
import { fullFormats } from "ajv-formats/dist/formats.js";

/** The format checks (ajv-formats' full set), keyed by format name. */
export const formatValidators = fullFormats;
