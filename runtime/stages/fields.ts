/**
 * Checks for what a schema cannot say about a field (`x-toolgate.fields`), and the semantic hooks a caller passes.
 *
 * - `opaque`: a token the model may pass back (a cursor, a handle). It is defined by what it may hold, ASCII letters,
 *   digits and `-` `_` `.` `=` `+` (see {@link OPAQUE_TOKEN}), not by what a parser would recognise: a model handed a
 *   URL, a file path or a shell command may be steered into fetching, opening or running it, and parsers recognise
 *   more forms of those (`https:\\host\path`, `ws:host`, `~user`) than any list of patterns names.
 * - `text`: plain prose from the tool. Text that reads like instructions to the model (prompt injection) is flagged
 *   (`instruction_like_text`) or, when the contract says `reject`, fails the call as `semantic_violation`. It is
 *   matched on a folded form, so fullwidth letters and Cyrillic or Greek lookalikes read as the words they imitate.
 */

import type { FieldRule, ValidationIssue } from "../contract/types.js";
import type { KeyScreen } from "../record/key-screen.js";
import { cleanText, isInvisibleAstral, isInvisibleUnit, utf8Length } from "../text/hygiene.js";
import { pointerOfKeys, type Steps, stepsOf, visitAt } from "./field-paths.js";
import { CLASSES, OTHER_CLASS, pairSteps, SPACE_CLASS, triggerAutomaton, WORD_READ } from "./trigger-automaton.js";

/**
 * Whether a string at `steps` below `value` reads like instructions ({@link looksLikeInstructions}): the values
 * {@link visitAt} would visit, read until the first that does, with no keys kept. An array whose items' one key is
 * the path's last step (each issue's `title`, say: what a text rule mostly names) is read in one loop.
 */
function instructionsAt(value: unknown, steps: Steps, depth: number): boolean {
  if (depth === steps.length) return typeof value === "string" && looksLikeInstructions(value);
  if (value === null || typeof value !== "object") return false;
  const step = steps[depth];
  if (step !== undefined) {
    return Object.hasOwn(value, step) && instructionsAt((value as Record<string, unknown>)[step], steps, depth + 1);
  }
  if (Array.isArray(value)) {
    const last = depth + 2 === steps.length ? steps[depth + 1] : undefined;
    if (last !== undefined) {
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (item === null || typeof item !== "object" || !Object.hasOwn(item, last)) continue;
        const text = (item as Record<string, unknown>)[last];
        if (typeof text === "string" && looksLikeInstructions(text)) return true;
      }
      return false;
    }
    for (let index = 0; index < value.length; index++) if (instructionsAt(value[index], steps, depth + 1)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (instructionsAt((value as Record<string, unknown>)[key], steps, depth + 1)) return true;
  }
  return false;
}

/**
 * The characters an opaque token may hold: base64url (`A–Z a–z 0–9 - _`, `=` padding) and what ids and cursors add
 * (`.` between the parts of a JWT or a dotted id, `+`). Nothing here can start a URL (no `:`), a path (no `/`, `\`,
 * `~`) or a command line (no whitespace, no shell metacharacter). Standard base64 with `/` is refused: base64url is
 * the form for a cursor.
 */
const OPAQUE_TOKEN = /^[A-Za-z0-9._=+-]*$/;

