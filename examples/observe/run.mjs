/**
 * Observe mode: a contract on trial in front of real traffic. The read_text_file contract of schemas/ bounds a file's
 * text to 200 characters (`refine`) and says `"mode": "observe"`: the proxy runs every stage of the gate and records
 * what enforcement would have done, while the host gets the server's answers untouched. `toolgate report` then says,
 * per tool and code, what enforcement would have refused.
 */

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = import.meta.dirname;
const toolgate = path.resolve(here, "../../bin/toolgate.js"); // `npx toolgate` in your own project
const filesystemServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-filesystem/dist/index.js",
);

const work = await mkdtemp(path.join(os.tmpdir(), "toolgate-observe-example-"));
const events = path.join(work, "events.jsonl");
await writeFile(path.join(work, "short.md"), "A short note.\n");
await writeFile(path.join(work, "long.md"), `${"A line of a long design document.\n".repeat(40)}`);

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    toolgate,
    "proxy",
    "--schemas",
    path.join(here, "schemas"),
    "--events",
    events,
    "--",
    process.execPath,
    filesystemServer,
    work,
  ],
  cwd: here,
  stderr: "pipe",
});
const host = new Client({ name: "example-host", version: "1.0.0" });
await host.connect(transport);
const text = (result) => result.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");

try {
  for (const file of ["short.md", "long.md", "long.md"]) {
    const result = await host.callTool({ name: "read_text_file", arguments: { path: path.join(work, file) } });
    // The server's own answer, as it sent it: observe mode protects nothing.
    const answer = text(result);
    console.log(
      `${file}: the host got ${answer.length} characters, ${answer.startsWith("<tool_result") ? "gated" : "the server's own answer"}`,
    );
  }
} finally {
  await host.close();
}

// What enforcement would have done, from the events the proxy wrote.
const { stdout } = await promisify(execFile)(process.execPath, [toolgate, "report", events]);
console.log(stdout.slice(stdout.indexOf("Would have")).trimEnd());
await rm(work, { recursive: true, force: true });
