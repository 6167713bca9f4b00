/**
 * The generated projector (`templates/projector.ts`) makes exactly the projection the runtime's interpreter
 * (`project`) makes. Invariant, for random view plans (every node kind, nested unions, keys that are members of
 * `Object.prototype`, need escaping in a pointer or are integer-like), random string bounds and random JSON values
 * (parsed from text, so `__proto__` is an own key, with keys drawn from the plans' own so values mostly fit them;
 * some of their objects given a null prototype, a prototype holding the plans' keys, or an own undefined member):
 * the same view (keys in the same order, the same prototypes), the same omissions in the same order, the same
 * media, the same `complete`. A projector emitted for a plan runs as the generated module does: TypeScript stripped
 * by esbuild, imported as a module that imports the built `@toolgate/runtime`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { tallyOf } from "@toolgate/runtime";
import { transform } from "esbuild";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { markupSafeJson, type Projection, project, type ViewPlan } from "../../runtime/index.js";
import { jsonBytes } from "../../runtime/stages/content-size.js";
import { literal } from "../../templates/code.js";
import { projector } from "../../templates/projector.js";

const WORK = path.resolve(".tmp", "projector-property", String(process.pid));

/** Keys of plans and values alike: ordinary, integer-like, needing pointer escapes, members of Object.prototype. */
const KEYS = [
  "a",
  "b",
  "title",
  "0",
  "10",
  "2",
  "a/b",
  "~x",
  "",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
];
const key = fc.constantFrom(...KEYS);
const bound = fc.constantFrom(-1, 0, 1, 3, 8, 70, 120);

const plans: fc.Arbitrary<ViewPlan> = fc.letrec<{ node: ViewPlan; leaf: ViewPlan }>((tie) => ({
  leaf: fc.oneof(
    fc.constant<ViewPlan>({ kind: "value" }),
    bound.map<ViewPlan>((max) => ({ kind: "value", max })),
    fc
      .record({ max: bound, overflow: fc.constantFrom("excerpt" as const, "omit" as const, "lines" as const) })
      .map<ViewPlan>(({ max, overflow }) => ({ kind: "string", max, overflow })),
    fc.constant<ViewPlan>({ kind: "any" }),
    fc.record({ max: bound, take: fc.integer({ min: 0, max: 3 }) }).map<ViewPlan>((any) => ({ kind: "any", ...any })),
    fc.constant<ViewPlan>({ kind: "media", form: "base64", mimeType: "image/png" }),
  ),
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("leaf"),
    fc
      .array(fc.tuple(key, tie("node")), { maxLength: 5 })
      .map<ViewPlan>((entries) => ({ kind: "object", properties: ownEntries(entries) })),
    fc
      .record({ items: tie("node"), take: fc.option(fc.integer({ min: -1, max: 4 }), { nil: undefined }) })
      .map<ViewPlan>(({ items, take }) =>
        take === undefined ? { kind: "array", items } : { kind: "array", items, take },
      ),
    fc.array(tie("node"), { minLength: 1, maxLength: 3 }).map<ViewPlan>((options) => ({ kind: "union", options })),
    fc
      .record({ items: fc.array(tie("node"), { maxLength: 2 }), rest: fc.option(tie("node"), { nil: undefined }) })
      .map<ViewPlan>(({ items, rest }) =>
        rest === undefined ? { kind: "tuple", items } : { kind: "tuple", items, rest },
      ),
    tie("leaf").map<ViewPlan>((otherwise) => ({ kind: "media", form: "block", otherwise })),
  ),
})).node;

/** An object of entries with every key its own (a `__proto__` key too), the last of a repeated key kept. */
function ownEntries<T>(entries: ReadonlyArray<readonly [string, T]>): Record<string, T> {
  const record: Record<string, T> = {};
  for (const [name, value] of entries) {
    Object.defineProperty(record, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return record;
}

/** Strings that clean, cut and break into lines differently: invisible characters, markup, emoji, newlines. */
const strings = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc
    .array(fc.constantFrom("word ", "\n", "line\n", "\u200B", "<b>", "é", "😀", "\u0007", "x".repeat(40)), {
      maxLength: 14,
    })
    .map((parts) => parts.join("")),
  fc.constantFrom("iVBORw0KGgo=", "AAAA", "not base64!"),
);

/** JSON text of values whose keys are the plans' keys. */
const jsonTexts: fc.Arbitrary<string> = fc.letrec<{ json: string }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    strings.map((s) => JSON.stringify(s)),
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })).map((n) => JSON.stringify(n)),
    fc.constantFrom("true", "false", "null"),
    fc.array(tie("json"), { maxLength: 5 }).map((items) => `[${items.join(",")}]`),
    fc
      .array(fc.tuple(key, tie("json")), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
    // An MCP image block, which a `media` block node lifts.
    fc.constant('{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}'),
  ),
})).json;

