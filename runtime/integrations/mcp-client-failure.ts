/**
 * The MCP TypeScript SDK v2 client (`@modelcontextprotocol/client`) as the gate meets it: its `jsonSchemaValidator`
 * option answered from the generated validators, and its errors turned into the transport failures `admit` takes.
 *
 * v2 keeps v1's validator interface (`getValidator(schema)` returning a function of the value that answers
 * `{ valid, data, errorMessage }`), and calls it lazily, on the first `callTool` of a tool it has listed (or was given
 * the definition of). When `structuredContent` breaks the schema, v2 does not return the result: `callTool` rejects
 * with a `ProtocolError` of code -32602 (InvalidParams) whose message starts "Structured content does not match the
 * tool's output schema". Its local failures are `SdkError`s with string codes (`REQUEST_TIMEOUT`,
 * `CONNECTION_CLOSED`, `NOT_CONNECTED`), where v1 used numbers, so v1's {@link mcpCallFailure} alone would call a
 * timeout a transport error.
 *
 * Nothing here imports the SDK: its shapes are typed structurally.
 */
import { type TransportFailure, transportFailure } from "../contract/failure.js";
import {
  type McpValidatorOptions,
  type McpValidatorProvider,
  mcpCallFailure,
  mcpValidatorProvider,
  type OutputValidators,
} from "./mcp-validator.js";

/**
 * The v2 client's `jsonSchemaValidator` from the generated `outputValidators` (the catalog's `index.ts` exports it),
 * found by the sha256 of the advertised output schema: the client compiles nothing, so no `new Function`.
 * `new Client(info, { jsonSchemaValidator: mcpClientValidator(outputValidators) })`. A schema toolgate did not
 * generate fails closed (every value refused) unless `options.fallback` answers it; messages name locations and
 * keywords, never values.
 */
export function mcpClientValidator(
  outputValidators: OutputValidators,
  options: McpValidatorOptions = {},
): McpValidatorProvider {
  return mcpValidatorProvider(outputValidators, options);
}

/** The messages v2's `callTool` throws when it refuses a result against the tool's output schema (matched, never kept). */
const OUTPUT_REFUSED =
  /^(Structured content does not match the tool's output schema|Failed to validate structured content|Tool .* has an output schema but did not return structured content|Tool .* has an invalid outputSchema)/;

/** JSON-RPC InvalidParams and InvalidRequest: the codes v2 gives its output-schema refusals. */
const REFUSAL_CODES = new Set([-32602, -32600]);

/** The `code`, `name` and `message` of a thrown value, read once each without letting a hostile getter throw. */
function fieldsOf(error: unknown): { code?: unknown; name?: unknown; message?: unknown } {
  if (typeof error !== "object" || error === null) return {};
  try {
    const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
    return { code, name, message };
  } catch {
    return {};
  }
}

/**
 * What to pass to `admit` when the v2 client's `callTool` rejected: a request that timed out (or was aborted: v2
 * rejects an aborted call as `REQUEST_TIMEOUT`) is a `timeout`; a session that closed or never opened, a result the
 * client refused against the output schema (not retryable: the same call returns the same result), or any other
 * error is a `transport_error`, with `diagnostics.detail.reason` saying which. Only codes are kept, never the
 * error's text, which may hold the server's words.
 *
 * ```ts
 * const raw = await client.callTool({ name, arguments: args }).catch(mcpClientCallFailure);
 * const outcome = await listOrders.admit(raw, { args });
 * ```
 */
export function mcpClientCallFailure(error: unknown): TransportFailure {
  const { code, name, message } = fieldsOf(error);
  if (code === "REQUEST_TIMEOUT" || name === "TimeoutError") {
    return transportFailure("timeout", "The MCP tool call timed out.");
  }
  if (code === "CONNECTION_CLOSED") {
    return transportFailure("transport_error", "The MCP session closed before the tool answered.", {
      reason: "connection_closed",
    });
  }
  if (code === "NOT_CONNECTED" || message === "Not connected") {
    return transportFailure("transport_error", "The MCP client is not connected.", { reason: "not_connected" });
  }
  if (
    typeof code === "number" &&
    REFUSAL_CODES.has(code) &&
    typeof message === "string" &&
    OUTPUT_REFUSED.test(message)
  ) {
    return transportFailure(
      "transport_error",
      "The MCP client refused the result: it does not match the tool's output schema.",
      { reason: "output_schema_refused", retryable: false },
    );
  }
  // Only the code read above reaches v1's mapping (numeric JSON-RPC codes), so no getter of the error runs twice.
  return mcpCallFailure({ code });
}
