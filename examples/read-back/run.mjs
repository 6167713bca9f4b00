/**
 * A result too large for the model's budget, spilled and read back: the memory server's whole graph is past the
 * read_graph contract's 4,000-byte budget, so the proxy keeps it (`"oversize": ["spill", "drop"]`), the model reads a
 * preview and a handle, and pages through the rest with `read_tool_result`, a page at a time.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = import.meta.dirname;
const toolgate = path.resolve(here, "../../bin/toolgate.js"); // `npx toolgate` in your own project
const memoryServer = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/dist/index.js");

const work = await mkdtemp(path.join(os.tmpdir(), "toolgate-read-back-example-"));
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [toolgate, "proxy", "--schemas", path.join(here, "schemas"), "--", process.execPath, memoryServer],
  cwd: here,
  env: { ...process.env, MEMORY_FILE_PATH: path.join(work, "memory.jsonl") },
  stderr: "pipe",
});
const host = new Client({ name: "example-host", version: "1.0.0" });
await host.connect(transport);
const text = (result) => result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

try {
  const { tools } = await host.listTools();
  console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);

  const entities = Array.from({ length: 60 }, (_, i) => ({
    name: `service-${String(i).padStart(2, "0")}`,
    entityType: "service",
    observations: [`Service ${i} is owned by team ${i % 7} and deployed in region eu-${i % 3}.`],
  }));
  await host.callTool({ name: "create_entities", arguments: { entities } });

  const graph = await host.callTool({ name: "read_graph", arguments: {} });
  const first = text(graph);
  console.log(`read_graph: what the model reads (${first.length} characters):`);
  console.log(first);

  // What the model does next: ask for the rest by its handle, page by page.
  const handle = /<spilled handle="([^"]+)"/.exec(first)?.[1];
  if (handle === undefined) throw new Error("no spill handle in the model's view");
  const names = [];
  let args = { handle, pointer: "/entities", limit: 25 };
  for (let page = 1; args !== undefined; page++) {
    const read = await host.callTool({ name: "read_tool_result", arguments: args });
    const body = read.structuredContent;
    names.push(...body.items.map((item) => item.name));
    console.log(
      `read_tool_result page ${page}: ${body.items.length} entities, ${body.next ? "more to read" : "the end"}`,
    );
    args = body.next;
  }
  console.log(`read back ${names.length} of ${entities.length} entities, first ${names[0]}, last ${names.at(-1)}`);
} finally {
  await host.close();
  await rm(work, { recursive: true, force: true });
}