/**
 * A parsed value with some of its objects made into what `JSON.parse` never makes, by a seeded choice per object:
 * kept, given a null prototype, given a prototype that holds keys of the plans (`title`, `a`), or given an own
 * member that is undefined (`b`). A value `buildView` is called with directly may be any of these.
 */
function reshaped(value: unknown, seed: number): unknown {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % 5;
  };
  const inherited = { title: "inherited", a: 1 };
  const walk = (member: unknown): unknown => {
    if (Array.isArray(member)) return member.map(walk);
    if (member === null || typeof member !== "object") return member;
    const entries = Object.keys(member).map((name) => [name, walk((member as Record<string, unknown>)[name])] as const);
    const choice = next();
    const target: Record<string, unknown> =
      choice === 1 ? Object.create(null) : choice === 2 ? Object.create(inherited) : {};
    for (const [name, item] of entries) {
      Object.defineProperty(target, name, { value: item, enumerable: true, writable: true, configurable: true });
    }
    if (choice === 3) target.b = undefined;
    return target;
  };
  return walk(value);
}

let modules = 0;

/** The projector of `plan` as a module with its plan, written as `view.ts` writes them, loaded as generated code is. */
async function projectorOf(
  plan: ViewPlan,
  maxStringChars: number,
): Promise<{ buildView: (data: unknown) => Projection<unknown>; viewPlan: ViewPlan }> {
  const made = projector(plan, maxStringChars, "unknown");
  const source = `import { cleanText, finishView, LEFT_OUT, type Projection, project, startView, type ViewBuild, type ViewPlan, viewDefine, viewKeysFree, viewNode, viewPlanAt, viewString, viewText, viewValue } from "@toolgate/runtime";
export const viewPlan: ViewPlan = ${literal(plan as never).text};
export function buildView(data: unknown): Projection<unknown> {
${made.buildBody}
}
${made.declarations}
`;
  const { code } = await transform(source, { loader: "ts", format: "esm" });
  await mkdir(WORK, { recursive: true });
  const file = path.join(WORK, `projector-${++modules}.mjs`);
  await writeFile(file, code);
  // The module's own plan, written as `view.ts` writes it (keys sorted): the interpreter reads the same object.
  return import(pathToFileURL(file).href);
}

/**
 * A value described for an exact comparison: every object's prototype and own keys in order (an own `constructor`
 * key would defeat `toStrictEqual`, which compares constructors), `undefined` and `-0` told apart.
 */
function described(value: unknown): unknown {
  if (value === undefined) return "<undefined>";
  if (Object.is(value, -0)) return "<-0>";
  if (Array.isArray(value)) return { array: value.map(described) };
  if (value === null || typeof value !== "object") return value;
  const prototype = Object.getPrototypeOf(value);
  return {
    prototype: prototype === Object.prototype ? "Object" : prototype === null ? "null" : "other",
    entries: Object.keys(value).map((name) => [name, described((value as Record<string, unknown>)[name])]),
  };
}

afterEach(() => {
  // biome-ignore lint/suspicious/noExplicitAny: the test pollutes and restores the prototype on purpose.
  delete (Object.prototype as any).title;
});

/** How many of the random views the projector counted itself. */
let countedViews = 0;

