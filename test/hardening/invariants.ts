/**
 * The gate's invariants, checked on one payload at a time, for the property tests (`npm test`) and the long fuzz
 * run (`npm run fuzz`):
 *
 * 1. `admit` never throws, and returns exactly one outcome with exactly one event.
 * 2. An `ok` outcome's data is valid for two independent validators compiled at run time: Ajv and
 *    @cfworker/json-schema; and it is exactly what `JSON.parse` makes of the payload's text.
 * 3. A failure leaves no trace of the raw payload in `toModelContent`, in its message or in the events, but a
 *    `tool_error`'s own words in their one `<tool_message>` line (cleaned, bounded, escaped JSON); and no outcome
 *    shows anything a hostile raw value's code threw (`HOSTILE_MARKER`), anywhere.
 * 4. The rendered view never exceeds the context budget and never holds a key the output schema does not declare,
 *    nor one the contract omits.
 * 5. For text and content results (`kinds.ts`): `data` is the text sent, or the admitted blocks, within their
 *    rules; the model reads no media data, no invisible or control character and no link whose scheme runs code;
 *    `toModelParts` hands on exactly the admitted media; no event of a success holds payload text.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Validator } from "@cfworker/json-schema";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { isSchemaObject } from "../../generator/schema/guards.js";
import type { JsonSchema, SchemaObject } from "../../generator/schema/shapes.js";
import { subschemas, valueAt } from "../../generator/schema/walk.js";
import {
  FAILURE_CODES,
  type GateEvent,
  MemorySpillStore,
  markupSafeJson,
  measureText,
  type Outcome,
  toModelContent,
  toModelParts,
} from "../../runtime/index.js";
import { hasInvisible } from "../../runtime/text/hygiene.js";
import { HOSTILE_MARKER, TOOL_TEXT } from "./hostile-raw.js";
import { type KindUnderTest, kindSuccessViolations } from "./kinds.js";
import { MARKER, type Payload } from "./payloads.js";
import { type AnyAdapter, adaptersOf, generateInto, REPO } from "./scratch.js";

/** One example contract, generated, with everything the invariants compare against. */
export interface ContractUnderTest {
  tool: string;
  adapter: AnyAdapter;
  /** The output schema as the contract writes it. */
  schema: JsonSchema;
  /** `/internalNotes`-style pointers the view must never hold (`*` for any array index). */
  omit: Set<string>;
  /** Run-time Ajv, compiled from the contract's output schema here and now. */
  ajv: ValidateFunction;
  /** @cfworker/json-schema, a second, independent implementation. */
  cfworker: Validator;
}

/**
 * Generate `schemas/` into `.tmp/hardening/examples/` and load each tool with its reference validators. `npm run
 * fuzz` runs one process per contract at once, each with its own `FUZZ_TOOLS`: each generates into a folder of its
 * own, since one process replacing the output while another writes it would pull the folder from under it.
 */
export async function loadExampleContracts(): Promise<ContractUnderTest[]> {
  const only = process.env.FUZZ_TOOLS?.replace(/[^A-Za-z0-9_-]/g, "_");
  const folder = await generateInto(path.join(REPO, "schemas"), only === undefined ? "examples" : `examples-${only}`);
  const adapters = await adaptersOf(folder);
  const contracts: ContractUnderTest[] = [];
  for (const summary of folder.result.tools) {
    const contract = JSON.parse(await readFile(path.resolve(REPO, summary.file), "utf8"));
    const schema = contract.outputSchema as JsonSchema;
    const settings = contract["x-toolgate"] ?? {};
    const assertFormats = settings.formats === "assert";
    const draft07 = isSchemaObject(schema) && String(schema.$schema ?? "").includes("draft-07");
    const ajvInstance = draft07
      ? new Ajv({ strict: false, validateFormats: assertFormats })
      : new Ajv2020({ strict: false, validateFormats: assertFormats });
    if (assertFormats) addFormats.default(ajvInstance);
    contracts.push({
      tool: summary.tool,
      adapter: adapters.get(summary.tool) as AnyAdapter,
      schema,
      omit: new Set<string>(settings.view?.omit ?? []),
      ajv: ajvInstance.compile(schema as object),
      // cfworker always asserts `format`; where the contract keeps formats as annotations, they are taken out.
      cfworker: new Validator(
        (assertFormats ? schema : withoutFormats(schema)) as object,
        draft07 ? "7" : "2020-12",
        true,
      ),
    });
  }
  return contracts;
}

/** A copy of a schema without its `format` keywords (property names called `format` stay). */
function withoutFormats(schema: JsonSchema): JsonSchema {
  const copy = structuredClone(schema);
  for (const visit of subschemas(copy)) if (isSchemaObject(visit.schema)) delete visit.schema.format;
  return copy;
}

/** What one payload did: the outcome's code (`ok`, `ok_spill`… or the failure code), and every invariant it broke. */
export interface Verdict {
  code: string;
  violations: string[];
}

