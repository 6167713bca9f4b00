/**
 * Folders for import tests, inside the repository (generated code then finds `@toolgate/runtime` through the
 * workspace link) and removed when the test file ends.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";

const repo = path.resolve(import.meta.dirname, "../../..");

/** Registers the file's scratch folder under `.tmp/<prefix>…`; the function returns a new empty folder in it. */
export function scratchFolders(prefix: string): () => Promise<string> {
  let scratch: string | undefined;
  let folders = 0;
  beforeAll(async () => {
    await mkdir(path.join(repo, ".tmp"), { recursive: true });
    scratch = await mkdtemp(path.join(repo, ".tmp", prefix));
  });
  afterAll(async () => {
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  });
  return async () => {
    if (scratch === undefined) throw new Error("scratch folders are made once the file's tests start");
    const dir = path.join(scratch, `case-${++folders}`);
    await mkdir(dir, { recursive: true });
    return dir;
  };
}
