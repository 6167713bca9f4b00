/**
 * The instruction check's automaton (`fields.ts`): the trigger words as one Aho–Corasick automaton made into a table
 * of steps over classes of characters (a letter, a space, anything else), read one character a step; and the same
 * table two characters a step, which halves the chain of dependent loads a text's reading waits on.
 */

/** The classes a character of folded text falls in: a letter (0–25), a space, anything else. */
export const SPACE_CLASS = 26;
export const OTHER_CLASS = 27;
export const CLASSES = 28;

/** The step into a state that has just read a whole word: the one the reader stops at. */
export const WORD_READ = 0xff;

/**
 * The automaton of `words` (lower-case ASCII letters and spaces): `steps[state × 28 + class]` is the next state, or
 * {@link WORD_READ} for a step that completes a word.
 */
export function triggerAutomaton(words: readonly string[]): Uint8Array {
  const classOf = (char: string) => (char === " " ? SPACE_CLASS : char.charCodeAt(0) - 0x61);
  // The trie of the words: each state's children by class, and whether a word ends there.
  const children: number[][] = [new Array(CLASSES).fill(-1)];
  const ending: boolean[] = [false];
  for (const word of words) {
    let state = 0;
    for (const char of word) {
      const at = classOf(char);
      let next = (children[state] as number[])[at] as number;
      if (next < 0) {
        next = children.length;
        children.push(new Array(CLASSES).fill(-1));
        ending.push(false);
        (children[state] as number[])[at] = next;
      }
      state = next;
    }
    ending[state] = true;
  }
  // Breadth first: each state's step on every class, through the longest suffix that is a state (its fail state).
  const steps = new Uint8Array(children.length * CLASSES);
  const ends = new Uint8Array(children.length);
  const fail = new Array<number>(children.length).fill(0);
  const queue: number[] = [];
  for (let at = 0; at < CLASSES; at++) {
    const child = (children[0] as number[])[at] as number;
    steps[at] = Math.max(child, 0);
    if (child > 0) queue.push(child);
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] as number;
    ends[state] = ending[state] || ends[fail[state] as number] === 1 ? 1 : 0;
    for (let at = 0; at < CLASSES; at++) {
      const child = (children[state] as number[])[at] as number;
      const fallback = steps[(fail[state] as number) * CLASSES + at] as number;
      if (child < 0) steps[state * CLASSES + at] = fallback;
      else {
        steps[state * CLASSES + at] = child;
        fail[child] = fallback;
        queue.push(child);
      }
    }
  }
  // A step into a state that ends a word is marked as such, so the reader checks one number a character.
  for (let at = 0; at < steps.length; at++) if (ends[steps[at] as number] === 1) steps[at] = WORD_READ;
  return steps;
}

/**
 * `steps` two classes at a time: `pairs[(state × 28 + first) × 28 + second]` is the state after reading both, or
 * {@link WORD_READ} when either step completes a word, so a reader that stops at {@link WORD_READ} stops on the
 * same texts. A table of 784 steps a state (about 50 KB for the trigger words).
 */
export function pairSteps(steps: Uint8Array): Uint8Array {
  const states = steps.length / CLASSES;
  const pairs = new Uint8Array(states * CLASSES * CLASSES);
  for (let state = 0; state < states; state++) {
    for (let first = 0; first < CLASSES; first++) {
      const middle = steps[state * CLASSES + first] as number;
      const at = (state * CLASSES + first) * CLASSES;
      // The second step is the middle state's row of steps, unless the first already read a word.
      if (middle === WORD_READ) pairs.fill(WORD_READ, at, at + CLASSES);
      else pairs.set(steps.subarray(middle * CLASSES, (middle + 1) * CLASSES), at);
    }
  }
  return pairs;
}
