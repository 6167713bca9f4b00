/**
 * The wire ceiling over Streamable HTTP, on the responses a server sends (a JSON body, an SSE stream in small
 * chunks, an HTTP error's text): what passes reaches the SDK as it was sent, and what is past the ceiling is cut
 * with the request it answers ended by the `MESSAGE_TOO_LARGE` error.
 */
import { describe, expect, it } from "vitest";
import { boundedFetch, type HttpOversize } from "../../../generator/proxy/http-bound.js";
import { MESSAGE_TOO_LARGE } from "../../../generator/proxy/upstream.js";

const MAX = 1024;
const POST = { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }) };

/** A body sent in chunks of `size` bytes. */
function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + size));
      at += size;
    },
  });
}

/** `boundedFetch` in front of a server that answers `response`; what it reported cut. */
function fetchAnswering(response: () => Response) {
  const cut: HttpOversize[] = [];
  const bounded = boundedFetch(
    MAX,
    (oversize) => cut.push(oversize),
    async () => response(),
  );
  return { fetch: () => bounded("http://127.0.0.1/mcp", POST), cut };
}

const answer = (text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id: 7, result: { content: [{ type: "text", text }] } });

describe("a JSON body", () => {
  it("passes whole under the ceiling, with its headers", async () => {
    const { fetch, cut } = fetchAnswering(
      () => new Response(answer("hello"), { headers: { "content-type": "application/json", "mcp-session-id": "s1" } }),
    );
    const response = await fetch();
    expect(response.headers.get("mcp-session-id")).toBe("s1");
    expect(await response.json()).toEqual(JSON.parse(answer("hello")));
    expect(cut).toEqual([]);
  });

  it("past the ceiling becomes the error for the request its POST carried", async () => {
    const body = answer("x".repeat(5000));
    const { fetch, cut } = fetchAnswering(
      () => new Response(chunked(body, 100), { headers: { "content-type": "application/json" } }),
    );
    expect(await (await fetch()).json()).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: MESSAGE_TOO_LARGE,
        message: "The server's answer of at least 1100 bytes is over the proxy's ceiling of 1024 bytes.",
        data: { reason: "message_too_large", bytes: 1100, maxBytes: MAX },
      },
    });
    // The read was cut at the first chunk past the ceiling: the size is a lower bound.
    expect(cut).toEqual([{ bytes: 1100, exact: false }]);
  });
});

describe("an SSE stream", () => {
  const event = (data: string, id?: string) =>
    `event: message\n${id === undefined ? "" : `id: ${id}\n`}data: ${data}\n\n`;
  const progress = JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progress: 1 } });

  async function read(stream: string) {
    const { fetch, cut } = fetchAnswering(
      () => new Response(chunked(stream, 7), { headers: { "content-type": "text/event-stream" } }),
    );
    return { text: await (await fetch()).text(), cut };
  }

  it("passes every event under the ceiling as it was sent", async () => {
    const stream = `${event(progress, "e1")}: keep-alive\n\n${event(answer("hello"), "e2")}`;
    const { text, cut } = await read(stream);
    expect(text).toBe(stream);
    expect(cut).toEqual([]);
  });

  it("drops an event past the ceiling, keeps its id, and ends the request with the error at the stream's end", async () => {
    const big = answer("y".repeat(3000));
    const { text, cut } = await read(`${event(progress, "e1")}${event(big, "e2")}`);
    const size = new TextEncoder().encode(`event: message\nid: e2\ndata: ${big}\n`).length;
    expect(cut).toEqual([{ bytes: size, exact: true }]);
    expect(text).not.toContain("yyyy");
    const error = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: MESSAGE_TOO_LARGE,
        message: `The server's answer of ${size} bytes is over the proxy's ceiling of ${MAX} bytes.`,
        data: { reason: "message_too_large", bytes: size, maxBytes: MAX },
      },
    });
    expect(text).toBe(`${event(progress, "e1")}id: e2\n\nevent: message\ndata: ${error}\n\n`);
  });

  it("ends the request with the error when the stream ends inside an event past the ceiling", async () => {
    const { text, cut } = await read(`${event(progress)}data: ${"w".repeat(3000)}`);
    expect(text).not.toContain("www");
    expect(text).toMatch(
      /^event: message\ndata: .*\n\nevent: message\ndata: \{"jsonrpc":"2.0","id":7,"error":\{"code":-32097,/,
    );
    expect(cut).toEqual([{ bytes: 3007, exact: true }]);
  });

  it("drops an event whose many data lines together pass the ceiling", async () => {
    const lines = Array.from({ length: 40 }, () => `data: ${"z".repeat(40)}`).join("\n");
    const { text, cut } = await read(`${lines}\n\n${event(answer("after"))}`);
    expect(text).not.toContain("zzzz");
    expect(text).toContain('"text":"after"');
    expect(cut).toHaveLength(1);
  });
});

it("cuts any other body at the ceiling", async () => {
  const { fetch, cut } = fetchAnswering(() => new Response("e".repeat(5000), { status: 500 }));
  const response = await fetch();
  expect(response.status).toBe(500);
  expect(await response.text()).toBe("e".repeat(MAX));
  expect(cut).toHaveLength(1);
});
