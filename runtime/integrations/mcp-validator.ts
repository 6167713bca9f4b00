/**
 * toolgate's precompiled validators for the MCP TypeScript SDK client, and the SDK's errors as gate input.
 *
 * The SDK client (1.32) takes a `jsonSchemaValidator` option: `getValidator(schema)` returns a function the client
 * calls on every `structuredContent` of a tool that declared that output schema. Its default compiles the schema
 * with Ajv at run time, which needs `new Function` (forbidden in Cloudflare Workers, under a strict CSP, or with
 * `node --disallow-code-generation-from-strings`) and Ajv's draft-07 class, which ignores 2020-12 keywords such as
 * `prefixItems`. {@link mcpValidatorProvider} answers instead from the validators toolgate generated at build time,
 * found by the sha256 of the advertised schema in canonical JSON: the client compiles nothing.
 *
 * The gate does not rely on the client's check: the client validates only tools it has seen in `listTools` (and only
 * the last page of a paged list), so every result still goes through the tool's adapter, `admit(result)`. The
 * provider makes the client's own check agree with the gate and work where `eval` is forbidden.
 *
 * A schema with no precompiled validator (the server advertises something other than the contract, or a tool that
 * was never imported) fails closed: its validator rejects every value, with a message that names the schema's hash.
 * `fallback` opts in to another provider for such schemas (for example the SDK's `CfWorkerJsonSchemaValidator`).
 *
 * This module does not import the SDK: the types below are the SDK's `jsonSchemaValidator` interface, structurally.
 */
import { diagnosticText, errorProperty, type TransportFailure, transportFailure } from "../contract/failure.js";
import type { ValidateFunction } from "../contract/types.js";
import { canonicalJson } from "../text/json.js";

/** What a validator tells the SDK client (the SDK's `JsonSchemaValidatorResult`). */
export type McpValidatorResult<T> =
  | { valid: true; data: T; errorMessage: undefined }
  | { valid: false; data: undefined; errorMessage: string };

/** One schema's validator as the SDK client calls it (the SDK's `JsonSchemaValidator`). */
export type McpValidator<T> = (input: unknown) => McpValidatorResult<T>;

/** The SDK client's `jsonSchemaValidator` option. */
export interface McpValidatorProvider {
  getValidator<T>(schema: unknown): McpValidator<T>;
}

/**
 * Generated output validators by the sha256 (hex) of their output schema in canonical JSON (object keys sorted at
 * every level, no white space): the `outputValidators` export of the generated catalog, `generated/index.ts`.
 */
export type OutputValidators = Readonly<Record<string, ValidateFunction<unknown>>>;

/** How {@link mcpValidatorProvider} treats a schema it has no precompiled validator for. */
export interface McpValidatorOptions {
  /** Asked for schemas toolgate did not generate. Without one, those schemas' validators reject every value. */
  fallback?: McpValidatorProvider | undefined;
}

/** Validation errors shown in the message: enough to locate the problem, bounded against a payload of errors. */
const MAX_REPORTED_ISSUES = 5;

/**
 * A validator provider for the SDK client that answers from generated validators and compiles nothing:
 * `new Client(info, { jsonSchemaValidator: mcpValidatorProvider(outputValidators) })`.
 * Error messages name locations and keywords only, never values from the result.
 */
export function mcpValidatorProvider(
  validators: OutputValidators,
  options: McpValidatorOptions = {},
): McpValidatorProvider {
  const known = new Map(Object.entries(validators));
  return {
    getValidator<T>(schema: unknown): McpValidator<T> {
      const hash = outputSchemaSha256(schema);
      const validate = hash === undefined ? undefined : known.get(hash);
      if (validate !== undefined) return answerFrom<T>(validate);
      if (options.fallback !== undefined) return options.fallback.getValidator<T>(schema);
      const message =
        `toolgate: no precompiled validator for this output schema (sha256 ${hash ?? "unavailable"}): the server ` +
        "advertises a schema other than the contract's. Re-import the tool (toolgate import) and regenerate.";
      return () => ({ valid: false, data: undefined, errorMessage: message });
    },
  };
}

