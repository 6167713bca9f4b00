/**
 * Where the two sides of a review come from: the working tree, a folder, or a git revision.
 *
 * A revision is read with git itself (`git ls-tree`, `git cat-file`), never by checking it out: the contracts folder
 * as it was at that revision, plus every local file its schemas `$ref` (found by following the references, file by
 * file), is written to a temporary folder laid out like the repository, and loaded from there. The working tree and
 * the index are never touched.
 *
 * A revision's references stay inside the tree it reads: the copy's project root is the temporary folder, so a
 * reference out of it (an absolute path, `../..` past the repository) is refused by the resolve stage as one out of
 * the working tree is; `roots` inside the repository are read from the revision too, and roots outside it are not
 * the revision's, so they are not roots of its copy. A blob is read bounded, like any input file.
 */
import { execFile } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { ResolveOptions } from "../contract/resolve.js";
import { MAX_INPUT_BYTES, writeFileInside } from "../files.js";

const run = promisify(execFile);

/** One side of a review, ready to load. */
export interface ContractSource {
  /** How the report names this side: `HEAD (1a2b3c4)`, `working tree`, or the folder. */
  label: string;
  /** The contracts folder to read. */
  schemas: string;
  /** How references that leave a contract file are found, for this side. */
  resolve: ResolveOptions;
  /** Remove what opening this side wrote (a revision's temporary folder); nothing for a folder. */
  dispose(): Promise<void>;
}

/** What every side shares: where the user runs, which folder holds the contracts, how URIs map to folders. */
export interface SourceContext {
  /** The working directory; relative paths and git commands start here. */
  cwd: string;
  /** The contracts folder in the working tree (absolute). */
  schemas: string;
  /** URI prefixes served from local folders (absolute paths in the working tree). */
  remotes: ReadonlyArray<readonly [prefix: string, folder: string]>;
  /** Folders besides the working directory that local references may read (absolute paths in the working tree). */
  roots?: readonly string[] | undefined;
}

/** A side that cannot be opened: not a folder, not a revision. */
export class SourceError extends Error {
  override readonly name = "SourceError";
}

/**
 * Open one side. `spec` is a folder (an existing directory: it holds the contracts) or a git revision; `undefined`
 * is the working tree's contracts folder.
 */
