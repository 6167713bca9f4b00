/**
 * The proxy's turns, and the re-call cap and turn budget held over each (`--turns`, `--turn-budget`).
 *
 * A host tells the proxy nothing of its agent's turns, so the proxy counts a turn only where one is named:
 * - a `tools/call` whose `_meta["toolgate/turn"]` is a turn id (1 to 128 letters, digits, `_ . : -`) belongs to that
 *   turn of its host session;
 * - with `--turns session`, every other call of a host session belongs to the session's one turn (a long one: the
 *   whole conversation);
 * - without it, a call that names no turn is in none: no cap and no budget hold for it, as before turns existed.
 *
 * In a turn, a call of a gated tool with arguments already used in the turn is a re-call (the same call again, which
 * the runtime's recall policy refuses outright, since it returns the same result): each tool may make its contract's
 * `recall.max` of them (default 1), and the next is refused with `error="recall_limit"` before the server is called.
 * With a turn budget, a call is refused with `error="turn_budget"` once the turn's gated results take the budget.
 * The counters live in the turn store: this process's memory, or with `--redis` Redis, where every replica counts
 * the same turn (the session's read-back id, which replicas share, names it) and a killed replica takes no count
 * with it. A store that cannot be reached refuses the call (`error="turn_unavailable"`, retryable): a cap that
 * stopped counting would be none.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { hashArguments, markupSafeJson, Turn, type TurnStore } from "@toolgate/runtime";

/** The `_meta` key a host names a call's turn under. */
export const TURN_META_KEY = "toolgate/turn";

/** What a host may name a turn: short, and nothing a key or a log line could be confused by. */
const TURN_NAME = /^[A-Za-z0-9_.:-]{1,128}$/;

/** The most named turns one host session keeps open here (the newest); an older one is reopened from its store. */
const OPEN_TURNS = 16;

/** How the proxy counts turns. */
export interface TurnSettings {
  /** Where every turn's counters are kept. */
  store: TurnStore;
  /** `session`: a call that names no turn is in its host session's turn; `named`: in none. */
  scope: "session" | "named";
  /** The context a turn's gated results may take, per unit; a call past it is refused. */
  budget?: { bytes?: number | undefined; tokens?: number | undefined } | undefined;
}

/** One host session's turns. */
export class SessionTurns {
  readonly #settings: TurnSettings;
  readonly #session: string;
  readonly #open = new Map<string, Turn>();

  /** `session`: the id the host session's spills are read back under, the same on every replica. */
  constructor(settings: TurnSettings, session: string) {
    this.#settings = settings;
    this.#session = session;
  }

  /** The turn a call with this `_meta` belongs to, or undefined when it is in none. */
  turnOf(meta: unknown): Turn | undefined {
    const named = namedTurn(meta);
    if (named === undefined && this.#settings.scope !== "session") return undefined;
    const id = named === undefined ? `${this.#session}` : `${this.#session}:${named}`;
    let turn = this.#open.get(id);
    if (turn === undefined) {
      const { store, budget } = this.#settings;
      turn = new Turn({ id, store, budget });
      if (this.#open.size >= OPEN_TURNS) this.#open.delete(this.#open.keys().next().value as string);
    } else this.#open.delete(id);
    this.#open.set(id, turn);
    return turn;
  }
}

/** The turn a host named in a call's `_meta`, or undefined when it named none (or nothing a turn id may be). */
function namedTurn(meta: unknown): string | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  let value: unknown;
  try {
    value = Object.hasOwn(meta, TURN_META_KEY) ? (meta as Record<string, unknown>)[TURN_META_KEY] : undefined;
  } catch {
    return undefined;
  }
  if (typeof value === "number" && Number.isSafeInteger(value)) value = String(value);
  return typeof value === "string" && TURN_NAME.test(value) ? value : undefined;
}

/**
 * Claims a call of a gated tool in its turn before the server is called: undefined when it may go ahead, or the
 * host's refusal (a re-call past the cap, a turn past its budget, a store that did not answer).
 */
export async function claimCall(
  turn: Turn,
  name: string,
  args: Record<string, unknown> | undefined,
  recallLimit: number,
): Promise<CallToolResult | undefined> {
  try {
    if (await turn.budgetSpent()) {
      return turnRefusal(name, "turn_budget", false, { budget: budgetOf(turn) });
    }
    // Arguments too deep to hash cannot be compared with others: the call is no re-call anyone can tell.
    const hash = await hashArguments(args ?? {});
    if (hash === undefined) return undefined;
    const claim = await turn.claimCall(name, hash, recallLimit);
    if (claim.allowed) return undefined;
    return turnRefusal(name, "recall_limit", false, { recalls: claim.recalls, limit: claim.limit });
  } catch {
    return turnRefusal(name, "turn_unavailable", true, {});
  }
}

/** Adds a gated result's context to its turn, when the turn has a budget to hold it to. */
export async function spend(turn: Turn, used: { unit: "bytes" | "tokens"; value: number }): Promise<void> {
  if (turn.report().budget === undefined) return;
  // A count lost with the store is a call the budget did not see; the answer itself is not held back for it.
  await turn.spend(used).catch(() => undefined);
}

function budgetOf(turn: Turn): Record<string, number> {
  const { bytes, tokens } = turn.report().budget ?? {};
  return { ...(bytes === undefined ? {} : { bytes }), ...(tokens === undefined ? {} : { tokens }) };
}

/**
 * A call the turn refuses, answered without calling the server: `<tool_result tool="x" source="none"
 * complete="false" error="recall_limit" retryable="false">` then what the turn counted, as JSON.
 */
function turnRefusal(name: string, code: string, retryable: boolean, detail: Record<string, unknown>): CallToolResult {
  const tool = name.slice(0, 128).replace(/[^A-Za-z0-9_.-]/g, "_");
  const open = `<tool_result tool="${tool}" source="none" complete="false" error="${code}" retryable="${retryable}"`;
  if (Object.keys(detail).length === 0) return { content: [{ type: "text", text: `${open}/>` }], isError: true };
  return {
    content: [{ type: "text", text: `${open}>\n<turn>${markupSafeJson(detail)}</turn>\n</tool_result>` }],
    isError: true,
  };
}