/**
 * The SDK's result shape around a generated validator. The SDK rethrows the message as its `McpError`'s, so the
 * locations in it (made of the result's keys, chosen by the server) are bounded and escaped like the gate's own
 * diagnostics: a few hundred characters at most, nothing invisible.
 */
function answerFrom<T>(validate: ValidateFunction<unknown>): McpValidator<T> {
  return (input) => {
    let valid: boolean;
    try {
      valid = validate(input);
    } catch {
      // A validator recursing through hostile nesting overflows the stack: the value is refused, not thrown.
      return { valid: false, data: undefined, errorMessage: "does not match the contract (nested too deeply)" };
    }
    if (valid) return { valid: true, data: input as T, errorMessage: undefined };
    const errors = validate.errors ?? [];
    const shown = errors
      .slice(0, MAX_REPORTED_ISSUES)
      .map(
        (error) =>
          `${error.instancePath === "" ? "/" : diagnosticText(String(error.instancePath))} (${diagnosticText(String(error.keyword), 64)})`,
      );
    const more = errors.length > MAX_REPORTED_ISSUES ? ` and ${errors.length - MAX_REPORTED_ISSUES} more` : "";
    return { valid: false, data: undefined, errorMessage: `does not match the contract at ${shown.join(", ")}${more}` };
  };
}

/**
 * The key a schema is known by: sha256 (hex) of its canonical JSON as UTF-8, the same text toolgate's generator
 * hashes. `undefined` for a value that cannot be serialised (nested past 1000 levels, or cyclic).
 */
export function outputSchemaSha256(schema: unknown): string | undefined {
  let text: string;
  try {
    text = canonicalJson(schema);
  } catch {
    return undefined;
  }
  return sha256HexSync(new TextEncoder().encode(text));
}

/** JSON-RPC error code the SDK uses when a request timed out (`ErrorCode.RequestTimeout`). */
const MCP_REQUEST_TIMEOUT = -32001;

/**
 * What to pass to `admit` when the SDK client's `callTool`/`request` threw: a request that timed out becomes a
 * `timeout`, anything else (the connection closed, the server answered with a JSON-RPC error, the SDK refused the
 * result) a `transport_error`. Only the error code is kept, never the server's message text.
 *
 * ```ts
 * const raw = await client.callTool({ name, arguments: args }).catch(mcpCallFailure);
 * const outcome = await getWeather.admit(raw, { args });
 * ```
 */
export function mcpCallFailure(error: unknown): TransportFailure {
  // A rejection is anyone's object: a `code` getter that throws leaves the failure without a code.
  const code = errorProperty(error, "code");
  if (code === MCP_REQUEST_TIMEOUT) return transportFailure("timeout", "The MCP tool call timed out.");
  if (typeof code === "number" && Number.isInteger(code)) {
    return transportFailure("transport_error", `The MCP call failed with JSON-RPC error ${code}.`);
  }
  return transportFailure("transport_error", "The MCP call failed.");
}

/** JSON-RPC error code the SDK rejects pending requests with when its session closes (`ErrorCode.ConnectionClosed`). */
const MCP_CONNECTION_CLOSED = -32000;

/**
 * What the SDK's stdio transport reports (`onerror`) before it closes the session on a message past its read buffer
 * (`ReadBuffer` in `shared/stdio.js`, 10 MB by default): the pending calls then reject only with `Connection closed`.
 */
const BUFFER_EXCEEDED = /^ReadBuffer exceeded maximum size/;

/** The part of the SDK `Client` that {@link watchMcpClient} uses: the callbacks it reports errors and closing on. */
export interface WatchableMcpClient {
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
}

/** A watch on one SDK client: its call failures with their cause, and how to stop watching. */
export interface McpClientWatch {
  /**
   * {@link mcpCallFailure}, knowing why the session closed: a call rejected because the client closed the session on
   * a message past its read buffer is a `transport_error` with `detail.reason = "sdk_buffer_exceeded"` that is not
   * retryable (the same call returns the same message); another close is `connection_closed`.
   */
  callFailure(error: unknown): TransportFailure;
  /** Gives the client back the callbacks it had. */
  stop(): void;
}

