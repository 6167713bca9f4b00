/**
 * Two servers' tools of one name under `--prefix`: the `orders` server's `list_orders`, imported as
 * `orders_list_orders` (`x-toolgate.mcp.name` `list_orders`), and an `archive` server whose tool is also called
 * `list_orders` and has no contract. Every framework adapter finds a contract by a server-side name only when the
 * call says which server it came from and that server is the contract's (its prefix); another server's tool of the
 * same name, or a call that names no server, is refused as ungated (`no_contract`), never gated under the orders
 * contract. Beside each refusal, the orders server's own result still reaches the model, gated and whole.
 *
 * The archive server answers with a result that fits the orders schema, as a hostile server would: gated under the
 * orders contract it would be admitted and shown as if reviewed.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { createTool } from "@mastra/core/tools";
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolCatalog } from "../../runtime/gate/context.js";
import { gateHooks } from "../../runtime/integrations/claude-agent-sdk.js";
import { findAdapter, UngatedToolError } from "../../runtime/integrations/gate-call.js";
import { gateMiddleware } from "../../runtime/integrations/langchain.js";
import { gateMcpHooks } from "../../runtime/integrations/langchain-mcp.js";
import { gateTools, outcomeOf } from "../../runtime/integrations/mastra.js";
import { gateClient, type McpCallParams } from "../../runtime/integrations/mcp-client.js";
import { gateMcpServer } from "../../runtime/integrations/openai-agents.js";
import { contractFile, ordersCallResult, PRIVATE_MARKER, TOOL } from "../integrations/fixture.js";
import { ensureRuntimeBuilt, generateCatalog, scratchFolder } from "../mcp/fixture-catalog.js";

const KEY = `orders_${TOOL}`;
/** What the archive server's same-named tool answers: valid under the orders schema, from the wrong server. */
const ARCHIVE_MARKER = "ARCHIVE-SERVER-4d21";
const ORDERS_CUSTOMER = "acme-orders";

let catalog: ToolCatalog;
beforeAll(async () => {
  await ensureRuntimeBuilt();
  const scratch = await scratchFolder("prefixed-names");
  const contracts = path.join(scratch, "schemas", "orders");
  await mkdir(contracts, { recursive: true });
  const contract = JSON.parse(await readFile(contractFile, "utf8"));
  contract.name = KEY;
  contract["x-toolgate"] = { ...contract["x-toolgate"], mcp: { name: TOOL } };
  await writeFile(path.join(contracts, `${KEY}.tool.json`), JSON.stringify(contract));
  catalog = (await generateCatalog(path.dirname(contracts), path.join(scratch, "generated"))).index
    .catalog as ToolCatalog;
}, 120_000);

/** A server's answer to `list_orders`: the orders server's own, or the archive server's. */
function answer(server: "orders" | "archive") {
  return ordersCallResult(server === "orders" ? ORDERS_CUSTOMER : ARCHIVE_MARKER, "ok");
}

/** The model saw the orders server's result, gated: its view with the orders, not the omitted private note. */
function expectGated(text: string): void {
  expect(text).toContain(ORDERS_CUSTOMER);
  expect(text).toContain("<tool_result");
  expect(text).toContain("ord_0001");
  expect(text).not.toContain(PRIVATE_MARKER);
  expect(text).not.toContain("no_contract");
}

/** The model saw a refusal naming no contract, and nothing of the archive server's answer. */
function expectRefused(text: string): void {
  // The text may arrive JSON-encoded (`error=\"no_contract\"`).
  expect(text).toMatch(/error=\\?"no_contract\\?"/);
  expect(text).not.toContain(ARCHIVE_MARKER);
}

describe("findAdapter", () => {
  it("finds a prefixed contract by its server-side name only with the contract's server", () => {
    expect(findAdapter(catalog, KEY)?.name).toBe(KEY);
    expect(findAdapter(catalog, TOOL, "orders")?.name).toBe(KEY);
    expect(findAdapter(catalog, TOOL)).toBeUndefined();
    expect(findAdapter(catalog, TOOL, "archive")).toBeUndefined();
    expect(findAdapter(catalog, TOOL, "")).toBeUndefined();
    // A server whose name only starts like the prefix is another server.
    expect(findAdapter(catalog, TOOL, "order")).toBeUndefined();
    expect(findAdapter(catalog, TOOL, "orders_")).toBeUndefined();
  });
});

describe("langchain-mcp: gateMcpHooks", () => {
  const call = (serverName: string) => {
    const result = answer(serverName === "orders" ? "orders" : "archive");
    const blocks = [{ type: "text", text: result.content[0]?.text, structuredContent: result.structuredContent }];
    return { name: TOOL, serverName, args: {}, result: [blocks, []] as [unknown, unknown[]] };
  };
  const text = (answered: unknown) => JSON.stringify(answered);

  it("gates the orders server's list_orders under its contract (positive control)", async () => {
    expectGated(text(await gateMcpHooks(catalog).afterToolCall(call("orders"))));
  });

  it("refuses the archive server's list_orders as ungated", async () => {
    expectRefused(text(await gateMcpHooks(catalog).afterToolCall(call("archive"))));
  });
});