describe("the generated projector", () => {
  it("makes the interpreter's projection of every value, for every plan", async () => {
    await fc.assert(
      fc.asyncProperty(
        plans,
        fc.constantFrom(0, 5, 40, 2000),
        fc.array(fc.tuple(jsonTexts, fc.integer({ min: 0, max: 2 ** 31 - 1 })), { minLength: 1, maxLength: 12 }),
        async (plan, maxStringChars, values) => {
          const { buildView, viewPlan } = await projectorOf(plan, maxStringChars);
          for (const [text, seed] of values) {
            const generated = buildView(reshaped(JSON.parse(text), seed));
            const interpreted = project(reshaped(JSON.parse(text), seed), viewPlan, { maxStringChars });
            expect(described(generated)).toEqual(described(interpreted));
            // What it counted of the view, when it vouches for the whole: the written view's bytes, exactly. Else
            // the walk counts, with the tally of the strings placed once it stopped counting.
            const tally = tallyOf(generated);
            const written = Buffer.byteLength(markupSafeJson(generated.view));
            if (tally?.viewBytes !== undefined) {
              countedViews++;
              expect(tally.viewBytes).toBe(written);
            } else {
              // The walk may give up (−1): the view is then written to be measured.
              const walked = jsonBytes(generated.view, tally);
              if (walked >= 0) expect(walked).toBe(written);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
    // Plans with nodes the interpreter places, and values that do not fit, are walked instead; the rest are counted.
    expect(countedViews).toBeGreaterThan(30);
  }, 120_000);

  it("counts an ordinary view as it places it, and leaves one the interpreter helped with to the walk", async () => {
    const plan: ViewPlan = {
      kind: "object",
      properties: ownEntries<ViewPlan>([
        ["title", { kind: "string", max: 80, overflow: "excerpt" }],
        ["a<b", { kind: "array", items: { kind: "value" }, take: 2 }],
        ["constructor", { kind: "value" }],
        ["body", { kind: "string", max: 4, overflow: "omit" }],
      ]),
    };
    const { buildView } = await projectorOf(plan, 2000);
    const data = JSON.parse('{"title":"Café \\"naïve\\" <b>","a<b":[1.5,-0,true],"constructor":null,"body":"long"}');
    const projection = buildView(data);
    expect(tallyOf(projection)?.viewBytes).toBe(Buffer.byteLength(markupSafeJson(projection.view)));
    // A value the plan does not expect (an object where a string goes) is the interpreter's to place: not counted.
    const helped = buildView({ ...data, title: { nested: "x" } });
    expect(tallyOf(helped)?.viewBytes).toBeUndefined();
    // A `toJSON` someone put on a prototype is called by `JSON.stringify`: such a view is written to be measured.
    for (const prototype of [Object.prototype, Array.prototype]) {
      Object.defineProperty(prototype, "toJSON", { value: () => "", configurable: true, writable: true });
      const polluted = buildView(data);
      // biome-ignore lint/suspicious/noExplicitAny: the test pollutes and restores the prototype on purpose.
      delete (prototype as any).toJSON;
      expect(tallyOf(polluted)?.viewBytes).toBeUndefined();
    }
    expect(tallyOf(buildView(data))?.viewBytes).toBe(Buffer.byteLength(markupSafeJson(projection.view)));
  });

  it("shows an ordinary result, its keys in the plan's written order, as the interpreter does", async () => {
    const plan: ViewPlan = {
      kind: "object",
      properties: {
        title: { kind: "string", max: 80, overflow: "excerpt" },
        items: { kind: "array", items: { kind: "value" }, take: 2 },
        body: { kind: "union", options: [{ kind: "string", max: 8, overflow: "excerpt" }, { kind: "value" }] },
      },
    };
    const { buildView, viewPlan } = await projectorOf(plan, 2000);
    const data = { title: "Release 1.2", items: [1, 2, 3], body: "a long body text", secret: "s3cret" };
    const projection = buildView(data);
    expect(projection).toStrictEqual(project(data, viewPlan));
    expect(projection.view).toEqual({ title: "Release 1.2", items: [1, 2], body: "a long …" });
    expect(projection.omissions).toEqual([
      { path: "/body", kind: "excerpt", count: 9 },
      { path: "/items", kind: "items", count: 1 },
    ]);
    expect(JSON.stringify(projection.view)).not.toContain("s3cret");
  });

  it("never runs a setter added to Object.prototype for one of its keys: the interpreter makes that view", async () => {
    const plan: ViewPlan = { kind: "object", properties: { title: { kind: "value" } } };
    const { buildView } = await projectorOf(plan, 2000);
    const set: unknown[] = [];
    Object.defineProperty(Object.prototype, "title", {
      set: (value: unknown) => set.push(value),
      configurable: true,
    });
    const data = JSON.parse('{"title":"hello"}');
    const projection = buildView(data);
    // biome-ignore lint/suspicious/noExplicitAny: the polluted key is read as an own property of the view.
    delete (Object.prototype as any).title;
    expect(set).toEqual([]);
    expect(Object.getOwnPropertyDescriptor(projection.view, "title")?.value).toBe("hello");
  });
});
