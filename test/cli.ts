/**
 * Running the `toolgate` command line in-process, as tests do: its exit code and what it printed to each stream.
 */
import { main } from "../generator/cli/main.js";

/** Run the CLI with `argv` and capture its output, each stream's lines joined with newlines. */
export async function toolgate(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (line) => out.push(line), err: (line) => err.push(line) });
  return { code, out: out.join("\n"), err: err.join("\n") };
}