/** What a successful outcome is checked for beyond the invariants every outcome keeps. */
type SuccessCheck = (outcome: Extract<Outcome<unknown, unknown>, { ok: true }>, content: string) => Promise<string[]>;

/** Admit one payload and report its outcome code and every invariant it breaks. */
export async function judgePayload(contract: ContractUnderTest, payload: Payload): Promise<Verdict> {
  return judgeWith(contract.adapter, payload, (outcome, content) =>
    successViolations(contract, payload, outcome, content),
  );
}

/**
 * Admit one payload to a text or content tool and report its outcome code and every invariant it breaks: those of
 * every outcome, the budget on what the model reads, and the kind's own (`kindSuccessViolations`).
 */
export async function judgeKindPayload(subject: KindUnderTest, payload: Payload): Promise<Verdict> {
  return judgeWith(subject.adapter, payload, async (outcome, content) => {
    const violations = kindSuccessViolations(subject, payload, outcome, content, toModelParts(outcome));
    violations.push(...(await budgetViolations(subject.adapter, outcome, content)));
    return violations;
  });
}

async function judgeWith(adapter: AnyAdapter, payload: Payload, check: SuccessCheck): Promise<Verdict> {
  let code = "threw";
  const violations = await violationsOf(
    adapter,
    payload,
    (outcome) => {
      code = outcome.ok ? (outcome.policy === undefined ? "ok" : `ok_${outcome.policy}`) : outcome.error.code;
    },
    check,
  );
  return { code, violations };
}

/** Admit one payload and return every invariant it breaks (empty when none). */
async function violationsOf(
  adapter: AnyAdapter,
  payload: Payload,
  seen: (outcome: Outcome<unknown, unknown>) => void,
  check: SuccessCheck,
): Promise<string[]> {
  const events: GateEvent[] = [];
  let outcome: Outcome<unknown, unknown>;
  try {
    outcome = await adapter.admit(payload.make === undefined ? payload.raw : payload.make(), {
      sink: (event) => events.push(event),
      spillStore: new MemorySpillStore(),
      correlationId: "hardening",
    });
  } catch (error) {
    return [`admit threw: ${error instanceof Error ? error.message : String(error)}`];
  }
  const violations: string[] = [];
  if (events.length !== 1) violations.push(`${events.length} events for one admit`);
  if (outcome === null || typeof outcome !== "object" || typeof outcome.ok !== "boolean") {
    return [...violations, "admit resolved to something that is not an outcome"];
  }
  seen(outcome);
  if (events[0] !== undefined && events[0].code !== (outcome.ok ? "ok" : outcome.error.code)) {
    violations.push(`the event says ${events[0].code}, the outcome something else`);
  }
  const content = toModelContent(outcome);
  if (content.includes(HOSTILE_MARKER) || JSON.stringify({ outcome, events }).includes(HOSTILE_MARKER)) {
    violations.push("an outcome shows what a hostile raw value threw");
  }
  if (outcome.ok) {
    violations.push(...(await check(outcome, content)));
    if (JSON.stringify(events).includes(MARKER)) violations.push("an event holds payload text");
  } else {
    if (!FAILURE_CODES.includes(outcome.error.code)) violations.push(`unknown failure code ${outcome.error.code}`);
    const leaks = (text: string) => text.includes(MARKER) || text.includes(TOOL_TEXT);
    const shown = besideToolMessage(outcome, content);
    violations.push(...shown.problems);
    if (leaks(shown.rest)) violations.push("a failure's model content holds payload text");
    if (leaks(outcome.error.message)) violations.push("a failure's message holds payload text");
    if (leaks(JSON.stringify(events))) violations.push("a failure's event holds payload text");
  }
  return violations;
}

/**
 * A failure's model content without its `<tool_message>` line, the one place a `tool_error` shows the tool's own
 * words, and what is wrong with that line: anything but `modelMessage` as escaped JSON, between the failure's open
 * and close tags, cleaned and within the default 500 characters.
 */
export function besideToolMessage(
  outcome: Extract<Outcome<unknown, unknown>, { ok: false }>,
  content: string,
): { rest: string; problems: string[] } {
  const message = outcome.modelMessage;
  if (message === undefined) return { rest: content, problems: [] };
  const problems: string[] = [];
  if (outcome.error.code !== "tool_error") problems.push(`a ${outcome.error.code} failure shows a tool message`);
  if (hasInvisible(message)) problems.push("a tool message holds invisible characters");
  if ([...message].length > 500) problems.push("a tool message is over its bound");
  const lines = content.split("\n");
  const expected = `<tool_message>${markupSafeJson(message)}</tool_message>`;
  if (lines.length < 3 || lines[1] !== expected || lines.at(-1) !== "</tool_result>") {
    problems.push("a tool message is not one escaped line inside the failure");
  }
  return { rest: lines.filter((line) => line !== expected).join("\n"), problems };
}

