/**
 * Seven real MCP servers from npm that run offline, each with the workspace it needs (files, a SQLite database, a
 * git repository, pages on loopback), the legitimate calls a model makes of it, and calls the server refuses.
 *
 * The usefulness acceptance test gates every call through the contracts `toolgate import` writes with its defaults;
 * the result-size measure (`measure.ts`) reads the same calls' raw results. One list, so the defaults are chosen
 * from the very results the acceptance test holds them to.
 *
 * Nothing here downloads: every server is an exact-pinned devDependency, the browser is Debian's chromium
 * (`/usr/bin/chromium`, which `.ci/run` installs when it is missing), and pages are served by `node:http` on
 * 127.0.0.1 (Playwright refuses `file://`).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";

const require = createRequire(import.meta.url);

/** The repository, whose own source files serve as a real project's files. */
const REPO = process.cwd();

/**
 * A file of an installed package, found the way Node finds the package (some of these export only their ESM entry,
 * so `require.resolve` of a path inside them is refused).
 */
function packageFile(name: string, file: string): string {
  for (const folder of require.resolve.paths(name) ?? []) {
    const candidate = path.join(folder, name, file);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${name}/${file} is not installed: run npm ci`);
}

/** The arguments of one call. */
export type Args = Record<string, unknown>;

/**
 * One legitimate call. `size` says whether its result is meant to fit the default context budget (`fits`: it must
 * reach the model whole) or to exceed it (`over`: the model must still get a useful part); the acceptance test
 * holds each label to the measured size of the answer, so a label cannot hide a result that changed size.
 */
export interface LegitimateCall {
  tool: string;
  args: Args;
  size: "fits" | "over";
  /** What the call is, for messages and the measure's table. */
  what: string;
}

/** One call the server refuses, and words of its own error text the model must read. */
export interface RefusedCall {
  tool: string;
  args: Args;
  /** A part of the tool's error text that names what was wrong. */
  words: string;
}

/** A server started in its workspace: how to run it and what to call. */
export interface StartedServer {
  /** `node` arguments. */
  args: string[];
  /** Variables for the server alone. */
  env: Record<string, string>;
  /** Calls that prepare the server's state before the measured ones (their results are checked, then dropped). */
  setup?: Array<[string, Args]>;
  calls: LegitimateCall[];
  errors: RefusedCall[];
  /** Ends what the workspace started (the page server). */
  stop: () => Promise<void>;
}

/** A real server and how to prepare its workspace in a scratch folder (which exists, empty). */
export interface RealServer {
  name: string;
  start: (scratch: string) => Promise<StartedServer>;
}

const noop = async () => {};

/** A 1x1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwADAgH/eL9GtQAAAABJRU5ErkJggg==",
  "base64",
);

/** About 900 KB of numbered lines: what a model must never see whole, and may see in part. */
export const LARGE_TEXT = `${Array.from(
  { length: 9000 },
  (_, i) => `line ${String(i + 1).padStart(5, "0")}: ${"the quick brown fox jumps over the lazy dog ".repeat(2)}`,
).join("\n")}\n`;

/** A paragraph of a realistic chain of thought, repeated to `bytes` UTF-8 bytes. */
function thought(bytes: number, topic: string): string {
  const sentences = [
    `Looking at ${topic}, the first thing to check is whether the failing request reaches the handler at all.`,
    "The access log shows the request with status 502, so the proxy answered before the handler returned.",
    "That points at the upstream timeout (30 s) rather than at the handler's own validation.",
    "Next: compare the p99 latency of the handler with the timeout, and look for a slow query in the same window.",
    "If the slow query explains it, an index on (user_id, created_at) should bring it under 200 ms.",
  ];
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const sentence = sentences[i % sentences.length] as string;
    out.push(i % 5 === 4 ? `${sentence}\n` : sentence);
    length += Buffer.byteLength(sentence) + 1;
  }
  return out.join(" ").slice(0, bytes);
}

const filesystem: RealServer = {
  name: "filesystem",
  async start(scratch) {
    const files = path.join(scratch, "files");
    await mkdir(files, { recursive: true });
    await writeFile(path.join(files, "pixel.png"), PNG);
    await writeFile(path.join(files, "large.txt"), LARGE_TEXT);
    await writeFile(path.join(files, "README.md"), "# Orders service\n\nRun `npm start`.\nPort: 8080\n");
    await cp(path.join(REPO, "generator"), path.join(files, "generator"), { recursive: true });
    const at = (name: string) => path.join(files, name);
    return {
      args: [packageFile("@modelcontextprotocol/server-filesystem", "dist/index.js"), files],
      env: {},
      calls: [
        { tool: "list_allowed_directories", args: {}, size: "fits", what: "allowed directories" },
        { tool: "list_directory", args: { path: files }, size: "fits", what: "a directory of 3 files" },
        { tool: "read_text_file", args: { path: at("README.md") }, size: "fits", what: "a 4-line README" },
        { tool: "get_file_info", args: { path: at("README.md") }, size: "fits", what: "file info" },
        { tool: "search_files", args: { path: files, pattern: "*.md" }, size: "fits", what: "a file search" },
        { tool: "read_media_file", args: { path: at("pixel.png") }, size: "fits", what: "a PNG" },
        { tool: "read_text_file", args: { path: at("generator/pipeline.ts") }, size: "fits", what: "a source file" },
        {
          tool: "read_text_file",
          args: { path: at("generator/contract/x-toolgate.ts") },
          size: "fits",
          what: "a longer source file",
        },
        {
          tool: "read_text_file",
          args: { path: at("generator/mcp/import.ts") },
          size: "fits",
          what: "a 27 KB source file",
        },
        { tool: "list_directory", args: { path: at("generator/checks") }, size: "fits", what: "a source folder" },
        { tool: "directory_tree", args: { path: at("generator/diff") }, size: "fits", what: "a source tree" },
        { tool: "search_files", args: { path: files, pattern: "**/*.ts" }, size: "fits", what: "every source file" },
        { tool: "read_text_file", args: { path: at("large.txt") }, size: "over", what: "a 900 KB file" },
      ],
      errors: [{ tool: "read_text_file", args: { path: at("missing.txt") }, words: "missing.txt" }],
      stop: noop,
    };
  },
};

const memory: RealServer = {
  name: "memory",
  async start(scratch) {
    return {
      args: [packageFile("@modelcontextprotocol/server-memory", "dist/index.js")],
      env: { MEMORY_FILE_PATH: path.join(scratch, "memory.jsonl") },
      calls: [
        {
          tool: "create_entities",
          args: {
            entities: [
              { name: "Ada Lovelace", entityType: "person", observations: ["wrote the first program", "born 1815"] },
              { name: "Analytical Engine", entityType: "machine", observations: ["designed by Babbage"] },
            ],
          },
          size: "fits",
          what: "two entities created",
        },
        {
          tool: "create_relations",
          args: { relations: [{ from: "Ada Lovelace", to: "Analytical Engine", relationType: "programmed" }] },
          size: "fits",
          what: "a relation created",
        },
        {
          tool: "create_entities",
          args: {
            entities: Array.from({ length: 40 }, (_, i) => ({
              name: `Service ${i + 1}`,
              entityType: "service",
              observations: [
                `owned by team ${(i % 6) + 1}`,
                `deployed in eu-west-${(i % 3) + 1}`,
                `p99 latency ${120 + i * 7} ms`,
              ],
            })),
          },
          size: "fits",
          what: "40 entities created",
        },
        { tool: "read_graph", args: {}, size: "fits", what: "a graph of 42 entities" },
        { tool: "search_nodes", args: { query: "Ada" }, size: "fits", what: "a node search" },
        { tool: "open_nodes", args: { names: ["Analytical Engine"] }, size: "fits", what: "one node" },
      ],
      errors: [
        {
          tool: "add_observations",
          args: { observations: [{ entityName: "Nobody", contents: ["x"] }] },
          words: "Nobody",
        },
      ],
      stop: noop,
    };
  },
};

const everything: RealServer = {
  name: "everything",
  async start() {
    return {
      args: [packageFile("@modelcontextprotocol/server-everything", "dist/index.js"), "stdio"],
      env: {},
      calls: [
        { tool: "echo", args: { message: "hello" }, size: "fits", what: "a short echo" },
        { tool: "get-sum", args: { a: 2, b: 3 }, size: "fits", what: "a sum" },
        { tool: "get-structured-content", args: { location: "Chicago" }, size: "fits", what: "weather, structured" },
        { tool: "get-tiny-image", args: {}, size: "fits", what: "an image" },
        { tool: "echo", args: { message: LARGE_TEXT }, size: "over", what: "a 900 KB echo" },
      ],
      errors: [{ tool: "get-sum", args: { a: "two", b: 3 }, words: "expected number" }],
      stop: noop,
    };
  },
};

const sequentialThinking: RealServer = {
  name: "sequential-thinking",
  async start() {
    const calls: LegitimateCall[] = [300, 1500, 4000, 8700, 12_000, 20_000].map((bytes, i, all) => ({
      tool: "sequentialthinking",
      args: {
        thought: thought(bytes, "the 502s on /orders"),
        thoughtNumber: i + 1,
        totalThoughts: all.length,
        nextThoughtNeeded: i + 1 < all.length,
      },
      size: "fits",
      what: `a thought of ${bytes} bytes`,
    }));
    calls.push({
      tool: "sequentialthinking",
      args: {
        thought: thought(2000, "an alternative: the connection pool"),
        thoughtNumber: 3,
        totalThoughts: 6,
        nextThoughtNeeded: true,
        branchFromThought: 2,
        branchId: "pool",
      },
      size: "fits",
      what: "a branch",
    });
    return {
      args: [packageFile("@modelcontextprotocol/server-sequential-thinking", "dist/index.js")],
      env: { DISABLE_THOUGHT_LOGGING: "true" },
      calls,
      errors: [
        // The server checks its own arguments and answers a bad one as a tool error.
        {
          tool: "sequentialthinking",
          args: { thought: "x", thoughtNumber: 0, totalThoughts: 1 },
          words: "thoughtNumber",
        },
      ],
      stop: noop,
    };
  },
};

const sqlite: RealServer = {
  name: "sqlite",
  async start(scratch) {
    const database = path.join(scratch, "shop.db");
    // The tables are made through the server itself, so the test needs no sqlite3 program of the system.
    const rows = Array.from({ length: 3000 }, (_, i) => {
      const id = i + 1;
      return `(${id}, 'customer ${id}', 'customer${id}@example.com', ${(id * 7.25) % 500})`;
    });
    const setup: Array<[string, Args]> = [
      [
        "create_table",
        { query: "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, balance REAL)" },
      ],
      [
        "create_table",
        {
          query:
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), total REAL, placed TEXT)",
        },
      ],
      ["create_table", { query: "CREATE TABLE products (id INTEGER PRIMARY KEY, title TEXT, price REAL)" }],
      ["write_query", { query: `INSERT INTO users VALUES ${rows.join(",")}` }],
      [
        "write_query",
        {
          query:
            "INSERT INTO orders SELECT id, id, id * 3.5, date('2026-01-01', '+' || id || ' days') FROM users WHERE id <= 40",
        },
      ],
    ];
    return {
      args: [packageFile("mcp-server-sqlite-npx", "dist/index.js"), database],
      env: {},
      setup,
      calls: [
        { tool: "list_tables", args: {}, size: "fits", what: "3 tables" },
        { tool: "describe_table", args: { table_name: "orders" }, size: "fits", what: "a table's columns" },
        {
          tool: "read_query",
          args: { query: "SELECT id, name FROM users WHERE id <= 14 ORDER BY id" },
          size: "fits",
          what: "a 14-row result",
        },
        {
          tool: "read_query",
          args: { query: "SELECT count(*) AS orders, round(sum(total), 2) AS revenue FROM orders" },
          size: "fits",
          what: "an aggregate",
        },
        {
          tool: "read_query",
          args: {
            query: "SELECT o.id, u.name, o.total, o.placed FROM orders o JOIN users u ON u.id = o.user_id LIMIT 40",
          },
          size: "fits",
          what: "a 40-row join",
        },
        {
          tool: "read_query",
          args: { query: "SELECT id, name, email FROM users WHERE balance > 400 ORDER BY balance DESC LIMIT 100" },
          size: "fits",
          what: "100 rows",
        },
        { tool: "read_query", args: { query: "SELECT * FROM users" }, size: "over", what: "3,000 rows" },
      ],
      errors: [{ tool: "read_query", args: { query: "SELECT * FROM userz" }, words: "no such table: userz" }],
      stop: noop,
    };
  },
};

const git: RealServer = {
  name: "git",
  async start(scratch) {
    const repo = path.join(scratch, "repo");
    await mkdir(repo, { recursive: true });
    const run = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" });
    run("init", "-q", "-b", "main");
    run("config", "user.name", "Ada Lovelace");
    run("config", "user.email", "ada@example.com");
    run("config", "commit.gpgsign", "false");
    await cp(path.join(REPO, "generator/checks"), path.join(repo, "checks"), { recursive: true });
    run("add", ".");
    run("commit", "-q", "-m", "Import the checks");
    // Thirty small commits, one file each, as a project's history reads.
    const names = (await readdir(path.join(repo, "checks"))).filter((name) => name.endsWith(".ts")).sort();
    for (let i = 0; i < 30; i++) {
      const name = names[i % names.length] as string;
      const file = path.join(repo, "checks", name);
      await writeFile(file, `${await readFile(file, "utf8")}// reviewed in round ${i + 1}\n`);
      run("commit", "-q", "-am", `Review ${name} (round ${i + 1}): note what was checked`);
    }
    // A working-tree change of a few hunks in one file, and an untracked file.
    const edited = path.join(repo, "checks", names[0] as string);
    const lines = (await readFile(edited, "utf8")).split("\n");
    for (const at of [5, 40, 80]) if (at < lines.length) lines.splice(at, 1, `// changed: ${lines[at] ?? ""}`);
    await writeFile(edited, lines.join("\n"));
    await writeFile(path.join(repo, "notes.txt"), "untracked\n");
    return {
      args: [packageFile("@cyanheads/git-mcp-server", "dist/index.js")],
      env: {
        MCP_TRANSPORT_TYPE: "stdio",
        MCP_LOG_LEVEL: "error",
        GIT_BASE_DIR: scratch,
        GIT_SIGN_COMMITS: "false",
      },
      calls: [
        { tool: "git_status", args: { path: repo }, size: "fits", what: "status" },
        { tool: "git_log", args: { path: repo }, size: "fits", what: "the last 10 commits" },
        { tool: "git_log", args: { path: repo, maxCount: 31 }, size: "fits", what: "31 commits" },
        { tool: "git_diff", args: { path: repo }, size: "fits", what: "a working-tree diff" },
        { tool: "git_show", args: { path: repo, object: "HEAD~5" }, size: "fits", what: "a commit" },
        { tool: "git_show", args: { path: repo, object: "HEAD", stat: true }, size: "fits", what: "a commit's stat" },
        { tool: "git_branch", args: { path: repo }, size: "fits", what: "branches" },
      ],
      errors: [{ tool: "git_show", args: { path: repo, object: "no-such-revision" }, words: "no-such-revision" }],
      stop: noop,
    };
  },
};

