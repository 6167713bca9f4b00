/**
 * A spilled result as a resource too: beside its handle, the host is given a `resource_link`
 * (`toolgate://spill/<handle>`) when its protocol knows that content (2025-06-18 and later), and `resources/read` of
 * that URI answers the read-back tool's first page, bounded as every page is, so the full value still leaves the
 * proxy only page by page. Every other resource is the server's, its text cleaned and bounded (`hygiene.ts`).
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { ReadBack } from "@toolgate/runtime";
import { hostResourceRead } from "./hygiene.js";

/** The URI prefix of a spilled result. */
export const SPILL_URI = "toolgate://spill/";

/** The first protocol version with `resource_link` content. */
const RESOURCE_LINKS_SINCE = "2025-06-18";

/** Whether a host speaking `protocolVersion` (a `YYYY-MM-DD` date) takes `resource_link` content. */
export function readsResourceLinks(protocolVersion: string | undefined): boolean {
  return typeof protocolVersion === "string" && /^\d{4}-\d{2}-\d{2}$/.test(protocolVersion)
    ? protocolVersion >= RESOURCE_LINKS_SINCE
    : false;
}

/** The `resource_link` content block of a spilled result. */
export function spillLink(handle: string, tool: string) {
  return {
    type: "resource_link" as const,
    uri: `${SPILL_URI}${handle}`,
    name: handle,
    title: `The full ${tool} result, page by page (read_tool_result)`,
    mimeType: "text/plain",
  };
}

type Sdk = typeof import("@modelcontextprotocol/sdk/types.js");

/** Serves `resources/read` of spilled results; without resources of the server's own, lists none. */
export function serveSpillResources(
  server: Server,
  client: Client,
  upstream: ServerCapabilities,
  reader: ReadBack,
  session: string,
  types: Sdk,
): void {
  server.setRequestHandler(types.ReadResourceRequestSchema, async (request, extra) => {
    const { uri } = request.params;
    if (!uri.startsWith(SPILL_URI)) {
      const answer = await client.request({ method: "resources/read", params: request.params }, types.ResultSchema, {
        signal: extra.signal,
      });
      return hostResourceRead(answer) as never;
    }
    const page = await reader.handle({ handle: uri.slice(SPILL_URI.length) }, { session });
    if (!page.ok) throw new types.McpError(types.ErrorCode.InvalidParams, `${page.error.code}: ${page.error.message}`);
    return { contents: [{ uri, mimeType: "text/plain", text: page.content }] };
  });
  if (upstream.resources === undefined) {
    server.setRequestHandler(types.ListResourcesRequestSchema, async () => ({ resources: [] }));
    server.setRequestHandler(types.ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
  }
}