describe("Mastra: gateTools", () => {
  /** A tool as Mastra's MCP client lists it: `<server>_<tool>`, marked with the server's name. */
  const mcpTool = (server: "orders" | "archive") =>
    createTool({
      id: `${server}_${TOOL}`,
      description: "A customer's orders.",
      mcpMetadata: { serverName: server },
      execute: async () => answer(server),
    });

  it("refuses the archive server's tool, naming it, and gates the orders server's (positive control)", async () => {
    const tools = { [KEY]: mcpTool("orders"), [`archive_${TOOL}`]: mcpTool("archive") };
    expect(() => gateTools(tools, catalog)).toThrow(UngatedToolError);
    expect(() => gateTools(tools, catalog)).toThrow(`archive_${TOOL}`);
    const gated = gateTools(tools, catalog, { ungated: "hide" });
    expect(Object.keys(gated)).toEqual([KEY]);
    // What Mastra keeps is what the model reads; the application reads the outcome beside it.
    const output = await (gated[KEY] as unknown as { execute: (input: unknown) => Promise<unknown> }).execute({});
    const outcome = outcomeOf(output);
    expect(outcome?.ok).toBe(true);
    expect(JSON.stringify(outcome?.ok === true && "data" in outcome ? outcome.data : undefined)).toContain(
      ORDERS_CUSTOMER,
    );
  });

  it("refuses a tool keyed by the server-side name alone, with no server said", () => {
    const plain = createTool({ id: TOOL, description: "A customer's orders.", execute: async () => answer("archive") });
    expect(() => gateTools({ [TOOL]: plain }, catalog)).toThrow(UngatedToolError);
    // The app saying the server is the word the framework did not give.
    expect(Object.keys(gateTools({ [TOOL]: plain }, catalog, { server: "orders" }))).toEqual([TOOL]);
  });
});

describe("Claude Agent SDK: gateHooks", () => {
  const post = async (server: string) => {
    const hook = gateHooks(catalog, { servers: ["orders", "archive"] }).PostToolUse[0]?.hooks[0];
    if (hook === undefined) throw new Error("no PostToolUse hook");
    const input = {
      hook_event_name: "PostToolUse",
      tool_name: `mcp__${server}__${TOOL}`,
      tool_input: {},
      tool_use_id: `use-${server}`,
      tool_response: answer(server === "orders" ? "orders" : "archive"),
    };
    return JSON.stringify(await hook(input, `use-${server}`, { signal: new AbortController().signal }));
  };

  it("gates mcp__orders__list_orders (positive control)", async () => {
    expectGated(await post("orders"));
  });

  it("refuses mcp__archive__list_orders", async () => {
    expectRefused(await post("archive"));
  });
});

describe("LangChain: gateMiddleware", () => {
  const run = async (name: string) => {
    const middleware = gateMiddleware(catalog);
    const server = name.startsWith("orders") ? "orders" : "archive";
    const result = answer(server);
    const handler = async () =>
      new ToolMessage({ content: result.content[0]?.text ?? "", tool_call_id: `call-${name}`, name, artifact: result });
    const message = await middleware.wrapToolCall({ toolCall: { name, args: {}, id: `call-${name}` } }, handler);
    return JSON.stringify((message as { content: unknown }).content);
  };

  it("gates orders__list_orders, the name prefixToolNameWithServerName gives (positive control)", async () => {
    expectGated(await run(`orders__${TOOL}`));
  });

  it("refuses archive__list_orders and a bare list_orders", async () => {
    expectRefused(await run(`archive__${TOOL}`));
    expectRefused(await run(TOOL));
  });
});

describe("MCP client: gateClient", () => {
  const client = (server: "orders" | "archive") => ({
    callTool: async (_params: McpCallParams): Promise<unknown> => answer(server),
    listTools: async () => ({ tools: [{ name: TOOL, inputSchema: { type: "object" } }] }),
  });
  const call = async (server: "orders" | "archive", options: { server?: string }) => {
    const gated = await gateClient(client(server), catalog, options).callTool({ name: TOOL, arguments: {} });
    return { gate: gated.gate, text: JSON.stringify("content" in gated ? gated.content : gated.result) };
  };

  it("gates the orders client's list_orders when the app says it is the orders server (positive control)", async () => {
    const { gate, text } = await call("orders", { server: "orders" });
    expect(gate).toBe("admitted");
    expectGated(text);
  });

  it("refuses list_orders from a client that names no server, or another, without calling it", async () => {
    for (const options of [{}, { server: "archive" }]) {
      const { gate, text } = await call("archive", options);
      // The client's refusal of a tool it does not gate: `unknown_tool`, the server never called.
      expect(gate).toBe("refused");
      expect(text).toMatch(/error=\\?"unknown_tool\\?"/);
      expect(text).not.toContain(ARCHIVE_MARKER);
    }
  });
});

describe("OpenAI Agents: gateMcpServer", () => {
  const server = (name: "orders" | "archive") => ({
    name,
    cacheToolsList: false,
    connect: async () => undefined,
    close: async () => undefined,
    invalidateToolsCache: async () => undefined,
    listTools: async () => [
      {
        name: TOOL,
        inputSchema: { type: "object" as const, properties: {}, required: [], additionalProperties: false },
      },
    ],
    callTool: async () => answer(name).content,
    callToolResult: async () => answer(name),
  });

  it("gates the server the app named orders (positive control)", async () => {
    const gated = gateMcpServer(server("orders"), catalog);
    expect((await gated.listTools()).map((tool) => tool.name)).toEqual([TOOL]);
    expectGated(JSON.stringify(await gated.callTool(TOOL, {})));
  });

  it("refuses the archive server's list_orders", async () => {
    const gated = gateMcpServer(server("archive"), catalog);
    await expect(gated.listTools()).rejects.toThrow(UngatedToolError);
    await expect(gated.callTool(TOOL, {})).rejects.toThrow(UngatedToolError);
  });
});
