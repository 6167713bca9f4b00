/**
 * Pattern bounds: how many bytes of JSON string content a `pattern` can match, read from the pattern itself.
 *
 * A reader for the regular expressions of `pattern` (ECMAScript, `u` flag), just enough to bound a match: anchors,
 * alternatives, groups, classes, escapes and bounded quantifiers. Anything else (a back-reference, an unbounded
 * repetition, syntax it does not follow) makes the pattern unbounded, which is always sound.
 */
import { MAX_BYTES_PER_CODE_POINT, MAX_BYTES_PER_CODE_UNIT } from "./size.js";

/**
 * Worst-case bytes of the characters a regular expression can match (quotes excluded), or null when the pattern
 * is not provably bounded: not anchored `^…$` in every top-level alternative, an unbounded repetition, a
 * back-reference, or syntax this small reader does not follow. Read as Ajv compiles it (`u` flag).
 */
export function patternMaxBytes(pattern: string): number | null {
  try {
    const reader = new PatternReader(pattern);
    const alternatives = reader.disjunction();
    if (!reader.atEnd()) return null;
    let max = 0;
    for (const terms of alternatives) {
      const first = terms[0];
      const last = terms[terms.length - 1];
      if (first?.kind !== "start" || last?.kind !== "end") return null;
      max = Math.max(max, sumTerms(terms));
    }
    return Number.isFinite(max) ? max : null;
  } catch {
    return null;
  }
}

/** One term of an alternative: an anchor, or something that consumes at most `bytes` of JSON string content. */
interface PatternTerm {
  kind: "start" | "end" | "consume";
  bytes: number;
}

function sumTerms(terms: PatternTerm[]): number {
  return terms.reduce((sum, t) => sum + t.bytes, 0);
}

/** An escape or class member that may match a code point outside the BMP costs 12 bytes, else 6. */
const BMP_CHAR = MAX_BYTES_PER_CODE_UNIT;
const ANY_CHAR = MAX_BYTES_PER_CODE_POINT;

class PatternReader {
  private pos = 0;

  constructor(private readonly source: string) {}

  atEnd(): boolean {
    return this.pos >= this.source.length;
  }

  /** Alternatives up to the end or a closing parenthesis. */
  disjunction(): PatternTerm[][] {
    const alternatives: PatternTerm[][] = [[]];
    while (!this.atEnd() && this.peek() !== ")") {
      if (this.peek() === "|") {
        this.pos++;
        alternatives.push([]);
        continue;
      }
      (alternatives[alternatives.length - 1] as PatternTerm[]).push(this.term());
    }
    return alternatives;
  }

  private peek(): string {
    return this.source[this.pos] ?? "";
  }

  private term(): PatternTerm {
    const c = this.peek();
    if (c === "^") {
      this.pos++;
      return { kind: "start", bytes: 0 };
    }
    if (c === "$") {
      this.pos++;
      return { kind: "end", bytes: 0 };
    }
    const atom = this.atom();
    const times = this.quantifier();
    const bytes = atom === 0 ? 0 : atom * times;
    return { kind: "consume", bytes };
  }

  /** Worst-case bytes one occurrence of the next atom consumes. */
  private atom(): number {
    const c = this.peek();
    if (c === "(") return this.group();
    if (c === "[") return this.characterClass();
    if (c === ".") {
      this.pos++;
      return ANY_CHAR;
    }
    if (c === "\\") return this.escape(false);
    if (c === "*" || c === "+" || c === "?" || c === "{" || c === "}" || c === "]") {
      throw new SyntaxError("unexpected quantifier");
    }
    const cp = this.source.codePointAt(this.pos) as number;
    this.pos += cp > 0xffff ? 2 : 1;
    return cp > 0xffff ? ANY_CHAR : BMP_CHAR;
  }

