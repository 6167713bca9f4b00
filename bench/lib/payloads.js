/**
 * Realistic results for the `list_issues` bench contract (bench/contracts/): issues with a title, an author, labels
 * and a body of prose of varied length, some of it non-ASCII, built from a seeded generator so every run reads the
 * same bytes.
 */

const WORDS = (
  "the a retry request timeout server client cache index build test flaky release branch merge config token " +
  "error warning crash memory leak stream parse schema field value null array object page cursor limit when " +
  "after before with without should must not fails works again slow fast café naïve résumé 東京 데이터 🚀 ✅"
).split(" ");
const LABELS = ["bug", "enhancement", "docs", "good first issue", "performance", "security", "question", "wontfix"];

/** A small deterministic generator (mulberry32), so payloads are identical across runs and machines. */
function seeded(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(random, words) {
  const out = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
  return out.join(" ");
}

/**
 * One issue.
 * @param {() => number} random
 * @param {number} n
 * @param {number} bodyWords
 */
function issue(random, n, bodyWords) {
  const labels = LABELS.filter(() => random() < 0.25);
  return {
    id: 1_000_000 + n,
    number: n,
    title: sentence(random, 4 + Math.floor(random() * 8)).slice(0, 256),
    state: random() < 0.7 ? "open" : "closed",
    author: { login: `user-${Math.floor(random() * 5000)}`, id: 10_000 + Math.floor(random() * 90_000) },
    labels,
    comments: Math.floor(random() * 40),
    createdAt: `2026-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}T12:34:56Z`,
    url: `https://issues.example.com/acme/widgets/issues/${n}`,
    body: random() < 0.05 ? null : sentence(random, bodyWords).slice(0, 2000),
  };
}

/**
 * A `list_issues` result as JSON text of at least `targetBytes` UTF-8 bytes (and close to it).
 * @param {number} targetBytes
 * @returns {{ text: string, bytes: number, issues: number }}
 */
export function issuesPayload(targetBytes) {
  const random = seeded(targetBytes);
  const encoder = new TextEncoder();
  const result = { totalCount: 0, issues: [], nextCursor: "c2VlZC0xMjM0NQ==" };
  let size = encoder.encode(JSON.stringify(result)).byteLength;
  while (size < targetBytes) {
    const remaining = targetBytes - size;
    const next = issue(
      random,
      result.issues.length + 1,
      Math.min(20 + Math.floor(random() * 90), Math.max(3, remaining / 8)),
    );
    result.issues.push(next);
    size += encoder.encode(JSON.stringify(next)).byteLength + 1;
  }
  result.totalCount = result.issues.length * 3;
  const text = JSON.stringify(result);
  return { text, bytes: encoder.encode(text).byteLength, issues: result.issues.length };
}

/**
 * A text result of at least `targetBytes` UTF-8 bytes (and close to it): lines of a service log, timestamped, some
 * of them long and some non-ASCII, from the same seeded generator.
 * @param {number} targetBytes
 * @returns {{ text: string, bytes: number, lines: number }}
 */
export function textPayload(targetBytes) {
  const random = seeded(targetBytes + 1);
  const encoder = new TextEncoder();
  const lines = [];
  let size = 0;
  while (size < targetBytes) {
    const level = random() < 0.1 ? "WARN" : random() < 0.03 ? "ERROR" : "INFO";
    const line = `2026-03-0${1 + Math.floor(random() * 9)}T12:${String(lines.length % 60).padStart(2, "0")}:07Z ${level} ${sentence(random, 6 + Math.floor(random() * 30))}`;
    lines.push(line);
    size += encoder.encode(line).byteLength + 1;
  }
  const text = lines.join("\n");
  return { text, bytes: encoder.encode(text).byteLength, lines: lines.length };
}
