/**
 * The resolve stage: load every document a schema references, and make one self-contained copy of it.
 *
 * References follow JSON Schema's rules (2020-12 section 8.2): `$id` changes the base URI of its subschema, `$anchor`
 * (and `$dynamicAnchor`) name a subschema, and `$ref` is resolved against the current base. Local files are read
 * with @apidevtools/json-schema-ref-parser (JSON or YAML). A network URI is never fetched: it must be mapped to a local
 * folder (`refs` in the config), or it is a contract error. The JSON Schema metaschemas are known without loading.
 *
 * A local file is read only when its real path (links followed) lies inside a root: the project root, a folder of
 * {@link ResolveOptions.roots}, or a folder `refs` maps a prefix to. Anything else (`/etc/passwd`, `/dev/zero`, a
 * link out of the project, `../..` above it) is a contract error naming the `$ref`. A file is read bounded, and only
 * when it is a regular file ({@link readBoundedFile}).
 *
 * Two products come out (see {@link ResolvedSchema}): the documents as written, for the validator, which implements
 * the reference rules itself; and a bundled copy where every reference is a `#/…` pointer, for the types stage.
 */
import { realpath } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parse as parseDocument } from "@apidevtools/json-schema-ref-parser";
import { isInside, readBoundedFile, readFailure, realFolder } from "../files.js";
import { isSchemaObject } from "../schema/guards.js";
import { escapePointerToken, fragmentToPointer } from "../schema/pointer.js";
import type { Dialect, JsonSchema, ResolvedSchema, SchemaObject } from "../schema/shapes.js";
import { children, valueAt } from "../schema/walk.js";
import { ContractError } from "./errors.js";
import { inputHashOf } from "./input-hash.js";
import { displayPath } from "./load.js";

/** How references that leave the contract file are found. */
export interface ResolveOptions {
  /**
   * The folder whose files get stable URIs (`file:///project/…`), so that generated code is the same on every
   * machine: the working directory by default.
   */
  projectRoot: string;
  /** URI prefixes served from local folders: `[["https://schemas.example.com/", "/abs/vendor/schemas/"]]`. */
  remotes: ReadonlyArray<readonly [prefix: string, folder: string]>;
  /**
   * Folders besides the project root (and the `remotes` folders) whose files references may read: the contracts
   * folder, and `roots` of `toolgate.config.json`. Absolute paths.
   */
  roots?: readonly string[] | undefined;
}

/** Where a URI's target lives: a document and a pointer inside it. */
interface Location {
  documentUri: string;
  pointer: string;
}

/** URIs the JSON Schema metaschemas are known by; validators carry them, nothing is loaded. */
const METASCHEMA = /^https?:\/\/json-schema\.org\//;

const PROJECT_URI = "file:///project/";

/**
 * Resolve one schema of a contract.
 * @param file the contract file (absolute path), for relative references and error messages
 * @param pointer where the schema sits in the contract file (`/outputSchema`)
 */
export async function resolveSchema(
  schema: JsonSchema,
  dialect: Dialect,
  file: string,
  pointer: string,
  options: ResolveOptions,
): Promise<ResolvedSchema> {
  const resolver = new Resolver(options, dialect);
  // The schema of an MCP tool stands alone: `#` means its own root, not the contract file's.
  const documentUri = `${resolver.uriOfFile(file)}?${pointer.slice(1)}`;
  resolver.addDocument(documentUri, schema, { file: displayPath(file), pointer });
  await resolver.loadReferenced();
  const baseUri = resolver.baseOf(documentUri);
  const documents: Record<string, JsonSchema> = {};
  for (const uri of [...resolver.documents.keys()].sort()) {
    if (uri !== documentUri) documents[uri] = resolver.documents.get(uri) as JsonSchema;
  }
  const files: Record<string, string> = {};
  for (const file of [...resolver.files.keys()].sort()) files[file] = resolver.files.get(file) as string;
  return { dialect, root: schema, baseUri, documents, bundled: resolver.bundle(documentUri), pointer, files };
}

/** Where a document came from, for error messages. */
interface Origin {
  file: string;
  pointer: string;
}