/** Why a string outside {@link OPAQUE_TOKEN} is not a token: the name of what it could be taken for. */
const NOT_OPAQUE: ReadonlyArray<readonly [string, RegExp]> = [
  // A Windows drive, before the scheme test would take its letter for one.
  ["path", /^[a-z]:/i],
  // A scheme, with or without `//`: `https:evil.example`, `ws:host`, `javascript:…`.
  ["url", /^[a-z][a-z0-9+.-]*:/i],
  ["path", /[\\/~]/],
  ["command", /[\s;|&$`<>(){}[\]!*?'"]/],
];

/** Text that reads like instructions addressed to the model rather than content about the world. */
export const INSTRUCTION_LIKE: readonly RegExp[] = [
  /\b(ignore|disregard|forget|override)\b[^.\n]{0,40}\b(previous|prior|above|earlier|preceding|all|any|your)\b[^.\n]{0,40}\b(instructions?|prompts?|rules|directions|guidelines|messages?)\b/i,
  /\b(system prompt|developer message|new instructions|you are now|from now on you)\b/i,
  /<\|?\s*(im_start|im_end|endoftext|system)\s*\|?>/i,
  /\[\/?INST\]|<<\/?SYS>>/,
  /<\/?\s*(tool_result|system|assistant|instructions?)\b/i,
];

/**
 * Words as one alternation grouped by their first letter (`i(?:gnore|nstruction)|d(?:isregard|eveloper)|…`): the
 * same words, but the engine tries one letter at each position of a text before the rest of a word, instead of every
 * word in turn (a quarter less time on a title).
 */
function byFirstLetter(words: readonly string[]): string {
  const rests = new Map<string, string[]>();
  for (const word of words) {
    const first = word.charAt(0);
    const group = rests.get(first) ?? [];
    group.push(word.slice(1));
    rests.set(first, group);
  }
  return [...rests]
    .map(([first, group]) => (group.length === 1 ? `${first}${group[0]}` : `${first}(?:${group.join("|")})`))
    .join("|");
}

/** The words of {@link INSTRUCTION_TRIGGER}: every match of every instruction pattern holds one of them. */
const TRIGGER_WORDS = [
  "ignore",
  "disregard",
  "forget",
  "override",
  "system",
  "developer",
  "instruction",
  "you are now",
  "from now on",
];

/**
 * A necessary condition for {@link INSTRUCTION_LIKE}: every match of every pattern holds one of these words or
 * characters (compared as those patterns compare, ASCII case-insensitively), so text without any of them cannot
 * match. Most prose has none of them, and one search for a few literals costs far less than the patterns, which
 * each try their alternatives at every position. Keep it in step with the patterns (a test checks it against them).
 */
export const INSTRUCTION_TRIGGER = new RegExp(`${byFirstLetter(TRIGGER_WORDS)}|[<[]`, "i");

/**
 * Letters of other scripts that look like Latin ones, each followed by the letter it reads as (lower case: the
 * patterns ignore case). Cyrillic and Greek hold lookalikes of most Latin letters; compatibility forms (fullwidth,
 * mathematical, circled letters) need no entry, since normalisation folds them, and Latin letters with
 * diacritics are added from their canonical decomposition (see {@link foldTableOf}).
 */
const LOOKALIKE_PAIRS =
  "аa вb гr еe кk мm оo пn рp сc тt уy хx ѕs іi јj ԁd ԛq ԝw һh ӏl " +
  "Аa Вb Еe Кk Мm Нh Оo Рp Сc Тt Уy Хx Ѕs Іi Јj Ԛq Ԝw Һh Ӏl " +
  "αa εe ιi κk νv οo ρp τt υu χx γy ϲc ϳj Αa Βb Εe Ζz Ηh Ιi Κk Μm Νn Οo Ρp Τt Υy Χx Ϲc";

/** The combining mark blocks used with Latin letters: what a mark left after normalisation is drawn from. */
const COMBINING_BLOCKS: ReadonlyArray<readonly [number, number]> = [
  [0x0300, 0x036f],
  [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff],
  [0x20d0, 0x20ff],
  [0xfe20, 0xfe2f],
];

/** In {@link foldTable}: the unit is dropped (a combining mark). */
const DROP = 1;

/**
 * For each BMP code unit: 0 to keep it, {@link DROP}, or the ASCII code of the Latin letter it reads as. Built the
 * first time a text that is not ASCII is checked: from {@link LOOKALIKE_PAIRS}, the Latin letters with diacritics
 * (Latin-1 to Latin Extended-B, Latin Extended Additional) by their canonical decomposition, and the combining
 * marks.
 */
let foldTable: Uint8Array | undefined;

function foldTableOf(): Uint8Array {
  if (foldTable !== undefined) return foldTable;
  const table = new Uint8Array(0x10000);
  for (const pair of LOOKALIKE_PAIRS.split(" ")) table[pair.charCodeAt(0)] = pair.charCodeAt(1);
  for (const [first, last] of [
    [0xc0, 0x24f],
    [0x1e00, 0x1eff],
  ] as const) {
    for (let unit = first; unit <= last; unit++) {
      const base = String.fromCharCode(unit).normalize("NFD").charCodeAt(0);
      const lower = base | 0x20;
      if (unit !== base && lower >= 0x61 && lower <= 0x7a) table[unit] = lower;
    }
  }
  for (const [first, last] of COMBINING_BLOCKS) table.fill(DROP, first, last + 1);
  foldTable = table;
  return table;
}

/** Made at first use: a UTF-16 decoder costs a quarter of a millisecond to set up; only long folded texts need it. */
let utf16: TextDecoder | undefined;

/** Texts up to this many units are mapped by slicing around what maps; longer ones through one array of units. */
const SLICED_UNITS = 512;

/** The one-character strings of the ASCII letters the table maps to, by code. */
const ASCII_CHARS = Array.from({ length: 0x80 }, (_, code) => String.fromCharCode(code));

/** `text` with each unit mapped through {@link foldTableOf}'s table; the same string when nothing maps. */
function mapUnits(text: string, table: Uint8Array): string {
  const length = text.length;
  // Text in scripts with no lookalikes (CJK, Arabic, Hebrew…) is read once and returned as it is.
  let first = 0;
  while (first < length && table[text.charCodeAt(first)] === 0) first++;
  if (first === length) return text;
  if (length <= SLICED_UNITS) {
    // A short text (a title, a name) with a few accented letters: the runs between them are kept as slices, several
    // times cheaper than an array of units and a decoder for a string this short.
    let mapped = text.slice(0, first);
    let from = first;
    for (let i = first; i < length; i++) {
      const folded = table[text.charCodeAt(i)] as number;
      if (folded === 0) continue;
      mapped += text.slice(from, i);
      if (folded !== DROP) mapped += ASCII_CHARS[folded];
      from = i + 1;
    }
    return mapped + text.slice(from);
  }
  const units = new Uint16Array(length);
  let kept = 0;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    const folded = table[unit] as number;
    if (folded === 0) units[kept++] = unit;
    else if (folded !== DROP) units[kept++] = folded;
  }
  utf16 ??= new TextDecoder("utf-16le", { ignoreBOM: true });
  return utf16.decode(units.subarray(0, kept));
}

/**
 * Text as the instruction patterns read it: Cyrillic, Greek and accented lookalikes replaced by the Latin letters
 * they imitate (`ignоre` with a Cyrillic `о`, `ïgnöre`) and combining marks dropped, then compatibility forms folded
 * (NFKC: `ｉｇｎｏｒｅ` and `𝐢𝐠𝐧𝐨𝐫𝐞` read `ignore`), then the table once more for what normalising made of
 * compatibility forms. Lookalikes go first, since normalising turns some of them (`ϲ`, `Ϲ`) into letters that no
 * longer look Latin. ASCII text, the usual case, is returned as it is; other text costs about twice cleaning it.
 * Expects cleaned text ({@link cleanText}): what it makes of a lone surrogate is left open.
 */
export function foldLookalikes(text: string): string {
  // ASCII exactly when every unit is one byte in UTF-8: answered natively, several times faster than an expression.
  if (utf8Length(text) === text.length) return text;
  const table = foldTableOf();
  const mapped = mapUnits(text, table);
  const normal = mapped.normalize("NFKC");
  return normal === mapped ? normal : mapUnits(normal, table);
}

/**
 * Whether a BMP code unit is left as it is by NFKC whatever stands around it: it has no decomposition, is no
 * combining mark and never ends a composition (NFKC_Quick_Check = Yes, combining class 0). Only whole blocks known
 * to be so are named: CJK Unified Ideographs with Extension A, Hangul syllables (the jamo they compose from are not
 * here), and the dingbats. A text of ASCII and such units needs no normalising, which otherwise costs more than the
 * rest of the check on a short title in Chinese, Japanese or Korean.
 */
function nfkcInertUnit(unit: number): boolean {
  return (
    (unit >= 0x4e00 && unit <= 0x9fff) ||
    (unit >= 0xac00 && unit <= 0xd7a3) ||
    (unit >= 0x3400 && unit <= 0x4dbf) ||
    (unit >= 0x2700 && unit <= 0x27bf)
  );
}

/**
 * The astral code points {@link nfkcInertUnit} says the same of: the emoji blocks (Miscellaneous Symbols and
 * Pictographs to Symbols and Pictographs Extended-A) and CJK Extension B. Mathematical letters, enclosed
 * alphanumerics and the compatibility ideographs, which NFKC folds, lie outside them.
 */
function nfkcInertAstral(point: number): boolean {
  return (
    (point >= PICTOGRAPHS_FIRST && point <= PICTOGRAPHS_LAST) ||
    (point >= EXTENSION_B_FIRST && point <= EXTENSION_B_LAST)
  );
}
const PICTOGRAPHS_FIRST = 0x1f300;
const PICTOGRAPHS_LAST = 0x1faff;
const EXTENSION_B_FIRST = 0x20000;
const EXTENSION_B_LAST = 0x2a6df;
/** The ranges of {@link nfkcInertAstral}, for the helper thread's key screen. */
const INERT_ASTRAL = [
  [PICTOGRAPHS_FIRST, PICTOGRAPHS_LAST],
  [EXTENSION_B_FIRST, EXTENSION_B_LAST],
] as const;

/**
 * {@link instructionText} of a short text with nothing to clean, in the one pass that finds that out (the scan
 * {@link cleanText} makes, the lookalikes mapped by slices as it goes): `undefined` when the text holds anything
 * cleaning removes. A text whose every unit past ASCII maps to an ASCII letter (or is dropped) is ASCII once mapped,
 * which normalising leaves as it is. For texts of at most {@link SLICED_UNITS} units.
 */
function foldShortClean(text: string): string | undefined {
  const length = text.length;
  // Built only once a text past ASCII is met, as for the long way.
  let table: Uint8Array | undefined;
  let mapped = "";
  let from = 0;
  let unmapped = false;
  for (let i = 0; i < length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x7f) {
      // C0 controls except tab and line feed, as cleaning judges them.
      if (unit < 0x20 && unit !== 0x09 && unit !== 0x0a) return undefined;
      continue;
    }
    if (unit >= 0xd800 && unit <= 0xdfff) {
      const next = unit <= 0xdbff && i + 1 < length ? text.charCodeAt(i + 1) : 0;
      if (next < 0xdc00 || next > 0xdfff) return undefined;
      const point = ((unit - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
      if (isInvisibleAstral(point)) return undefined;
      if (!nfkcInertAstral(point)) unmapped = true;
      i++;
      continue;
    }
    if (isInvisibleUnit(unit)) return undefined;
    table ??= foldTableOf();
    const folded = table[unit] as number;
    if (folded === 0) {
      if (!nfkcInertUnit(unit)) unmapped = true;
      continue;
    }
    mapped += text.slice(from, i);
    if (folded !== DROP) mapped += ASCII_CHARS[folded];
    from = i + 1;
  }
  if (from === 0 && !unmapped) return text;
  const whole = from === 0 ? text : mapped + text.slice(from);
  if (!unmapped) return whole;
  const normal = whole.normalize("NFKC");
  return normal === whole ? normal : mapUnits(normal, table ?? foldTableOf());
}

/**
 * The text the instruction patterns read: `text` cleaned ({@link cleanText}) and folded ({@link foldLookalikes}).
 * A short text with nothing to clean (a title, a name: what `text` field rules mostly check) is read once for both.
 */
export function instructionText(text: string): string {
  if (text.length <= SLICED_UNITS) {
    const folded = foldShortClean(text);
    if (folded !== undefined) return folded;
  }
  return foldLookalikes(cleanText(text));
}

/**
 * {@link TRIGGER_WORDS} as one automaton (`trigger-automaton.ts`): `TRIGGER_STEPS[state × 28 + class]` is the next
 * state, or {@link WORD_READ} for a step that completes a word. Read over a text's folded characters one by one, it
 * finds a word wherever {@link INSTRUCTION_TRIGGER} would, case aside: the expression ignores ASCII case only, and
 * every letter here is ASCII, lower-cased as it is read. {@link triggerPairs} takes two classes a step.
 */
const TRIGGER_STEPS = triggerAutomaton(TRIGGER_WORDS);
/** Made at the first check, as the table of units' classes is: a process whose contracts have no text rule never reads it. */
let triggerPairs: Uint8Array | undefined;

function pairStepsOnce(): Uint8Array {
  triggerPairs = pairSteps(TRIGGER_STEPS);
  return triggerPairs;
}

/**
 * Each ASCII unit's class for {@link TRIGGER_STEPS}, or {@link WORD_READ} for what the one pass does not decide
 * alone: `<`, `[` and the C0 controls cleaning removes (all but tab and line feed).
 */
const ASCII_CLASSES = Uint8Array.from({ length: 0x80 }, (_, unit) => {
  if (unit >= 0x61 && unit <= 0x7a) return unit - 0x61;
  if (unit >= 0x41 && unit <= 0x5a) return unit - 0x41;
  if (unit === 0x20) return SPACE_CLASS;
  if (unit === 0x3c || unit === 0x5b || (unit < 0x20 && unit !== 0x09 && unit !== 0x0a)) return WORD_READ;
  return OTHER_CLASS;
});

/** In {@link unitClasses}: a unit not seen yet, a unit folding drops, and half of a surrogate pair. */
const UNSEEN = 0xfd;
const DROPPED = 0xfc;
const SURROGATE = 0xfb;

/**
 * Each UTF-16 unit's class for {@link TRIGGER_STEPS} (0–27), or what {@link triggerFree} does with it: stop
 * ({@link WORD_READ}: what the one pass does not decide alone), skip it ({@link DROPPED}), read it as half of a pair
 * ({@link SURROGATE}). Units above ASCII are judged the first time they are met ({@link unitClassOf}) and kept, so a
 * text costs one lookup a unit whatever script it is in. Made at the first check.
 */
let unitClasses: Uint8Array | undefined;

function unitClassesOf(): Uint8Array {
  if (unitClasses !== undefined) return unitClasses;
  // In shared memory where there is some: the helper thread's screen reads the classes found so far (`key-screen.ts`).
  const table =
    typeof SharedArrayBuffer === "function" ? new Uint8Array(new SharedArrayBuffer(0x10000)) : new Uint8Array(0x10000);
  table.fill(UNSEEN);
  // DEL (0x7f) is judged as the units above ASCII are: cleaning removes it.
  table.set(ASCII_CLASSES.subarray(0, 0x7f));
  table.fill(SURROGATE, 0xd800, 0xe000);
  unitClasses = table;
  return table;
}

/** The class of a BMP unit above ASCII that is not a surrogate, as the one pass judges it: noted for next time. */
function unitClassOf(table: Uint8Array, unit: number): number {
  let at: number;
  if (isInvisibleUnit(unit)) at = WORD_READ;
  else {
    const folded = foldTableOf()[unit] as number;
    if (folded === DROP) at = DROPPED;
    else if (folded !== 0) at = folded - 0x61;
    else at = nfkcInertUnit(unit) ? OTHER_CLASS : WORD_READ;
  }
  table[unit] = at;
  return at;
}

/**
 * True when {@link INSTRUCTION_TRIGGER} cannot match {@link instructionText} of `text`, found in one pass that folds
 * as it reads (the same rules as {@link foldShortClean}) instead of building the folded text and searching it; false
 * when it may, and whenever the text holds what that pass would not decide alone: anything cleaning removes, a
 * character only normalising can fold, `<` or `[`. For texts of at most {@link SLICED_UNITS} units. Two units whose
 * classes are plain letters, spaces or others are read in one step of the pair table; a unit that needs a closer look
 * (one not seen before, a mark folding drops, half of a pair) is read alone.
 */
export function triggerFree(text: string): boolean {
  const classes = unitClasses ?? unitClassesOf();
  const pairs = triggerPairs ?? pairStepsOnce();
  const length = text.length;
  let state = 0;
  let i = 0;
  while (i < length) {
    const unit = text.charCodeAt(i);
    const first = classes[unit] as number;
    if (first < CLASSES && i + 1 < length) {
      const second = classes[text.charCodeAt(i + 1)] as number;
      if (second < CLASSES) {
        state = pairs[(state * CLASSES + first) * CLASSES + second] as number;
        if (state === WORD_READ) return false;
        i += 2;
        continue;
      }
    }
    let at = first;
    if (at >= CLASSES) {
      if (at === UNSEEN) at = unitClassOf(classes, unit);
      if (at === WORD_READ) return false;
      if (at === DROPPED) {
        i++;
        continue;
      }
      if (at === SURROGATE) {
        const next = unit <= 0xdbff && i + 1 < length ? text.charCodeAt(i + 1) : 0;
        if (next < 0xdc00 || next > 0xdfff) return false;
        const point = ((unit - 0xd800) << 10) + (next - 0xdc00) + 0x10000;
        if (isInvisibleAstral(point) || !nfkcInertAstral(point)) return false;
        i++;
        at = OTHER_CLASS;
      }
    }
    state = TRIGGER_STEPS[state * CLASSES + at] as number;
    if (state === WORD_READ) return false;
    i++;
  }
  return true;
}

/**
 * Whether text reads like instructions to the model (see {@link INSTRUCTION_LIKE}). Checked on cleaned text, folded
 * by {@link foldLookalikes} ({@link instructionText}).
 */
export function looksLikeInstructions(text: string): boolean {
  if (text.length <= SLICED_UNITS && triggerFree(text)) return false;
  const folded = instructionText(text);
  if (!INSTRUCTION_TRIGGER.test(folded)) return false;
  return INSTRUCTION_LIKE.some((pattern) => pattern.test(folded));
}

/**
 * Why an opaque token is not one, or `undefined` when it is fine: a number, or a string of {@link OPAQUE_TOKEN}'s
 * characters that is not only dots (`.` and `..` are path steps). The problem names what the value could be taken
 * for (`url`, `path`, `command`), or `charset` for any other character outside the set.
 */
export function opaqueTokenProblem(value: unknown): string | undefined {
  if (typeof value === "number") return undefined;
  if (typeof value !== "string") return "not_a_token";
  if (OPAQUE_TOKEN.test(value)) return /^\.+$/.test(value) ? "path" : undefined;
  for (const [problem, pattern] of NOT_OPAQUE) if (pattern.test(value)) return problem;
  return "charset";
}

/** What the field rules found: violations fail the call; `instructionLike` only flags it. */
export interface FieldFindings {
  violations: ValidationIssue[];
  instructionLike: boolean;
}

/**
 * What the helper thread's key screen (`record/key-screen.ts`) reads text with: the tables and constants
 * {@link triggerFree} reads it with.
 */
export function instructionTables(): Omit<KeyScreen, "id" | "keys"> {
  return {
    classes: unitClassesOf(),
    steps: TRIGGER_STEPS,
    classCount: CLASSES,
    otherClass: OTHER_CLASS,
    stop: WORD_READ,
    dropped: DROPPED,
    maxUnits: SLICED_UNITS,
    astral: INERT_ASTRAL,
  };
}

/**
 * Applies the contract's field rules to validated data. Instance paths are only written for what is reported.
 * `flagsScreened`: the helper thread found no string under the flag rules' keys that could read like instructions
 * (`stages/flag-screen.ts`), so the flag rules need no walk.
 */
export function checkFieldRules(data: unknown, rules: readonly FieldRule[], flagsScreened = false): FieldFindings {
  const findings: FieldFindings = { violations: [], instructionLike: false };
  for (const rule of rules) {
    const reject = rule.onInstruction === "reject";
    if (rule.kind === "text" && !reject) {
      if (flagsScreened) continue;
      // A flag is raised once per result, and needs no path: only whether some string reads like instructions.
      if (!findings.instructionLike) findings.instructionLike = instructionsAt(data, stepsOf(rule.path), 0);
      continue;
    }
    visitAt(data, stepsOf(rule.path), 0, [], (value, keys, depth) => {
      if (rule.kind === "opaque") {
        const problem = opaqueTokenProblem(value);
        if (problem !== undefined)
          findings.violations.push({
            instancePath: pointerOfKeys(keys, depth),
            schemaPath: `x-toolgate/fields/opaque/${problem}`,
            keyword: "opaque",
          });
      } else if ((reject || !findings.instructionLike) && typeof value === "string" && looksLikeInstructions(value)) {
        // A flag is raised once per result, so once it is up, only rejecting rules still need to look.
        if (reject) {
          findings.violations.push({
            instancePath: pointerOfKeys(keys, depth),
            schemaPath: "x-toolgate/fields/text",
            keyword: "instruction",
          });
        } else findings.instructionLike = true;
      }
    });
  }
  return findings;
}
