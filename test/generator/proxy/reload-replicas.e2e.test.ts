/**
 * `toolgate proxy --watch --reload-redis` end to end: two proxy processes, each a replica with its own project
 * folder (as two machines have), in front of the real `server-everything`, agreeing on the catalog through a real
 * `redis-server`. A contract changed on one replica is served there and named in Redis; the other, whose folder has
 * not changed yet, keeps its catalog and says so; once its folder has the same contract it serves the same version.
 */
import { execFileSync } from "node:child_process";
import { cp, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt } from "../../build.js";
import { type RedisServer, startRedisServer } from "../../fixtures/redis-server.js";
import { scratchFolders } from "../mcp/scratch.js";

const require = createRequire(import.meta.url);
const REPO = path.resolve(import.meta.dirname, "..", "..", "..");
const BIN = path.join(REPO, "bin", "toolgate.js");
const EVERYTHING = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
const KEY = "replicas-test:catalog";

const scratch = scratchFolders("proxy-replicas-");
let redisServer: RedisServer;
let url: string;

/** One replica: its project folder, its host, and its stderr. */
interface Replica {
  project: string;
  client: Client;
  stderr: () => string;
}

/** Starts a replica in `project` (its contracts in `schemas/`, the runtime in its node_modules). */
async function replica(project: string): Promise<Replica> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...[BIN, "proxy", "--watch", "--schemas", "schemas", "--events", "events.jsonl"],
      ...["--reload-redis", url, "--reload-key", KEY, "--", process.execPath, EVERYTHING, "stdio"],
    ],
    cwd: project,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const client = new Client({ name: "toolgate-replica-host", version: "1" });
  await client.connect(transport);
  const found = { project, client, stderr: () => err };
  await logged(found, /watching .*\(catalog [0-9a-f]{16}\)/, 0);
  return found;
}

/** What the replica logged matching `pattern` after `from` characters, waiting for it. */
async function logged(replica: Replica, pattern: RegExp, from: number): Promise<string> {
  for (const started = Date.now(); Date.now() - started < 60_000; await new Promise((r) => setTimeout(r, 25))) {
    const match = pattern.exec(replica.stderr().slice(from));
    if (match !== null) return match[0];
  }
  throw new Error(`never logged ${pattern}:\n${replica.stderr().slice(from)}`);
}

/** The contract version that gated the replica's last echo call. */
async function echoVersion(replica: Replica): Promise<string> {
  const result = await replica.client.callTool({ name: "echo", arguments: { message: "which contract?" } });
  expect(result.isError ?? false).toBe(false);
  const file = path.join(replica.project, "events.jsonl");
  for (let wait = 0; wait < 80; wait++) {
    const events = (await readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean);
    const last = events
      .map((line) => JSON.parse(line))
      .filter((event) => event.tool === "echo")
      .at(-1);
    if (last !== undefined && events.length > (echoCalls.get(replica.project) ?? 0)) {
      echoCalls.set(replica.project, events.length);
      return last.contractVersion;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("no event for the echo call");
}
const echoCalls = new Map<string, number>();

/** The echo contract in `project`, at `version`. */
async function setEchoVersion(project: string, version: string): Promise<void> {
  const file = path.join(project, "schemas", "echo.tool.json");
  const contract = JSON.parse(await readFile(file, "utf8"));
  contract["x-toolgate"].version = version;
  await writeFile(file, JSON.stringify(contract, null, 2));
}

let a: Replica;
let b: Replica;

beforeAll(async () => {
  await ensureBuilt();
  redisServer = await startRedisServer();
  url = redisServer.url;
  const work = await scratch();
  const schemas = path.join(work, "imported");
  execFileSync(process.execPath, [BIN, "import", "--stdio", `node ${EVERYTHING} stdio`, "--out", schemas], {
    cwd: REPO,
    stdio: "pipe",
  });
  for (const file of await readdir(schemas)) if (file !== "echo.tool.json") await rm(path.join(schemas, file));
  const projects = ["a", "b"].map((name) => path.join(work, name, "project"));
  for (const project of projects) {
    await mkdir(project, { recursive: true });
    await cp(schemas, path.join(project, "schemas"), { recursive: true });
    // A project's own node_modules, where the runtime is installed (here, linked to the repository's).
    await mkdir(path.join(project, "node_modules", "@toolgate"), { recursive: true });
    await symlink(path.join(REPO, "runtime"), path.join(project, "node_modules", "@toolgate", "runtime"));
    echoCalls.set(project, 0);
  }
  a = await replica(projects[0] as string);
  b = await replica(projects[1] as string);
}, 240_000);

afterAll(async () => {
  await Promise.allSettled([a?.client.close(), b?.client.close()]);
  redisServer?.stop();
});

describe("replicas agreeing on the catalog through Redis", () => {
  it("serve one version: a change on one is followed by the other once its folder verifies as it", async () => {
    const redis = createClient({ url });
    await redis.connect();
    const started = await redis.get(KEY);
    expect(started).toMatch(/^[0-9a-f]{16}$/);
    expect(a.stderr()).toContain(`(catalog ${started})`);
    expect(b.stderr()).toContain(`(catalog ${started})`);
    expect(await echoVersion(a)).toBe("1");
    expect(await echoVersion(b)).toBe("1");

    // The change reaches A's folder first.
    const fromA = a.stderr().length;
    const fromB = b.stderr().length;
    await setEchoVersion(a.project, "2");
    const reloaded = await logged(a, /reloaded: catalog ([0-9a-f]{16})/, fromA);
    const version = reloaded.slice(-16);
    for (let wait = 0; (await redis.get(KEY)) !== version && wait < 100; wait++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await redis.get(KEY)).toBe(version);
    expect(await echoVersion(a)).toBe("2");
    // B heard it, loaded its own folder, found another version, and kept serving contract 1.
    await logged(b, new RegExp(`the replicas serve catalog ${version}, this folder verifies as ${started}`), fromB);
    expect(await echoVersion(b)).toBe("1");

    // The same change reaches B: it verifies as the replicas' version, which B now serves.
    const fromB2 = b.stderr().length;
    await setEchoVersion(b.project, "2");
    await logged(b, new RegExp(`reloaded: catalog ${version}`), fromB2);
    expect(await echoVersion(b)).toBe("2");
    expect(await redis.get(KEY)).toBe(version);
    await redis.close();
  }, 180_000);
});