class Resolver {
  readonly documents = new Map<string, JsonSchema>();
  /** Local files read: absolute path → {@link inputHashOf} of the content parsed. */
  readonly files = new Map<string, string>();
  readonly #origins = new Map<string, Origin>();
  /** Absolute URI (no fragment) of every schema resource → where it is. */
  readonly #resources = new Map<string, Location>();
  /** Absolute URI with a plain-name fragment → where the anchor is. */
  readonly #anchors = new Map<string, Location>();
  /** References still to load: target document URI → the place that asked for it. */
  readonly #wanted = new Map<string, Origin>();

  constructor(
    readonly options: ResolveOptions,
    readonly dialect: Dialect,
  ) {}

  /** URIs that climbed above the project root (`file:///x` for `../../x`) → the file each really names. */
  readonly #aliases = new Map<string, string>();

  /** A stable URI for a local file: under `file:///project/` when it lies in the project. */
  uriOfFile(file: string): string {
    const relative = path.relative(this.options.projectRoot, file);
    if (relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative)) {
      return PROJECT_URI + relative.split(path.sep).map(encodeURIComponent).join("/");
    }
    return pathToFileURL(file).href;
  }

  /**
   * The local file a `file:` URI stands for. A segment that decodes to a separator or to `..` (`%2F`, `..%2F..`) is
   * refused rather than joined, so the path is the one the URI's own segments name.
   */
  fileOfUri(uri: string): string {
    const alias = this.#aliases.get(uri);
    if (alias !== undefined) return alias;
    if (uri.startsWith(PROJECT_URI)) {
      const relative = uri.slice(PROJECT_URI.length).split("/").map(decodeURIComponent);
      if (relative.some((segment) => /[/\\]/.test(segment) || segment === ".."))
        throw new Error('a path segment holds an encoded separator or ".."');
      return path.join(this.options.projectRoot, ...relative);
    }
    return fileURLToPath(uri);
  }

  baseOf(documentUri: string): string {
    const root = this.documents.get(documentUri);
    return isSchemaObject(root) && typeof root.$id === "string" ? joinUri(root.$id, documentUri) : documentUri;
  }

  /** Index a document's resources and anchors, and note the documents its references need. */
  addDocument(uri: string, document: JsonSchema, origin: Origin): void {
    this.documents.set(uri, document);
    this.#origins.set(uri, origin);
    this.#resources.set(uri, { documentUri: uri, pointer: "" });
    for (const { node, pointer, base } of this.#walk(document, uri)) {
      const at = { documentUri: uri, pointer };
      if (typeof node.$id === "string") {
        const id = joinUri(node.$id, base);
        const [resource = "", fragment = ""] = id.split("#");
        // draft-07 names anchors with `$id: "#name"`.
        if (fragment !== "" && !fragment.startsWith("/")) this.#anchors.set(id, at);
        else if (!this.#resources.has(resource) || pointer === "") this.#resources.set(resource, at);
      }
      for (const keyword of ["$anchor", "$dynamicAnchor"] as const) {
        const name = node[keyword];
        if (typeof name === "string") this.#anchors.set(`${base.split("#")[0]}#${name}`, at);
      }
      for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"] as const) {
        const ref = node[keyword];
        if (typeof ref !== "string") continue;
        const target = this.#absolute(ref, base, {
          file: origin.file,
          pointer: `${origin.pointer}${pointer}/${keyword}`,
        });
        const resource = target.split("#")[0] as string;
        if (!this.#wanted.has(resource)) {
          this.#wanted.set(resource, { file: origin.file, pointer: `${origin.pointer}${pointer}/${keyword}` });
        }
      }
    }
  }

  /** Load every referenced document not yet known, and theirs in turn. */
  async loadReferenced(): Promise<void> {
    for (;;) {
      const missing = [...this.#wanted].filter(([uri]) => !this.#resources.has(uri) && !METASCHEMA.test(uri));
      if (missing.length === 0) return;
      for (const [uri, origin] of missing) {
        this.#wanted.delete(uri);
        const file = this.#localFile(uri, origin);
        const real = await this.#confined(file, uri, origin);
        let document: JsonSchema;
        try {
          // The bytes are read here and handed to the parser, so the hash kept for the lock's record is of exactly
          // the content parsed, even if the file changes while the run goes on. The real path is opened without
          // following a link, so a link swapped in after the root check is not read.
          const bytes = await readBoundedFile(real, undefined, { noFollow: true });
          document = (await parseDocument(file, {
            resolve: { http: false, external: false, file: { read: () => bytes } },
          })) as JsonSchema;
          this.files.set(path.resolve(file), inputHashOf(file, bytes));
        } catch (error) {
          throw new ContractError(origin.file, origin.pointer, `unresolvable $ref: ${uri} (${readFailure(error)})`);
        }
        // A YAML alias is the anchor's value itself, not a copy: 800 bytes of nested aliases stand for 2^25 values,
        // which every walk after this one would visit. Counted once here, in time linear in the distinct values.
        if (!expandsWithin(document, MAX_EXPANDED_VALUES)) {
          throw new ContractError(
            origin.file,
            origin.pointer,
            `unresolvable $ref: ${uri} expands to more than ${MAX_EXPANDED_VALUES} values, or holds itself (YAML aliases repeat what their anchor holds)`,
          );
        }
        this.addDocument(uri, document, { file: displayPath(file), pointer: "" });
      }
    }
  }

  /** The real folders of every root, found once. */
  #realRoots: Promise<string[]> | undefined;

  /**
   * The real path of a file a reference reads, when it lies inside a root; a contract error otherwise. Roots are
   * compared by real path too, so a project inside a linked folder works, and a link inside the project that
   * points out of it does not.
   */
  async #confined(file: string, uri: string, origin: Origin): Promise<string> {
    let real: string;
    try {
      real = await realpath(file);
    } catch (error) {
      throw new ContractError(origin.file, origin.pointer, `unresolvable $ref: ${uri} (${readFailure(error)})`);
    }
    this.#realRoots ??= Promise.all(
      [
        this.options.projectRoot,
        ...(this.options.roots ?? []),
        ...this.options.remotes.map(([, folder]) => folder),
      ].map(realFolder),
    );
    if ((await this.#realRoots).some((root) => isInside(real, root))) return real;
    throw new ContractError(
      origin.file,
      origin.pointer,
      `$ref ${uri} reads ${real}, outside the project: a reference may read only files inside the working directory, the contracts folder or a folder named in "roots" of toolgate.config.json`,
    );
  }

  /** The local file a referenced URI is read from; a network URI without a mapping is an error. */
  #localFile(uri: string, origin: Origin): string {
    if (uri.startsWith("file:")) {
      try {
        return this.fileOfUri(uri);
      } catch (error) {
        throw new ContractError(origin.file, origin.pointer, `unresolvable $ref: ${uri} (${(error as Error).message})`);
      }
    }
    for (const [prefix, folder] of this.options.remotes) {
      if (uri.startsWith(prefix)) return path.join(folder, ...uri.slice(prefix.length).split("/"));
    }
    if (/^https?:/.test(uri)) {
      throw new ContractError(
        origin.file,
        origin.pointer,
        `network $ref ${uri} is never fetched: vendor the schema and map its prefix to a local folder with "refs" in toolgate.config.json`,
      );
    }
    throw new ContractError(origin.file, origin.pointer, `unresolvable $ref: ${uri} is not known here`);
  }

  /** Resolve a reference to the document and pointer it names. */
  #locate(ref: string, base: string, origin: Origin): Location | "metaschema" {
    const target = this.#absolute(ref, base, origin);
    const hash = target.indexOf("#");
    const resource = hash < 0 ? target : target.slice(0, hash);
    const fragment = hash < 0 ? "" : target.slice(hash + 1);
    if (METASCHEMA.test(resource) && !this.#resources.has(resource)) return "metaschema";
    const found = this.#resources.get(resource);
    let location: Location | undefined;
    if (found === undefined) location = undefined;
    else if (fragment === "") location = found;
    else if (fragment.startsWith("/")) location = { ...found, pointer: found.pointer + fragmentToPointer(fragment) };
    else location = this.#anchors.get(`${resource}#${fragment}`);
    if (location === undefined || valueAt(this.documents.get(location.documentUri), location.pointer) === undefined) {
      throw new ContractError(
        origin.file,
        origin.pointer,
        `unresolvable $ref: ${JSON.stringify(ref)} points at nothing`,
      );
    }
    return location;
  }

  #absolute(ref: string, base: string, origin: Origin): string {
    let joined: string;
    try {
      joined = joinUri(ref, base);
    } catch {
      throw new ContractError(origin.file, origin.pointer, `invalid $ref ${JSON.stringify(ref)}: not a URI reference`);
    }
    return this.#unclamped(ref, base, joined, origin);
  }

  /**
   * `file:///project/` stands for the project root, and a URI never climbs above its root: `../../x` from
   * `file:///project/schemas/a.json` is `file:///x`, which would read `/x`. A relative reference against a local
   * file is therefore resolved on the file's real location too, and where the two disagree the URI is kept (the
   * validator resolves the reference as written, to exactly that URI) but stands for the file really reached
   * (`#aliases`); the root check then judges that file. Two files behind one URI are a contract error.
   */
  #unclamped(ref: string, base: string, joined: string, origin: Origin): string {
    if (
      !base.startsWith("file:") ||
      !joined.startsWith("file:") ||
      ref.startsWith("#") ||
      /^[a-z][a-z0-9+.-]*:|^\/\//i.test(ref)
    )
      return joined;
    const resource = withoutQuery(joined);
    let file: string;
    let named: string;
    try {
      file = fileURLToPath(withoutQuery(new URL(ref, pathToFileURL(this.fileOfUri(withoutQuery(base)))).href));
      named = this.fileOfUri(resource);
    } catch {
      // A URI that names no local file: the reading stage reports it.
      return joined;
    }
    if (named === file) return joined;
    if (this.#aliases.has(resource)) {
      throw new ContractError(
        origin.file,
        origin.pointer,
        `unresolvable $ref: ${JSON.stringify(ref)} resolves to ${resource}, which another reference already uses for ${named}, while this one reaches ${file}: reference one of them from a folder nearer to it`,
      );
    }
    this.#aliases.set(resource, file);
    return joined;
  }

  /** Every schema object in a document with its pointer and base URI, iteratively. */
  *#walk(
    document: JsonSchema,
    documentUri: string,
    skip: (node: JsonSchema) => boolean = () => false,
  ): Generator<{ node: SchemaObject; pointer: string; base: string }> {
    const stack: Array<{ node: JsonSchema; pointer: string; base: string }> = [
      { node: document, pointer: "", base: documentUri },
    ];
    while (stack.length > 0) {
      const item = stack.pop() as { node: JsonSchema; pointer: string; base: string };
      if (!isSchemaObject(item.node) || skip(item.node)) continue;
      const id = item.node.$id;
      // In draft-07 a `$id` beside `$ref` is ignored, like every sibling of `$ref`.
      const ignoresId = this.dialect === "draft-07" && item.node.$ref !== undefined;
      const base = typeof id === "string" && !id.startsWith("#") && !ignoresId ? joinUri(id, item.base) : item.base;
      yield { node: item.node, pointer: item.pointer, base };
      const next = [...children(item.node)];
      for (let i = next.length - 1; i >= 0; i--) {
        const child = next[i] as (typeof next)[number];
        stack.push({
          node: child.schema,
          pointer: item.pointer + child.tokens.map((t) => `/${escapePointerToken(t)}`).join(""),
          base,
        });
      }
    }
  }

  /**
   * The self-contained copy: the root document with every `$ref` rewritten to a `#/…` pointer, and each other
   * document a reference reaches copied under `$defs` (`definitions` in draft-07).
   */
  bundle(rootUri: string): JsonSchema {
    const root = this.documents.get(rootUri) as JsonSchema;
    const bundled = structuredClone(root);
    if (!isSchemaObject(bundled)) return bundled;
    const defsKeyword = this.dialect === "draft-07" ? "definitions" : "$defs";
    const slots = new Map<string, string>([[rootUri, ""]]);
    /** The copies of other documents placed under `$defs`. */
    const embedded = new Set<JsonSchema>();
    const origin = this.#origins.get(rootUri) as Origin;

    const queue: Array<{ copy: JsonSchema; documentUri: string; pointerInDocument: string }> = [
      { copy: bundled, documentUri: rootUri, pointerInDocument: "" },
    ];
    const slotOf = (documentUri: string): string => {
      let slot = slots.get(documentUri);
      if (slot !== undefined) return slot;
      let defs = bundled[defsKeyword];
      if (!isSchemaObject(defs)) {
        defs = {};
        bundled[defsKeyword] = defs;
      }
      const record = defs as SchemaObject;
      let key = `external${slots.size}`;
      while (Object.hasOwn(record, key)) key += "_";
      const copy = structuredClone(this.documents.get(documentUri) as JsonSchema);
      embedded.add(copy);
      record[key] = copy;
      slot = `/${defsKeyword}/${escapePointerToken(key)}`;
      slots.set(documentUri, slot);
      queue.push({ copy, documentUri, pointerInDocument: "" });
      return slot;
    };

    while (queue.length > 0) {
      const { copy, documentUri } = queue.shift() as (typeof queue)[number];
      const docOrigin = this.#origins.get(documentUri) ?? origin;
      // A document copied in while this one is walked is walked on its own, against its own base URI.
      const others = (node: JsonSchema) => node !== copy && embedded.has(node);
      for (const { node, pointer, base } of this.#walk(copy, documentUri, others)) {
        if (typeof node.$ref !== "string") continue;
        const refOrigin = { file: docOrigin.file, pointer: `${docOrigin.pointer}${pointer}/$ref` };
        const target = this.#locate(node.$ref, base, refOrigin);
        if (target === "metaschema") {
          // A schema about schemas: any JSON value may be one, so for types it constrains nothing.
          delete node.$ref;
          continue;
        }
        const pointerInBundle = slotOf(target.documentUri) + target.pointer;
        node.$ref = `#${encodeFragment(pointerInBundle)}`;
        if (this.dialect === "draft-07") {
          // draft-07 ignores every sibling of `$ref`; keep only the definitions other references may point into.
          for (const key of Object.keys(node))
            if (key !== "$ref" && key !== "definitions" && key !== "$defs") delete node[key];
        }
      }
    }
    return bundled;
  }
}

