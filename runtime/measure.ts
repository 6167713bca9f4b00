/**
 * Measures rendered model content against the context budget, in the contract's unit.
 *
 * Tokens are counted with `gpt-tokenizer` (a maintained pure-JS port of OpenAI's BPE tokenizers), loaded with a
 * dynamic import the first time a contract counts tokens, so importing `toolgate/runtime` stays cheap.
 * Counting stops at the budget: an over-budget view is reported as "more than the budget", not counted in full.
 */
import { utf8Length } from "./text.js";
import type { ContextBudget } from "./types.js";

/** The tokenizers a contract can name. */
export type TokenizerName = NonNullable<ContextBudget["tokenizer"]>;

/** The tokenizer used when a contract counts tokens without naming one. */
export const DEFAULT_TOKENIZER: TokenizerName = "o200k_base";

/** Counts tokens up to a limit: the count when within it, `false` when over. */
export type TokenLimitCheck = (text: string, limit: number) => number | false;

const loading = new Map<TokenizerName, Promise<TokenLimitCheck>>();

/**
 * Loads a tokenizer once per process. Special-token text such as `<|endoftext|>` in tool output is counted as
 * plain text (`disallowedSpecial: new Set()`): the tokenizer must never throw on untrusted text.
 */
export function loadTokenizer(name: TokenizerName = DEFAULT_TOKENIZER): Promise<TokenLimitCheck> {
  let pending = loading.get(name);
  if (pending === undefined) {
    const module =
      name === "cl100k_base"
        ? import("gpt-tokenizer/encoding/cl100k_base")
        : import("gpt-tokenizer/encoding/o200k_base");
    pending = module.then((encoding) => {
      const options = { disallowedSpecial: new Set<string>() };
      return (text: string, limit: number) => encoding.isWithinTokenLimit(text, limit, options);
    });
    // A failed load must not poison later calls (the package may be installed meanwhile in a long-lived process).
    pending.catch(() => loading.delete(name));
    loading.set(name, pending);
  }
  return pending;
}

/** A size in the budget's unit. `exact` is false when counting stopped past the limit (the value is a floor). */
export interface Measured {
  unit: "bytes" | "tokens";
  value: number;
  exact: boolean;
  within: boolean;
}

/**
 * Measures `text` in the budget's unit, counting no further than `limit` (default: the budget's `max`) needs.
 * Bytes are UTF-8 bytes (cheap, so always exact). Tokens are counted chunk by chunk and the count stops once it
 * passes `limit`, so a 1 MB view against an 800-token budget costs about 800 tokens of work.
 */
export async function measureText(text: string, budget: ContextBudget, limit = budget.max): Promise<Measured> {
  // Bytes are counted only for a byte budget: on a large text the count costs more than the tokens up to the limit.
  if (budget.unit === "bytes") {
    const bytes = utf8Length(text);
    return { unit: "bytes", value: bytes, exact: true, within: bytes <= limit };
  }
  const count = await loadTokenizer(budget.tokenizer ?? DEFAULT_TOKENIZER);
  const tokens = count(text, limit);
  if (tokens === false) return { unit: "tokens", value: limit + 1, exact: false, within: false };
  return { unit: "tokens", value: tokens, exact: true, within: true };
}
