/**
 * The key screen (`record/key-screen.ts`) a contract's flag rules can use: a field rule that flags instruction-like
 * text (`onInstruction: "flag"`) reads every string at its path once the value is validated, on the caller's
 * thread. Where the helper thread hashes a large JSON payload, it can read those strings in the text meanwhile, and
 * the gate then skips the walk when the thread found none that could read like instructions.
 *
 * A rule's path qualifies when its last step is an object key the thread can find as written: not `*` (an item of
 * an array has no key), not an array index (the path may reach one), and with no character JSON could write as an
 * escape other than `\u` (`"`, `\`, `/`, a control character). Every flag rule of the contract must qualify, since
 * one answer stands for them all; rules that reject are walked as before.
 */
import type { FieldRule } from "../contract/types.js";
import type { KeyScreen } from "../record/key-screen.js";
import { stepsOf } from "./field-paths.js";
import { instructionTables } from "./fields.js";

/** Each contract's screen, by its rules, or `null` for rules that have none. */
const screens = new WeakMap<readonly FieldRule[], KeyScreen | null>();
/**
 * The screens made, by their keys: contracts whose flag rules end in the same keys share one, so the thread is told
 * of each set of keys once, however many specs a caller builds. At most {@link MAX_SCREENS}; past that, rules with
 * keys not seen yet are walked.
 */
const byKeys = new Map<string, KeyScreen>();
const MAX_SCREENS = 256;

/** A key the thread finds as it is written, in a payload with no `\u`. */
function findableKey(step: string | undefined): step is string {
  if (step === undefined || step === "" || /^(0|[1-9][0-9]*)$/.test(step)) return false;
  for (let i = 0; i < step.length; i++) {
    const unit = step.charCodeAt(i);
    if (unit < 0x20 || unit === 0x22 || unit === 0x2f || unit === 0x5c) return false;
  }
  return true;
}

/** The screen for `rules`' flag rules, or `undefined` when they have none or one does not qualify. */
export function flagScreenOf(rules: readonly FieldRule[]): KeyScreen | undefined {
  const known = screens.get(rules);
  if (known !== undefined) return known ?? undefined;
  const keys = new Set<string>();
  let qualifies = true;
  for (const rule of rules) {
    if (rule.kind !== "text" || rule.onInstruction === "reject") continue;
    const steps = stepsOf(rule.path);
    const last = steps[steps.length - 1];
    if (!findableKey(last)) qualifies = false;
    else keys.add(last);
  }
  const screen = qualifies && keys.size > 0 ? screenFor([...keys]) : undefined;
  screens.set(rules, screen ?? null);
  return screen;
}

/** The one screen of `keys`, made the first time (ids from 1), or `undefined` once {@link MAX_SCREENS} are made. */
function screenFor(keys: string[]): KeyScreen | undefined {
  const name = JSON.stringify(keys);
  let screen = byKeys.get(name);
  if (screen === undefined && byKeys.size < MAX_SCREENS) {
    screen = { id: byKeys.size + 1, keys, ...instructionTables() };
    byKeys.set(name, screen);
  }
  return screen;
}