/** The cause an SDK error names, when the gate knows it; its text is matched, never kept. */
function causeOf(error: unknown): string | undefined {
  const message = errorProperty(error, "message");
  return typeof message === "string" && BUFFER_EXCEEDED.test(message) ? "sdk_buffer_exceeded" : undefined;
}

/**
 * Watches an SDK client's `onerror` and `onclose` (chaining the handlers it has, so call it after setting yours) and
 * returns a `callFailure` to use in place of {@link mcpCallFailure}, which sees only the rejection:
 *
 * ```ts
 * const watch = watchMcpClient(client);
 * const raw = await client.callTool({ name, arguments: args }).catch(watch.callFailure);
 * ```
 *
 * The cause is kept per session: an error is noted when reported and belongs to the close that follows it.
 */
export function watchMcpClient(client: WatchableMcpClient): McpClientWatch {
  const ownError = client.onerror;
  const ownClose = client.onclose;
  /** The cause reported since the session last closed. */
  let reported: string | undefined;
  /** The cause of the last close, what calls rejected by it failed of. */
  let closedBy: string | undefined;
  const onerror = (error: Error): void => {
    reported = causeOf(error) ?? reported;
    ownError?.call(client, error);
  };
  const onclose = (): void => {
    closedBy = reported;
    reported = undefined;
    ownClose?.call(client);
  };
  client.onerror = onerror;
  client.onclose = onclose;
  return {
    callFailure(error: unknown): TransportFailure {
      if (errorProperty(error, "code") !== MCP_CONNECTION_CLOSED) return mcpCallFailure(error);
      if (closedBy === "sdk_buffer_exceeded") {
        return transportFailure(
          "transport_error",
          "The MCP client closed the session: the server sent a message larger than the client's read buffer. " +
            "The same call will fail the same way; ask for less.",
          { reason: "sdk_buffer_exceeded", retryable: false },
        );
      }
      return transportFailure("transport_error", "The MCP session closed before the tool answered.", {
        reason: "connection_closed",
      });
    },
    stop(): void {
      if (client.onerror === onerror) client.onerror = ownError;
      if (client.onclose === onclose) client.onclose = ownClose;
    },
  };
}

/** SHA-256 round constants (FIPS 180-4 section 4.2.2). */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

/**
 * SHA-256 of bytes as lowercase hex, computed synchronously: the SDK asks for a validator synchronously, and Web
 * Crypto's digest is asynchronous, while `node:crypto` is missing where this provider matters most (workers).
 */
export function sha256HexSync(bytes: Uint8Array): string {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array((((bytes.length + 9 + 63) >> 6) << 6) >>> 0);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 0x100000000));
  view.setUint32(padded.length - 4, bitLength >>> 0);

  const h = new Uint32Array([
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]);
  const w = new Uint32Array(64);
  const rotate = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15] as number;
      const b = w[i - 2] as number;
      const s0 = rotate(a, 7) ^ rotate(a, 18) ^ (a >>> 3);
      const s1 = rotate(b, 17) ^ rotate(b, 19) ^ (b >>> 10);
      w[i] = ((w[i - 16] as number) + s0 + (w[i - 7] as number) + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as [number, number, number, number, number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const s1 = rotate(e, 6) ^ rotate(e, 11) ^ rotate(e, 25);
      const choice = (e & f) ^ (~e & g);
      const t1 = (hh + s1 + choice + (K[i] as number) + (w[i] as number)) >>> 0;
      const s0 = rotate(a, 2) ^ rotate(a, 13) ^ rotate(a, 22);
      const majority = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (s0 + majority) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    h[0] = (h[0] as number) + a;
    h[1] = (h[1] as number) + b;
    h[2] = (h[2] as number) + c;
    h[3] = (h[3] as number) + d;
    h[4] = (h[4] as number) + e;
    h[5] = (h[5] as number) + f;
    h[6] = (h[6] as number) + g;
    h[7] = (h[7] as number) + hh;
  }
  let hex = "";
  for (const word of h) hex += word.toString(16).padStart(8, "0");
  return hex;
}
