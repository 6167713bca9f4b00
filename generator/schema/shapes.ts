/**
 * The shapes a contract's schemas take between the pipeline's stages.
 */

/** The JSON Schema dialects toolgate honours. A schema without `$schema` is 2020-12 (the MCP rule). */
export type Dialect = "2020-12" | "2019-09" | "draft-07";

/** A JSON Schema: an object, or a boolean schema. */
export type JsonSchema = boolean | SchemaObject;

/** A schema object: keywords by name. */
export interface SchemaObject {
  [keyword: string]: unknown;
}

/**
 * One schema of a contract (the output schema or the input schema) with everything it references loaded.
 * Produced by the resolve stage; the validator template reads `root` + `documents`, the types template `bundled`.
 */
export interface ResolvedSchema {
  dialect: Dialect;
  /** The schema exactly as written in the contract. */
  root: JsonSchema;
  /** The absolute URI the root is known by (its `$id`, or a file URI for the contract plus its pointer). */
  baseUri: string;
  /** Every other document the root references, by absolute URI (no fragment), as loaded. */
  documents: Record<string, JsonSchema>;
  /**
   * One self-contained copy of the schema: every `$ref` is a `#/…` JSON pointer into this copy, `#anchor` and
   * `$id`-relative references rewritten, and other documents' targets copied under `$defs`.
   * `$id`, `$anchor` and `$schema` inside it are informational only.
   */
  bundled: JsonSchema;
  /**
   * The local files read to resolve it, by absolute path (sorted), each with the hash of the content parsed
   * (`inputHashOf`): what the lock's record keeps, so `--check` can tell when one changed.
   */
  files?: Readonly<Record<string, string>> | undefined;
  /** The JSON pointer of the root inside the contract file (`/outputSchema` or `/inputSchema`). */
  pointer: string;
  /**
   * What the user should know of how the schema was read, each at its pointer in the contract file (a schema
   * without `$schema` read as draft-07 for its tuple form). Never a reason to refuse it.
   */
  warnings?: ReadonlyArray<{ pointer: string; message: string }> | undefined;
}
