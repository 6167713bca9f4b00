/**
 * Field paths (`x-toolgate.fields`, the view's paths): JSON pointers whose `*` segment stands for every item of an
 * array (and every value of an object), split once, and the values they reach in data.
 */
import type { FieldPath } from "../contract/types.js";
import { pointerSegment } from "./project.js";

/** A value found at a path, with its concrete instance path. */
export interface Located {
  path: string;
  value: unknown;
}

/** Decodes one JSON pointer segment (RFC 6901 §4). */
function decodeSegment(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** A field path split once: each segment decoded, `undefined` for `*`. */
export type Steps = ReadonlyArray<string | undefined>;

/** Field paths are few and fixed per contract, so each is split and decoded once and kept. */
const stepsByPointer = new Map<string, Steps>();
const MAX_KEPT_POINTERS = 1024;

export function stepsOf(pointer: FieldPath): Steps {
  let steps = stepsByPointer.get(pointer);
  if (steps === undefined) {
    steps =
      pointer === ""
        ? []
        : pointer
            .split("/")
            .slice(1)
            .map((raw) => (raw === "*" ? undefined : decodeSegment(raw)));
    // Paths normally come from generated specs; a caller building pointers per call must not grow this forever.
    if (stepsByPointer.size >= MAX_KEPT_POINTERS) stepsByPointer.clear();
    stepsByPointer.set(pointer, steps);
  }
  return steps;
}

/**
 * Calls `visit` with every value at `steps` below `value`, and the keys that lead to it (`keys[0..depth)`, an
 * array item's as its index; the array is reused, so a visitor that keeps a path writes it out with
 * {@link pointerOfKeys}, and no index is written as text unless a path is). Recursion is bounded by the number of
 * steps, which the path fixes, not by the data.
 */
export function visitAt(
  value: unknown,
  steps: Steps,
  depth: number,
  keys: Array<string | number>,
  visit: (value: unknown, keys: ReadonlyArray<string | number>, depth: number) => void,
): void {
  if (depth === steps.length) {
    visit(value, keys, depth);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const step = steps[depth];
  if (step !== undefined) {
    if (!Object.hasOwn(value, step)) return;
    keys[depth] = step;
    visitAt((value as Record<string, unknown>)[step], steps, depth + 1, keys, visit);
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      keys[depth] = index;
      visitAt(value[index], steps, depth + 1, keys, visit);
    }
  } else {
    for (const key of Object.keys(value)) {
      keys[depth] = key;
      visitAt((value as Record<string, unknown>)[key], steps, depth + 1, keys, visit);
    }
  }
}

/** The JSON pointer of the first `depth` keys. */
export function pointerOfKeys(keys: ReadonlyArray<string | number>, depth: number): string {
  let path = "";
  for (let i = 0; i < depth; i++) {
    const key = keys[i] as string | number;
    path += `/${typeof key === "number" ? key : pointerSegment(key)}`;
  }
  return path;
}

/**
 * Every value at `pointer` in `data`, where a `*` segment stands for every item of an array (and every value of an
 * object). A path that does not exist yields nothing.
 */
export function locate(data: unknown, pointer: FieldPath): Located[] {
  const found: Located[] = [];
  visitAt(data, stepsOf(pointer), 0, [], (value, keys, depth) => {
    found.push({ path: pointerOfKeys(keys, depth), value });
  });
  return found;
}
