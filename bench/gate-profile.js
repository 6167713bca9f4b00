/**
 * Where an admit's time goes, by stage: a CPU profile (the inspector's sampling profiler, in this process) of many
 * admits of one payload, with each sample's time given to every stage on its stack (inclusive time), as a share of
 * all the time spent inside `admit`. Stages are the runtime's own functions (`runtime/dist` keeps their names); the
 * rest is the gate's glue (receive's checks, the event, promises) and what the engine did between.
 *
 * Timing stages one by one in a loop reads the same value again and again from a warm cache and undercounts them:
 * inside an admit each stage meets data the one before it made. The profile measures them where they run.
 */
import { Session } from "node:inspector/promises";

/**
 * The stages reported, each one or more functions of the built runtime (`runtime/dist`, whose entries and the chunks
 * they share keep the functions' names), or a node the engine names in parentheses, such as the collector. A name
 * that no longer matches a function leaves its time to the rest, so each is the name the built code has now: the
 * measure stage of an admit is `measureView`, and `measureModelContent` the same measure where a policy or a
 * re-measure asks for it.
 */
const STAGES = [
  ["parse (JSON.parse, depth and number pass)", "parseJsonText"],
  ["validator", "validate"],
  ["copy of a parsed value, its JSON.stringify", "copyParsedValue"],
  ["content blocks", "readContentBlocks"],
  ["sha256 of the UTF-8 text", "hashTextNow"],
  ["field rules (instruction-like text)", "checkFieldRules"],
  ["view (projection)", "view"],
  ["render and measure the model content", ["measureView", "measureModelContent"]],
  ["garbage collection", "(garbage collector)"],
];

/**
 * Profiles `count` admits of `raw` and returns each stage's share of the time inside `admit` (0..1), in the order of
 * {@link STAGES}, and the share left to the rest.
 * @param {{ admit: (raw: unknown) => Promise<{ ok: boolean }> }} adapter
 * @param {unknown} raw
 * @param {number} count
 * @returns {Promise<{ stages: Array<{ stage: string, share: number }>, other: number, samples: number }>}
 */
export async function profileAdmits(adapter, raw, count) {
  for (let i = 0; i < Math.ceil(count / 4); i++) await adapter.admit(raw);
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    await session.post("Profiler.start");
    for (let i = 0; i < count; i++) {
      const outcome = await adapter.admit(raw);
      if (!outcome.ok) throw new Error("a profiled admit failed");
    }
    const { profile } = await session.post("Profiler.stop");
    return shares(profile);
  } finally {
    session.disconnect();
  }
}

/**
 * Inclusive time of each stage over the time inside the gate's `admitPayload` (garbage collection, which the profile
 * shows as a root of its own, is counted against that time too).
 * @param {{ nodes: Array<{ id: number, callFrame: { functionName: string, url: string }, children?: number[] }>, samples: number[], timeDeltas: number[] }} profile
 */
function shares(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const stageOf = (node) =>
    STAGES.findIndex(
      ([, names]) =>
        (Array.isArray(names) ? names.includes(node.callFrame.functionName) : node.callFrame.functionName === names) &&
        (node.callFrame.functionName.startsWith("(") || node.callFrame.url.includes("/runtime/dist/")),
    );
  const inStage = new Array(STAGES.length).fill(0);
  let inAdmit = 0;
  profile.samples.forEach((id, index) => {
    const time = profile.timeDeltas[index] ?? 0;
    const seen = new Set();
    let admitting = false;
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      const stage = stageOf(node);
      if (stage >= 0) seen.add(stage);
      if (node.callFrame.functionName === "admitPayload") admitting = true;
    }
    const collecting = byId.get(id).callFrame.functionName === "(garbage collector)";
    if (!admitting && !collecting) return;
    inAdmit += time;
    for (const stage of seen) inStage[stage] += time;
  });
  const stages = STAGES.map(([stage], index) => ({ stage, share: inAdmit === 0 ? 0 : inStage[index] / inAdmit }));
  // Stages do not nest in one another, so what they leave is the gate's glue.
  const other = Math.max(0, 1 - stages.reduce((sum, { share }) => sum + share, 0));
  return { stages, other, samples: profile.samples.length };
}
