/**
 * A floor of the tokens a view holds, found without a tokenizer: the groups of characters its spaces separate.
 *
 * Both tokenizers a contract can name (`o200k_base`, `cl100k_base`) first cut text into chunks with a regular
 * expression and merge each chunk into at least one token. No chunk of either pattern reaches across whitespace
 * from one non-space character to another, save one: a run of punctuation may take the line breaks after it, and
 * in `o200k_base` a slash after those (`[\r\n/]*`). Whitespace holding anything but `\r` and `\n` is never inside a
 * chunk between two non-space characters. So every character that follows such whitespace starts a group that no
 * chunk shares with the group before it: a text holds at least as many tokens as it has such starts. The bounded
 * count (`measure.ts`) never counts fewer tokens than the tokenizer, so the floor holds for it too.
 *
 * The text view asks this of a text's cleaned lines before it renders and counts the whole text: a text with more
 * such starts than the budget has tokens cannot be shown whole, and is not rendered, cleaned to its end or counted
 * to find that out. Prose and logs run about one start per six bytes, so most texts over a token budget are known
 * to be over after a few kilobytes of lines.
 */

/**
 * Whether a UTF-16 code unit is whitespace (`\s`) that the view writes as it is: the view's JSON escapes the
 * controls (tab, the line breaks, vertical tab, form feed) and the two separators U+2028 and U+2029, which are then
 * not whitespace in what the model reads; every other `\s` character is written as itself.
 */
function writtenAsSpace(unit: number): boolean {
  if (unit === 0x20) return true;
  if (unit < 0xa0) return false;
  return (
    unit === 0xa0 ||
    unit === 0x1680 ||
    (unit >= 0x2000 && unit <= 0x200a) ||
    unit === 0x202f ||
    unit === 0x205f ||
    unit === 0x3000 ||
    unit === 0xfeff
  );
}

/**
 * How many characters of `line` follow whitespace the view writes as it is (see {@link writtenAsSpace}): each
 * starts a group of characters no chunk of the tokenizer shares with the group before it, so each is at least one
 * token of the rendered view. A line is read inside the view's JSON string, where its neighbours are the escaped
 * line break (`\n`) or a quote, never whitespace, so the lines' counts add up.
 */
export function spacedStarts(line: string): number {
  let starts = 0;
  let afterSpace = false;
  for (let i = 0; i < line.length; i++) {
    const space = writtenAsSpace(line.charCodeAt(i));
    if (afterSpace && !space) starts++;
    afterSpace = space;
  }
  return starts;
}
