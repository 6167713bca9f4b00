/**
 * The internal links of Markdown pages: each relative link must name a file of the repository, and a link to a
 * heading of a Markdown page must name a heading that page has. Outside links (`https:`, `mailto:`) are not followed.
 * Heading anchors are GitHub's (lower case, punctuation dropped, spaces as `-`), which the docs site's own anchors
 * agree with for every heading a page links to (the site's build checks its page links again).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/** One link that leads nowhere. */
export interface DeadLink {
  /** `docs/gate.md:12` */
  where: string;
  target: string;
  why: string;
}

/** GitHub's anchor of a heading. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/[^\p{L}\p{N}\s-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown text's headings (outside fenced blocks), with GitHub's `-1`, `-2` for repeats. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = headingAnchor(heading[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every `[text](target)` of a Markdown text outside fenced blocks and code spans, with its line. */
export function linksOf(markdown: string): Array<{ line: number; target: string }> {
  const links: Array<{ line: number; target: string }> = [];
  let fenced = false;
  markdown.split(/\r?\n/).forEach((text, index) => {
    if (/^(```|~~~)/.test(text)) fenced = !fenced;
    if (fenced) return;
    const prose = text.replace(/`[^`]*`/g, "``");
    for (const match of prose.matchAll(/\]\(([^)\s]+)\)/g)) links.push({ line: index + 1, target: match[1] as string });
  });
  return links;
}

/** The dead links of the Markdown files `files` (relative to `root`). */
export function deadLinks(root: string, files: readonly string[]): DeadLink[] {
  const dead: DeadLink[] = [];
  for (const file of files) {
    const markdown = readFileSync(path.join(root, file), "utf8");
    for (const { line, target } of linksOf(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart = "", anchor] = target.split("#", 2);
      const resolved =
        pathPart === "" ? path.join(root, file) : path.resolve(path.join(root, path.dirname(file)), pathPart);
      const where = `${file}:${line}`;
      if (!resolved.startsWith(root + path.sep) && resolved !== root) {
        dead.push({ where, target, why: "leaves the repository" });
        continue;
      }
      if (!existsSync(resolved)) {
        dead.push({ where, target, why: "no such file" });
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (!resolved.endsWith(".md") || !statSync(resolved).isFile()) {
        dead.push({ where, target, why: "an anchor into a file that is not a Markdown page" });
        continue;
      }
      if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor))
        dead.push({ where, target, why: `no heading #${anchor} in ${path.relative(root, resolved)}` });
    }
  }
  return dead;
}