/**
 * The most values a referenced document may hold once every shared part (a YAML alias) is counted where it appears:
 * more than a 16 MiB JSON file of schemas plausibly holds, and past what the safety stage would accept anyway.
 */
export const MAX_EXPANDED_VALUES = 1_000_000;

/**
 * Whether a parsed document holds at most `limit` values, each shared object counted every time it appears, and no
 * cycle. Iterative, and linear in the distinct objects: each one's expanded size is computed once.
 */
export function expandsWithin(document: unknown, limit: number): boolean {
  if (typeof document !== "object" || document === null) return true;
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  const stack: Array<{ node: object; entered: boolean }> = [{ node: document, entered: false }];
  const objectsOf = (node: object) =>
    Object.values(node).filter((child): child is object => typeof child === "object" && child !== null);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: object; entered: boolean };
    if (!top.entered) {
      if (sizes.has(top.node)) {
        stack.pop();
        continue;
      }
      top.entered = true;
      open.add(top.node);
      for (const child of objectsOf(top.node)) {
        if (open.has(child)) return false;
        if (!sizes.has(child)) stack.push({ node: child, entered: false });
      }
      continue;
    }
    stack.pop();
    let size = 1;
    for (const child of Object.values(top.node))
      size += typeof child === "object" && child !== null ? (sizes.get(child) as number) : 1;
    if (size > limit) return false;
    sizes.set(top.node, size);
    open.delete(top.node);
  }
  return true;
}

/** A URI without its query and fragment. */
function withoutQuery(uri: string): string {
  return uri.split(/[?#]/)[0] as string;
}

/** Resolve a URI reference against a base (RFC 3986 section 5), keeping `urn:` and other opaque bases working. */
function joinUri(reference: string, base: string): string {
  if (reference.startsWith("#")) {
    const hash = base.indexOf("#");
    return (hash < 0 ? base : base.slice(0, hash)) + reference;
  }
  return new URL(reference, base).href;
}

/** Percent-encode what a URI fragment may not hold raw (RFC 3986 section 3.5), byte by byte in UTF-8. */
function encodeFragment(pointer: string): string {
  return pointer.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/?]+/g, (run) =>
    [...Buffer.from(run, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}
