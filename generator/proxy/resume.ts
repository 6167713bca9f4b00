/**
 * What a host learns when the replica answering its call dies with the answer's SSE stream open.
 *
 * The balancer closes the host's side when the replica goes, but the MCP SDK's client resumes a broken answer
 * stream only when the stream had an event id, and otherwise leaves the call waiting until its own timeout
 * (a minute by default) for an answer no replica holds. So each answer stream starts with an event id (the SDK's
 * priming event, sent when an event store is given), and every event id names the stream and the requests it
 * answers. The host resumes the stream with a GET carrying the last id it saw, which the balancer sends to any
 * replica: one that is still running a named request re-attaches the stream, and the answer goes to it; one that
 * is not (the request died with another replica) answers the request at once with an error that says so, so the
 * host's call fails within a second and the host sends it again: one retried request.
 *
 * Nothing is stored: an event id carries what a resume needs. No event is replayed (no answer is held anywhere to
 * replay), so an id's requests are only those still unanswered when it was sent.
 */
import type { EventStore, StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** The JSON-RPC error code of a request whose answer was lost with a replica. */
export const ANSWER_LOST = -32000;

/** How long a host waits before it resumes a broken stream (the SSE `retry:` field), in milliseconds. */
export const RESUME_AFTER_MS = 500;

/** The most request ids an event id names, and the longest each may be: a host's own ids, kept small. */
const MAX_IDS = 8;
const MAX_ID_CHARS = 128;

/** What the SDK transport holds of its open requests (not public: the SDK is pinned by the lock). */
interface OpenRequests {
  _requestToStreamMapping?: Map<RequestId, string>;
}

/** The transport's own map of open requests to their streams, or undefined if the SDK no longer has it. */
function openRequests(http: StreamableHTTPServerTransport): Map<RequestId, string> | undefined {
  const inner = (http as unknown as { _webStandardTransport?: OpenRequests })._webStandardTransport;
  const map = inner?._requestToStreamMapping;
  return map instanceof Map ? map : undefined;
}

/**
 * The event store of one host session's transport (see the module comment): `http` is the transport it is given
 * to, whose open requests it reads.
 */
export function resumableAnswers(http: () => StreamableHTTPServerTransport): EventStore {
  let events = 0;
  return {
    async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
      const open = openRequests(http());
      const ids: RequestId[] = [];
      // The answer this event carries is no longer open once it is sent: it is left out.
      const answered = "id" in message && !("method" in message) ? message.id : undefined;
      for (const [id, stream] of open ?? []) {
        if (stream !== streamId || id === answered || ids.length >= MAX_IDS) continue;
        if (typeof id === "number" || id.length <= MAX_ID_CHARS) ids.push(id);
      }
      events += 1;
      return `${streamId}.${Buffer.from(JSON.stringify(ids)).toString("base64url")}.${events}`;
    },

    async replayEventsAfter(lastEventId, { send }): Promise<string> {
      const parsed = parseEventId(lastEventId);
      if (parsed === undefined) throw new Error("not an event id of this proxy");
      const open = openRequests(http());
      for (const id of parsed.ids) {
        // Still running here: the stream is re-attached and its answer goes to it.
        if (open?.get(id) === parsed.streamId) continue;
        events += 1;
        await send(`${parsed.streamId}.${Buffer.from("[]").toString("base64url")}.${events}`, {
          jsonrpc: "2.0",
          id,
          error: {
            code: ANSWER_LOST,
            message:
              "The proxy replica answering this request stopped before its answer was sent: send the request again (it may have run).",
            data: { reason: "answer_lost", retryable: true },
          },
        });
      }
      return parsed.streamId;
    },
  };
}

/** The stream and requests an event id names, or undefined when it is not one this module wrote. */
export function parseEventId(eventId: string): { streamId: string; ids: RequestId[] } | undefined {
  const match = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{0,4096})\.\d{1,15}$/.exec(eventId);
  if (match === null) return undefined;
  let ids: unknown;
  try {
    ids = JSON.parse(Buffer.from(match[2] as string, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (!Array.isArray(ids) || ids.length > MAX_IDS) return undefined;
  const valid = (id: unknown): id is RequestId =>
    (typeof id === "string" && id.length <= MAX_ID_CHARS) || (typeof id === "number" && Number.isSafeInteger(id));
  return ids.every(valid) ? { streamId: match[1] as string, ids } : undefined;
}