export async function openSource(spec: string | undefined, context: SourceContext): Promise<ContractSource> {
  if (spec === undefined) {
    if (!existsSync(context.schemas)) throw new SourceError(`no contracts folder at ${context.schemas}`);
    return {
      label: "working tree",
      schemas: context.schemas,
      resolve: { projectRoot: context.cwd, remotes: context.remotes, roots: context.roots ?? [] },
      dispose: async () => {},
    };
  }
  const folder = path.resolve(context.cwd, spec);
  if (existsSync(folder) && statSync(folder).isDirectory()) {
    return {
      label: spec,
      schemas: folder,
      resolve: { projectRoot: context.cwd, remotes: context.remotes, roots: context.roots ?? [] },
      dispose: async () => {},
    };
  }
  return openRevision(spec, context);
}

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run("git", args, { cwd, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" });
  return stdout;
}

/** A blob of a revision larger than an input file may be. */
class BlobTooLarge extends Error {}

async function gitBytes(cwd: string, args: string[]): Promise<Buffer> {
  try {
    const { stdout } = await run("git", args, { cwd, maxBuffer: MAX_INPUT_BYTES, encoding: "buffer" });
    return stdout;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") throw new BlobTooLarge();
    throw error;
  }
}

/** Copy the contracts folder (and what it references) as of a revision into a temporary folder. */
async function openRevision(revision: string, context: SourceContext): Promise<ContractSource> {
  let top: string;
  try {
    top = (await git(context.cwd, ["rev-parse", "--show-toplevel"])).trim();
  } catch {
    throw new SourceError(`${JSON.stringify(revision)} is not a folder, and ${context.cwd} is not in a git repository`);
  }
  let commit: string;
  try {
    // `--end-of-options` keeps a revision that starts with `-` from being read as an option.
    commit = (await git(top, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${revision}^{commit}`])).trim();
  } catch {
    throw new SourceError(`${JSON.stringify(revision)} is neither a folder nor a git revision`);
  }
  const inRepository = (absolute: string): string | undefined => {
    const relative = path.relative(top, absolute);
    return relative.startsWith("..") || path.isAbsolute(relative) ? undefined : relative.split(path.sep).join("/");
  };
  const schemasInRepository = inRepository(context.schemas);
  if (schemasInRepository === undefined) {
    throw new SourceError(`the contracts folder ${context.schemas} is not inside the git repository ${top}`);
  }

  const root = await mkdtemp(path.join(tmpdir(), "toolgate-diff-"));
  try {
    const copy = new RevisionCopy(top, commit, root);
    const listing = await git(top, [
      "ls-tree",
      "-r",
      "-z",
      "--name-only",
      commit,
      "--",
      schemasInRepository === "" ? "." : schemasInRepository,
    ]);
    for (const file of listing.split("\0").filter((f) => f !== "")) await copy.file(file);
    await mkdir(path.join(root, ...schemasInRepository.split("/")), { recursive: true });

    // A remote mapped to a folder inside the repository is read from the revision too; one outside is shared.
    const remotes = context.remotes.map(([prefix, folder]) => {
      const relative = inRepository(folder);
      return [prefix, relative === undefined ? folder : path.join(root, ...relative.split("/"))] as const;
    });
    await copy.followReferences(
      context.remotes.flatMap(([prefix, folder]) => {
        const relative = inRepository(folder);
        return relative === undefined ? [] : [[prefix, relative] as const];
      }),
    );

    const cwdInRepository = inRepository(context.cwd) ?? "";
    const roots = (context.roots ?? []).flatMap((folder) => {
      const relative = inRepository(folder);
      return relative === undefined ? [] : [path.join(root, ...relative.split("/"))];
    });
    return {
      // A revision given as a commit id is named by its short id alone; a name (HEAD, a branch) keeps it beside.
      label: commit.startsWith(revision) ? commit.slice(0, 7) : `${revision} (${commit.slice(0, 7)})`,
      schemas: path.join(root, ...schemasInRepository.split("/").filter((t) => t !== "")),
      // The copy's project root stands where the working directory stands in the repository, so references get the
      // same URIs on both sides.
      resolve: { projectRoot: path.join(root, ...cwdInRepository.split("/").filter((t) => t !== "")), remotes, roots },
      dispose: () => rm(root, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

/** `$ref` values in a JSON or YAML text, without parsing it (a YAML file may be referenced too). */
const REF_IN_JSON = /"\$ref"\s*:\s*("(?:[^"\\]|\\.)*")/g;
const REF_IN_YAML = /^\s*-?\s*['"]?\$ref['"]?\s*:\s*['"]?([^'"\s#][^'"\s]*)['"]?\s*$/gm;

/** Files of one revision written into a temporary folder, and the references still to follow. */
class RevisionCopy {
  readonly #written = new Set<string>();
  readonly #texts: Array<{ file: string; text: string }> = [];

  constructor(
    readonly top: string,
    readonly commit: string,
    readonly root: string,
  ) {}

  /** Write one file of the revision (a path relative to the repository); false when the revision lacks it. */
  async file(relative: string): Promise<boolean> {
    if (this.#written.has(relative)) return true;
    // Git's own trees hold no such path, but a crafted one may: it would be written outside the copy.
    if (relative.split("/").some((part) => part === "" || part === "." || part === ".." || part.includes("\\")))
      return false;
    let content: Buffer;
    try {
      content = await gitBytes(this.top, ["cat-file", "blob", `${this.commit}:${relative}`]);
    } catch (error) {
      if (error instanceof BlobTooLarge) {
        throw new SourceError(
          `${this.commit.slice(0, 7)}:${relative} is larger than the ${MAX_INPUT_BYTES} bytes an input file may hold`,
        );
      }
      return false;
    }
    this.#written.add(relative);
    // Only this copy writes in its fresh folder, yet it writes as every generator output does: never through a link.
    await writeFileInside(this.root, relative, content);
    if (/\.(json|ya?ml)$/i.test(relative)) this.#texts.push({ file: relative, text: content.toString("utf8") });
    return true;
  }

  /**
   * Write every file the written files reference, and theirs in turn. A reference that leaves the repository, or
   * that the revision lacks, is left for the resolve stage to report as it would for the working tree.
   */
  async followReferences(remotes: ReadonlyArray<readonly [prefix: string, folder: string]>): Promise<void> {
    while (this.#texts.length > 0) {
      const { file, text } = this.#texts.shift() as { file: string; text: string };
      for (const reference of references(text)) {
        const target = localTarget(reference, file, remotes);
        if (target !== undefined) await this.file(target);
      }
    }
  }
}

/** Every `$ref` string of a text. */
function references(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(REF_IN_JSON)) {
    try {
      found.push(JSON.parse(match[1] as string) as string);
    } catch {
      // Not a JSON string after all: nothing to follow.
    }
  }
  for (const match of text.matchAll(REF_IN_YAML)) found.push(match[1] as string);
  return found;
}

/** The repository path a reference names, when it names a file of the repository. */
function localTarget(
  reference: string,
  from: string,
  remotes: ReadonlyArray<readonly [prefix: string, folder: string]>,
): string | undefined {
  const resource = reference.split("#")[0] as string;
  if (resource === "") return undefined;
  let relative: string;
  const remote = remotes.find(([prefix]) => resource.startsWith(prefix));
  if (remote !== undefined) {
    relative = path.posix.join(remote[1], resource.slice(remote[0].length));
  } else if (/^[a-z][a-z0-9+.-]*:/i.test(resource)) {
    return undefined;
  } else {
    let decoded: string;
    try {
      decoded = decodeURIComponent(resource);
    } catch {
      return undefined;
    }
    relative = path.posix.join(path.posix.dirname(from), decoded);
  }
  relative = path.posix.normalize(relative);
  return relative.startsWith("../") || relative === ".." || path.posix.isAbsolute(relative) ? undefined : relative;
}