async function successViolations(
  contract: ContractUnderTest,
  payload: Payload,
  outcome: Extract<Outcome<unknown, unknown>, { ok: true }>,
  content: string,
): Promise<string[]> {
  const violations: string[] = [];
  if (!contract.ajv(outcome.data)) violations.push("ok, but run-time Ajv finds the data invalid");
  if (!contract.cfworker.validate(outcome.data).valid)
    violations.push("ok, but @cfworker/json-schema finds it invalid");
  if (payload.text !== undefined && !sameJson(outcome.data, JSON.parse(payload.text))) {
    violations.push("ok, but the data is not what JSON.parse makes of the payload");
  }
  violations.push(...(await budgetViolations(contract.adapter, outcome, content)));
  for (const key of undeclaredKeys(outcome.view, contract.schema, contract.omit)) {
    violations.push(`the view holds an undeclared or omitted key at ${key}`);
  }
  return violations;
}

/** Nothing over budget reaches the model, and nothing inside closes the delimiter. */
async function budgetViolations(
  adapter: AnyAdapter,
  outcome: Extract<Outcome<unknown, unknown>, { ok: true }>,
  content: string,
): Promise<string[]> {
  const violations: string[] = [];
  const budget = adapter.spec.context;
  const measured = await measureText(content, budget);
  if (!measured.within) violations.push(`the rendered view is over its budget of ${budget.max} ${budget.unit}`);
  if (outcome.contextUsed.value > budget.max) violations.push("contextUsed is over the budget");
  if ((content.match(/<\/tool_result>/g) ?? []).length !== 1) violations.push("the delimiter closes more than once");
  return violations;
}

/** Deep equality of two JSON values, own keys only, `-0` equal to `0` as JSON has it. */
function sameJson(a: unknown, b: unknown): boolean {
  const stack: Array<[unknown, unknown]> = [[a, b]];
  for (let pair = stack.pop(); pair !== undefined; pair = stack.pop()) {
    const [x, y] = pair;
    if (x === y) continue;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    const xKeys = Object.keys(x);
    const yKeys = Object.keys(y);
    if (xKeys.length !== yKeys.length) return false;
    for (const key of xKeys) {
      if (!Object.hasOwn(y, key)) return false;
      stack.push([(x as Record<string, unknown>)[key], (y as Record<string, unknown>)[key]]);
    }
  }
  return true;
}

/** The schemas a value at one place may be checked against: `$ref`s followed, `anyOf`/`oneOf`/`allOf` opened. */
function candidates(nodes: readonly JsonSchema[], root: JsonSchema): SchemaObject[] {
  const found: SchemaObject[] = [];
  const stack = [...nodes];
  for (let node = stack.pop(), hops = 0; node !== undefined && hops < 10_000; node = stack.pop(), hops++) {
    if (!isSchemaObject(node)) continue;
    found.push(node);
    if (typeof node.$ref === "string") stack.push(valueAt(root, decodeURIComponent(node.$ref.slice(1))) as JsonSchema);
    for (const keyword of ["anyOf", "oneOf", "allOf"]) {
      const branches = node[keyword];
      if (Array.isArray(branches)) stack.push(...(branches as JsonSchema[]));
    }
  }
  return found;
}

/**
 * Every place in a view holding an object key that the output schema does not declare under `properties` at that
 * place, or that the contract's `view.omit` names. Independent of the view plan: read from the contract itself.
 */
export function undeclaredKeys(view: unknown, schema: JsonSchema, omit: ReadonlySet<string>): string[] {
  const bad: string[] = [];
  const stack: Array<{ value: unknown; nodes: JsonSchema[]; pointer: string; pattern: string }> = [
    { value: view, nodes: [schema], pointer: "", pattern: "" },
  ];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, pointer, pattern } = item;
    if (value === null || typeof value !== "object") continue;
    const here = candidates(item.nodes, schema);
    if (Array.isArray(value)) {
      value.forEach((child, index) => {
        const nodes = here.flatMap((node) => {
          const prefix = Array.isArray(node.prefixItems) ? (node.prefixItems as JsonSchema[]) : [];
          const items = node.items as JsonSchema | JsonSchema[] | undefined;
          if (index < prefix.length) return [prefix[index] as JsonSchema];
          if (Array.isArray(items)) return items[index] === undefined ? [] : [items[index] as JsonSchema];
          return items === undefined ? [] : [items];
        });
        stack.push({ value: child, nodes, pointer: `${pointer}/${index}`, pattern: `${pattern}/*` });
      });
      continue;
    }
    for (const key of Object.keys(value)) {
      const token = key.replaceAll("~", "~0").replaceAll("/", "~1");
      const owners = here.filter((node) => isSchemaObject(node.properties) && Object.hasOwn(node.properties, key));
      if (owners.length === 0 || omit.has(`${pattern}/${token}`)) {
        bad.push(`${pointer}/${token}`);
        continue;
      }
      stack.push({
        value: (value as Record<string, unknown>)[key],
        nodes: owners.map((node) => (node.properties as SchemaObject)[key] as JsonSchema),
        pointer: `${pointer}/${token}`,
        pattern: `${pattern}/${token}`,
      });
    }
  }
  return bad;
}
