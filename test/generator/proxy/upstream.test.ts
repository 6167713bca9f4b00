/**
 * The proxy's transport to a real server (`@modelcontextprotocol/server-filesystem` over stdio, with the MCP SDK's
 * own `Client` on it): a 50 MB answer is cut on the wire and its request answered with a typed error, and the next
 * call on the same session works. (That the reader never holds more than the ceiling is `frames.test.ts`'s.)
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGE_TOO_LARGE, UpstreamTransport } from "../../../generator/proxy/upstream.js";

const require = createRequire(import.meta.url);
const filesystemServer = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const MAX = 8 * 1024 * 1024;

let folder: string;
let client: Client;
const oversize: Array<{ bytes: number; id: unknown }> = [];

beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "toolgate-upstream-"));
  await writeFile(path.join(folder, "big.txt"), "0123456789abcdef\n".repeat((50 * 1024 * 1024) / 17));
  await writeFile(path.join(folder, "small.txt"), "hello\n");
  const transport = new UpstreamTransport({
    command: process.execPath,
    args: [filesystemServer, folder],
    maxMessageBytes: MAX,
    stderr: "ignore",
    onOversize: (facts) => oversize.push(facts),
  });
  client = new Client({ name: "toolgate-upstream-test", version: "1" });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await rm(folder, { recursive: true, force: true });
});

describe("UpstreamTransport", () => {
  it("answers a 50 MB result with a typed error, and the session goes on", async () => {
    const error = await client
      .callTool({ name: "read_text_file", arguments: { path: path.join(folder, "big.txt") } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(MESSAGE_TOO_LARGE);
    expect((error as McpError).data).toMatchObject({ reason: "message_too_large", maxBytes: MAX });
    expect(oversize).toHaveLength(1);
    expect(oversize[0]?.bytes).toBeGreaterThan(50 * 1024 * 1024);

    const small = await client.callTool({
      name: "read_text_file",
      arguments: { path: path.join(folder, "small.txt") },
    });
    expect(JSON.stringify(small.content)).toContain("hello");
  }, 60_000);
});