  private group(): number {
    this.pos++; // (
    let lookaround = false;
    if (this.source.startsWith("?:", this.pos)) this.pos += 2;
    else if (this.source.startsWith("?=", this.pos) || this.source.startsWith("?!", this.pos)) {
      this.pos += 2;
      lookaround = true;
    } else if (this.source.startsWith("?<=", this.pos) || this.source.startsWith("?<!", this.pos)) {
      this.pos += 3;
      lookaround = true;
    } else if (this.source.startsWith("?<", this.pos)) {
      const close = this.source.indexOf(">", this.pos);
      if (close < 0) throw new SyntaxError("unterminated group name");
      this.pos = close + 1;
    } else if (this.peek() === "?") {
      throw new SyntaxError("unsupported group");
    }
    const alternatives = this.disjunction();
    if (this.peek() !== ")") throw new SyntaxError("unterminated group");
    this.pos++;
    if (lookaround) return 0;
    // An anchor inside a group consumes nothing; the match is still bounded by what the group consumes.
    return Math.max(0, ...alternatives.map(sumTerms));
  }

  private characterClass(): number {
    this.pos++; // [
    let bytes = BMP_CHAR;
    if (this.peek() === "^") {
      this.pos++;
      bytes = ANY_CHAR;
    }
    while (!this.atEnd() && this.peek() !== "]") {
      if (this.peek() === "\\") bytes = Math.max(bytes, this.escape(true));
      else {
        const cp = this.source.codePointAt(this.pos) as number;
        this.pos += cp > 0xffff ? 2 : 1;
        if (cp > 0xffff) bytes = ANY_CHAR;
      }
    }
    if (this.peek() !== "]") throw new SyntaxError("unterminated class");
    this.pos++;
    return bytes;
  }

  /** An escape: a class (`\d`), a literal, or an assertion (`\b`, 0 bytes). Back-references are not followed. */
  private escape(inClass: boolean): number {
    this.pos++; // backslash
    const c = this.peek();
    this.pos++;
    if (c === "") throw new SyntaxError("trailing backslash");
    if ((c === "b" || c === "B") && !inClass) return 0;
    if ("dws".includes(c)) return BMP_CHAR;
    if ("DWSpP".includes(c)) {
      if ((c === "p" || c === "P") && this.peek() === "{") {
        const close = this.source.indexOf("}", this.pos);
        if (close < 0) throw new SyntaxError("unterminated property escape");
        this.pos = close + 1;
      }
      return ANY_CHAR;
    }
    if (c === "u" && this.peek() === "{") {
      const close = this.source.indexOf("}", this.pos);
      if (close < 0) throw new SyntaxError("unterminated code point escape");
      const cp = Number.parseInt(this.source.slice(this.pos + 1, close), 16);
      this.pos = close + 1;
      return cp > 0xffff ? ANY_CHAR : BMP_CHAR;
    }
    if (c === "k" || (c >= "1" && c <= "9" && !inClass)) throw new SyntaxError("back-reference");
    // \uXXXX, \xHH, \cX: one BMP character with its digits; \0, \t, \n, \/, \., …: one BMP character.
    const digits = c === "u" ? /^[0-9a-fA-F]{4}/ : c === "x" ? /^[0-9a-fA-F]{2}/ : c === "c" ? /^[a-zA-Z]/ : undefined;
    if (digits !== undefined) this.pos += digits.exec(this.source.slice(this.pos))?.[0].length ?? 0;
    return BMP_CHAR;
  }

  /** The most times the preceding atom may repeat. */
  private quantifier(): number {
    const c = this.peek();
    let max = 1;
    if (c === "*" || c === "+") {
      this.pos++;
      max = Number.POSITIVE_INFINITY;
    } else if (c === "?") {
      this.pos++;
    } else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.pos));
      if (m === null) throw new SyntaxError("bad quantifier");
      this.pos += m[0].length;
      max =
        m[2] === undefined ? Number(m[1]) : m[3] === "" || m[3] === undefined ? Number.POSITIVE_INFINITY : Number(m[3]);
    } else {
      return 1;
    }
    if (this.peek() === "?") this.pos++; // lazy
    return max;
  }
}