/** The page a model opens: a title, a list, a button, a link. */
const PAGE = `<!doctype html><html><head><title>Orders dashboard</title></head><body>
<h1>Orders</h1><ul><li>Order 1001: 3 items, shipped</li><li>Order 1002: 1 item, pending</li></ul>
<button onclick="document.querySelector('h1').textContent = 'Orders (refreshed)'">Refresh</button>
<a href="/catalog">Catalog</a></body></html>`;

/** A page of 60 orders: a table a model reads whole. */
const ORDERS = `<!doctype html><html><head><title>All orders</title></head><body><h1>All orders</h1><table>${Array.from(
  { length: 60 },
  (_, i) =>
    `<tr><td>Order ${1001 + i}</td><td>${(i % 4) + 1} items</td><td>${i % 3 === 0 ? "pending" : "shipped"}</td></tr>`,
).join("")}</table></body></html>`;

/** A long page: a catalog of 3,000 rows, whose snapshot no budget holds. */
const CATALOG = `<!doctype html><html><head><title>Catalog</title></head><body><h1>Catalog</h1><table>${Array.from(
  { length: 3000 },
  (_, i) => `<tr><td>SKU-${10_000 + i}</td><td>Widget ${i + 1}</td><td>${(i % 97) + 0.99}</td></tr>`,
).join("")}</table></body></html>`;

