/**
 * The JSON text of a large private copy, written and hashed in pieces and never joined: for a 100 MB result the
 * whole text (and, while `JSON.stringify` builds it, its parts as well) would be the largest thing in memory, more
 * than the copy itself, whose strings are the caller's. Nothing downstream needs the text once it is measured and
 * hashed: the copy is validated and viewed, and a text block beside it is compared with the pieces as they pass.
 *
 * The pieces join to exactly `JSON.stringify(copy)`: the copy is plain JSON data (no `toJSON`, no `undefined`, no
 * holes), so an object's text is its members' texts in `Object.keys` order and an array's its items', which is how
 * the native writer writes them. Objects near the top are written member by member and arrays in runs of items;
 * anything smaller, or deeper than {@link SPLIT_DEPTH}, is one native `JSON.stringify`.
 */
import type { HashedText, RunningTextHash } from "../../record/provenance.js";
import { SURROGATE_ESCAPE } from "./value-copy.js";

/** Levels of containers written member by member; below them a member is one piece, however large. */
const SPLIT_DEPTH = 3;
/** UTF-16 units a run of array items aims at: small enough to stay in cache, large enough to cost few calls. */
const RUN_UNITS = 256 * 1024;
/** Small pieces (brackets, keys, short members) are gathered up to this many units before they are fed. */
const GATHER_UNITS = 64 * 1024;

/** What writing the pieces found: the text's hash and length, and which texts beside it it equals. */
export interface WrittenPieces {
  hashed: HashedText;
  /** For each text given to compare, whether it is exactly the JSON text written. */
  same: boolean[];
}

/** Where pieces go: measured, checked, compared and hashed; `false` once the copy cannot vouch for the text. */
class PieceSink {
  private units = 0;
  private gathered = "";
  private readonly same: boolean[];

  constructor(
    private readonly hash: RunningTextHash,
    private readonly maxUnits: number,
    private readonly beside: readonly string[],
  ) {
    this.same = beside.map(() => true);
  }

  /** Takes a piece of whole JSON tokens; `false` to give up. */
  add(piece: string): boolean {
    this.gathered += piece;
    return this.gathered.length < GATHER_UNITS || this.flush();
  }

  /** Feeds what was gathered. */
  flush(): boolean {
    const piece = this.gathered;
    this.gathered = "";
    if (piece.length === 0) return true;
    // Within one piece every escape is whole: tokens are never split between pieces.
    if (piece.indexOf("\\u") >= 0 && SURROGATE_ESCAPE.test(piece)) return false;
    for (let i = 0; i < this.beside.length; i++) {
      if (this.same[i] && !(this.beside[i] as string).startsWith(piece, this.units)) this.same[i] = false;
    }
    this.units += piece.length;
    if (this.units > this.maxUnits) return false;
    this.hash.add(piece);
    return true;
  }

  done(): WrittenPieces | undefined {
    if (!this.flush()) return undefined;
    const same = this.same.map((equal, i) => equal && (this.beside[i] as string).length === this.units);
    return { hashed: this.hash.done(), same };
  }
}

/** Writes an array's items in runs, each run one native `JSON.stringify` without its brackets. */
function writeArray(array: readonly unknown[], sink: PieceSink): boolean {
  if (!sink.add("[")) return false;
  const count = array.length;
  let run = 1;
  for (let start = 0; start < count; ) {
    const end = Math.min(count, start + run);
    const text = JSON.stringify(array.slice(start, end));
    if (start > 0 && !sink.add(",")) return false;
    if (!sink.add(text.slice(1, -1))) return false;
    // Runs grow while their text is short and shrink when it is long, so each is near RUN_UNITS.
    if (text.length < RUN_UNITS) run *= 2;
    else if (text.length > 4 * RUN_UNITS && run > 1) run = Math.floor(run / 2);
    start = end;
  }
  return sink.add("]");
}

/** Writes a value: containers above {@link SPLIT_DEPTH} member by member, anything else as one piece. */
function writeValue(value: unknown, depth: number, sink: PieceSink): boolean {
  if (value === null || typeof value !== "object" || depth >= SPLIT_DEPTH) return sink.add(JSON.stringify(value));
  if (Array.isArray(value)) return writeArray(value, sink);
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (!sink.add("{")) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (!sink.add(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`)) return false;
    if (!writeValue(record[key], depth + 1, sink)) return false;
  }
  return sink.add("}");
}

/**
 * Writes the JSON text of `copy` (plain JSON data the gate made, see `copyParsedValue`) in pieces into `hash`, a
 * fresh running sha256, comparing it with each of `beside` as it goes. `undefined` when the copy cannot vouch for
 * its text: longer than `maxBytes` (in UTF-16 units or UTF-8 bytes), or holding half a surrogate pair, which
 * `JSON.stringify` writes as an escape. The caller then takes the careful writer's path, exactly as for a whole
 * text.
 */
export function writeJsonPieces(
  copy: unknown,
  maxBytes: number,
  beside: readonly string[],
  hash: RunningTextHash,
): WrittenPieces | undefined {
  const sink = new PieceSink(hash, maxBytes, beside);
  if (!writeValue(copy, 0, sink)) return undefined;
  const written = sink.done();
  return written === undefined || written.hashed.byteLength > maxBytes ? undefined : written;
}
