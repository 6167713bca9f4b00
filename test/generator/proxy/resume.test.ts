/**
 * The event ids of a host's answer streams (`generator/proxy/resume.ts`): each names its stream and the requests
 * still open on it, and a resume answers a named request this transport does not hold with the lost-answer error,
 * while one it still runs is left to its answer.
 */
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { ANSWER_LOST, parseEventId, resumableAnswers } from "../../../generator/proxy/resume.js";

/** A stand-in for the SDK transport's one field the store reads: its open requests and their streams. */
function transport(open: Map<string | number, string>): () => StreamableHTTPServerTransport {
  const http = { _webStandardTransport: { _requestToStreamMapping: open } };
  return () => http as unknown as StreamableHTTPServerTransport;
}

describe("resumable answer streams", () => {
  it("names a stream's open requests in each event id, the answered one left out", async () => {
    const open = new Map<string | number, string>([
      [7, "stream-a"],
      ["x", "stream-a"],
      [8, "stream-b"],
    ]);
    const store = resumableAnswers(transport(open));
    const priming = await store.storeEvent("stream-a", {} as JSONRPCMessage);
    expect(parseEventId(priming)).toEqual({ streamId: "stream-a", ids: [7, "x"] });
    const answer = await store.storeEvent("stream-a", { jsonrpc: "2.0", id: 7, result: {} });
    expect(parseEventId(answer)).toEqual({ streamId: "stream-a", ids: ["x"] });
    // Every id is new.
    expect(await store.storeEvent("stream-a", {} as JSONRPCMessage)).not.toBe(priming);
  });

  it("answers a request lost with another replica at once, and leaves one still running here to its answer", async () => {
    const there = resumableAnswers(transport(new Map([[7, "stream-a"]])));
    const lastSeen = await there.storeEvent("stream-a", {} as JSONRPCMessage);

    const sent: JSONRPCMessage[] = [];
    const elsewhere = resumableAnswers(transport(new Map()));
    const send = async (_id: string, message: JSONRPCMessage) => void sent.push(message);
    expect(await elsewhere.replayEventsAfter(lastSeen, { send })).toBe("stream-a");
    expect(sent).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: ANSWER_LOST,
          message:
            "The proxy replica answering this request stopped before its answer was sent: send the request again (it may have run).",
          data: { reason: "answer_lost", retryable: true },
        },
      },
    ]);

    sent.length = 0;
    expect(await there.replayEventsAfter(lastSeen, { send })).toBe("stream-a");
    expect(sent).toEqual([]);
  });

  it("refuses an event id it did not write", async () => {
    const store = resumableAnswers(transport(new Map()));
    for (const bad of [
      "",
      "stream-a",
      "a.b.c",
      `s.${Buffer.from('{"a":1}').toString("base64url")}.1`,
      `s.${Buffer.from(JSON.stringify([{}])).toString("base64url")}.1`,
    ]) {
      expect(parseEventId(bad)).toBeUndefined();
      await expect(store.replayEventsAfter(bad, { send: async () => undefined })).rejects.toThrow();
    }
  });
});
