/**
 * A large synthetic trace for the streaming test: `n` events over five tools, four to a turn, with every kind of
 * outcome the report counts (direct, dropped, summarized with varied latencies and cache hits, spilled, re-called,
 * failures of several codes). Written in batches to a file stream, so making it needs no more memory than reading it.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";

const TOOLS = ["get_record", "query_database", "read_file", "read_graph", "search_docs"];

/** The i-th event's JSON line. */
export function syntheticEvent(i: number): string {
  const tool = TOOLS[i % TOOLS.length] as string;
  const kind = (i * 7919) % 20;
  const base = `{"v":1,"tool":"${tool}","contractVersion":"1.0.0","turn":"turn-${Math.floor(i / 4)}","correlationId":"call-${i}","receivedAt":"2026-01-01T00:00:00.000Z","rawKind":"string"`;
  if (kind < 12)
    return `${base},"code":"ok","stage":"done","policy":"direct","sizes":{"rawBytes":${200 + (i % 900)},"maxBytes":65536,"viewSize":80,"budget":4000,"unit":"tokens"}}`;
  if (kind < 14)
    return `${base},"code":"oversize","stage":"policy","policy":"drop","sizes":{"rawBytes":90000,"maxBytes":1048576,"viewSize":9000,"budget":4000,"unit":"tokens"}}`;
  if (kind < 16)
    return `${base},"code":"ok","stage":"policy","policy":"summarize","summarize":{"ms":${((i % 20000) / 10).toFixed(1)},"cached":${i % 3 === 0}},"sizes":{"rawBytes":90000,"maxBytes":1048576,"viewSize":300,"budget":4000,"unit":"tokens"}}`;
  if (kind < 17)
    return `${base},"code":"ok","stage":"policy","policy":"spill","sizes":{"rawBytes":90000,"maxBytes":1048576,"viewSize":400,"budget":4000,"unit":"tokens"}}`;
  if (kind < 18)
    return `${base},"code":"ok","stage":"policy","policy":"recall","recall":true,"recalls":1,"sizes":{"rawBytes":3000,"maxBytes":65536,"viewSize":700,"budget":4000,"unit":"tokens"}}`;
  const code = kind === 18 ? "schema_mismatch" : "tool_error";
  return `${base},"code":"${code}","stage":"validate","sizes":{"rawBytes":500,"maxBytes":65536}}`;
}

/** Writes `n` synthetic events to `file`. */
export async function writeSyntheticTrace(file: string, n: number): Promise<void> {
  const out = createWriteStream(file);
  const batch = 10_000;
  for (let start = 0; start < n; start += batch) {
    const lines: string[] = [];
    for (let i = start; i < Math.min(n, start + batch); i++) lines.push(syntheticEvent(i));
    if (!out.write(`${lines.join("\n")}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}
