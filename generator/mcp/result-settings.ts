/**
 * How `import` gates a tool by what its definition says of its results (`x-toolgate.result`):
 *
 * - with an `outputSchema`: `structured`, the schema as the server wrote it;
 * - without one: `text` (the text blocks, as prose the model reads), or `json_text` when the user says the tool
 *   answers with JSON (`--json-text NAME`), with an output schema of the user's own that starts empty (`{}`). The
 *   import does not call tools, so it cannot tell JSON from prose by a sample: the user says so.
 *
 * Every contract import writes allows each kind of MCP content block (text, images, audio, resource links, embedded
 * resources) under the design's default bounds, since a definition does not say which blocks a tool sends; the
 * import's report says what to tighten. A contract the user already has keeps its own block (`--force` too).
 */
import { refineSchema, refines } from "../contract/refine.js";
import { CONTENT_DEFAULTS, DEFAULTS, type ResultKind } from "../contract/x-toolgate.js";
import { isSchemaObject } from "../schema/guards.js";
import type { ResolvedSchema, SchemaObject } from "../schema/shapes.js";

/**
 * The content rules written into an imported contract: every kind of block, each under its default bound. Embedded
 * resources of any text or application type (a server's gzip file is `application/gzip`): never resolved, their
 * bytes bounded.
 */
export function importedContent(): SchemaObject {
  const d = CONTENT_DEFAULTS;
  return {
    maxBlocks: d.maxBlocks,
    text: { maxCount: d.text.maxCount },
    image: { mimeTypes: [...d.image.mimeTypes], maxBytes: d.image.maxBytes, maxCount: d.image.maxCount },
    audio: { mimeTypes: [...d.audio.mimeTypes], maxBytes: d.audio.maxBytes, maxCount: d.audio.maxCount },
    resourceLink: { maxCount: d.resourceLink.maxCount },
    resource: { mimeTypes: ["text/*", "application/*"], maxBytes: d.resource.maxBytes, maxCount: d.resource.maxCount },
  };
}

/** The `result` block of a new contract of this kind (the kind left to its default when it is `structured`). */
export function importedResult(kind: ResultKind): SchemaObject {
  return kind === "structured" ? { content: importedContent() } : { kind, content: importedContent() };
}

/** What the report says of a tool gated as text or JSON in text, for the user to tighten. */
export function kindNote(kind: ResultKind, ceiling: number | undefined): string | undefined {
  const bytes = ceiling === undefined ? "its receive ceiling" : `receive.maxBytes ${ceiling}`;
  if (kind === "text") {
    return (
      `no outputSchema: gated as text (result.kind "text": ${bytes}, at most ${DEFAULTS.text.maxLines} lines, the ` +
      `default context budget of ${DEFAULTS.context.max} tokens, any kind of content block): tighten ` +
      "receive.maxBytes and x-toolgate.result.content to what the tool sends, or pass --json-text NAME if it answers with JSON"
    );
  }
  if (kind === "json_text") {
    return (
      'no outputSchema: gated as JSON in its first text block (result.kind "json_text"): write the shape of that ' +
      "JSON in outputSchema, which is yours (the server advertises none, and re-import keeps it); until then any JSON is accepted"
    );
  }
  return undefined;
}

/** The kind a contract's kept `x-toolgate` block declares, if any. */
export function keptKind(settings: SchemaObject | undefined): unknown {
  const result = settings === undefined ? undefined : settings.result;
  return isSchemaObject(result) ? result.kind : undefined;
}

/**
 * A kept block whose kind no longer fits the definition (a text contract whose server now advertises an output
 * schema): the kind is dropped, so the contract is `structured` by default. Pure; `undefined` when it fits.
 */
export function refitKind(settings: SchemaObject, declaresSchema: boolean): SchemaObject | undefined {
  const kind = keptKind(settings);
  if (!declaresSchema || (kind !== "text" && kind !== "content")) return undefined;
  const result = { ...(settings.result as SchemaObject) };
  delete result.kind;
  const out: SchemaObject = {};
  for (const key of Object.keys(settings)) {
    Object.defineProperty(out, key, {
      value: key === "result" ? result : settings[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** A definition without its `x-toolgate` block, for the shape check (a copy; `definition` itself is not changed). */
export function withoutSettings(definition: unknown): unknown {
  if (!isSchemaObject(definition) || !Object.hasOwn(definition, "x-toolgate")) return definition;
  const copy: SchemaObject = {};
  for (const key of Object.keys(definition)) {
    if (key === "x-toolgate") continue;
    Object.defineProperty(copy, key, { value: definition[key], enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** The definition with an output schema of the user's own: the kept one, else an empty schema. */
export function withOutputSchema(definition: SchemaObject, kept: unknown): SchemaObject {
  const copy: SchemaObject = {};
  for (const key of Object.keys(definition)) {
    Object.defineProperty(copy, key, { value: definition[key], enumerable: true, writable: true, configurable: true });
  }
  copy.outputSchema = kept ?? {};
  return copy;
}

/** The output schema of an existing contract's text, when it has one. */
export function outputSchemaOf(text: string): unknown {
  try {
    const document = JSON.parse(text) as unknown;
    return isSchemaObject(document) ? document.outputSchema : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The output schema as the kept block's `refine` narrows it, for the bounds the report lists: what is bounded there
 * is bounded for the gate. A refinement the generator would refuse is left to `toolgate generate` to report.
 */
export function refinedBy(resolved: ResolvedSchema, kept: SchemaObject | undefined, file: string): ResolvedSchema {
  const refine = kept?.refine;
  if (!isSchemaObject(refine) || !refines(refine)) return resolved;
  const formats = kept?.formats === "assert" ? "assert" : "annotate";
  try {
    return refineSchema(resolved, refine as Record<string, Record<string, unknown>>, { file, formats });
  } catch {
    return resolved;
  }
}

/** How one definition is gated, and what the report says of it. */
export interface Gated {
  kind: ResultKind;
  /** The definition as written into the contract: a `json_text` one carries the user's output schema. */
  definition: SchemaObject;
  /** The kept `x-toolgate` block, its kind dropped when it no longer fits; absent for a new contract. */
  kept: SchemaObject | undefined;
  notes: string[];
}

/**
 * The kind a served definition is gated as: `structured` with an output schema; without one `json_text` when the
 * user named the tool (`--json-text`) or its contract already says so, else `text`. A JSON-in-text contract keeps
 * the output schema of the existing contract (it is the user's), else starts with an empty one.
 * @param previous the existing contract's text; `kept` its `x-toolgate` block
 */
export function gateDefinition(
  served: SchemaObject,
  previous: string | undefined,
  kept: SchemaObject | undefined,
  named: boolean,
): Gated {
  const notes: string[] = [];
  const declaresSchema = served.outputSchema !== undefined;
  if (declaresSchema && named) {
    notes.push(
      "--json-text ignored: the server advertises an outputSchema, so the tool answers with structured content",
    );
  }
  const wantsJson = named || keptKind(kept) === "json_text";
  const kind: ResultKind = declaresSchema ? "structured" : wantsJson ? "json_text" : "text";
  const definition =
    kind === "json_text"
      ? withOutputSchema(served, previous === undefined ? undefined : outputSchemaOf(previous))
      : served;
  const refitted = kept === undefined ? undefined : refitKind(kept, declaresSchema);
  if (refitted !== undefined) {
    notes.push(
      "the server now advertises an outputSchema: the kept result.kind was dropped, so the tool is gated as structured",
    );
  }
  return { kind, definition, kept: refitted ?? kept, notes };
}