/** Serve the pages on 127.0.0.1 at a free port. */
async function servePages(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    const body = request.url === "/catalog" ? CATALOG : request.url === "/orders" ? ORDERS : PAGE;
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(body);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

const playwright: RealServer = {
  name: "playwright",
  async start(scratch) {
    const pages = await servePages();
    const output = path.join(scratch, "playwright");
    await mkdir(output, { recursive: true });
    return {
      args: [
        packageFile("@playwright/mcp", "cli.js"),
        "--headless",
        "--isolated",
        "--no-sandbox",
        "--browser",
        "chromium",
        "--executable-path",
        "/usr/bin/chromium",
        "--output-dir",
        output,
      ],
      env: {},
      calls: [
        { tool: "browser_navigate", args: { url: `${pages.origin}/` }, size: "fits", what: "navigate" },
        { tool: "browser_snapshot", args: {}, size: "fits", what: "a snapshot" },
        { tool: "browser_click", args: { element: "Refresh button", target: "e6" }, size: "fits", what: "a click" },
        { tool: "browser_take_screenshot", args: { scale: "css" }, size: "fits", what: "a screenshot" },
        { tool: "browser_navigate", args: { url: `${pages.origin}/orders` }, size: "fits", what: "navigate" },
        { tool: "browser_snapshot", args: {}, size: "fits", what: "a 60-row table" },
        { tool: "browser_navigate", args: { url: `${pages.origin}/catalog` }, size: "fits", what: "navigate" },
        { tool: "browser_snapshot", args: {}, size: "over", what: "a 3,000-row table" },
        { tool: "browser_close", args: {}, size: "fits", what: "close" },
      ],
      errors: [{ tool: "browser_click", args: { element: "Missing", target: "e99999" }, words: "e99999" }],
      stop: pages.close,
    };
  },
};

/** The seven servers, in the order the acceptance test runs them. */
export const REAL_SERVERS: readonly RealServer[] = [
  filesystem,
  memory,
  everything,
  sequentialThinking,
  sqlite,
  git,
  playwright,
];

/** The command line `toolgate import --stdio` runs for a started server: its variables, then `node` and its args. */
export function commandLine(started: StartedServer): string {
  const env = Object.entries(started.env).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
  return [...env, JSON.stringify(process.execPath), ...started.args.map((arg) => JSON.stringify(arg))].join(" ");
}
