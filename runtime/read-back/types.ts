/** The read-back tool's shared types: what a call is told, and what a page is. */
import type { ReadBackArgs } from "./arguments.js";

/** Why a read-back call did not return a page. */
export type ReadBackErrorCode =
  /** The arguments break the input schema (the message says which rule). */
  | "invalid_arguments"
  /** The handle is not one a store makes (a path, a URL, anything but `spill_` and 32 hex digits). */
  | "invalid_handle"
  /** No spilled value under the handle for this tenant and session (another's entry reads the same: not confirmed). */
  | "unknown_handle"
  /** The value's time to live is over. */
  | "expired"
  /** The stored entry is not the one written (sha256, length, header, index). */
  | "tampered"
  /** The store could not be read. */
  | "store_failed"
  /** Not even one item fits the budget with where it is and how to go on: the budget is too small. */
  | "page_over_budget";

/** Who is reading: the tenant and session of the call, and the clock for expiry. */
export interface ReadBackContext {
  tenant?: string | undefined;
  session?: string | undefined;
  /** Milliseconds since the epoch; default `Date.now()`. */
  now?: (() => number) | undefined;
}

/** One page, as the model reads it (inside the delimiter) and as structured content. */
export interface PageBody {
  handle: string;
  kind: "json" | "text";
  /** The pointer read (structured values). */
  pointer?: string | undefined;
  /** 1-based and inclusive: items or lines `from`–`to` of `total` (`from` > `to` on an empty page). */
  range: { from: number; to: number; total: number };
  /** The items, when the pointer names one array. */
  items?: unknown[] | undefined;
  /** The values a pattern with `*` matched, with their pointers; or the lines a text pattern matched. */
  matches?: Array<{ at: string; value: unknown } | { line: number; text: string }> | undefined;
  /** The lines of a text. */
  lines?: string[] | undefined;
  /** True when the one item or line shown is larger than a page (shown in part, or by its parts). */
  cut?: boolean | undefined;
  /** For an item larger than a page: the pointers to read instead, with their item counts where they are arrays. */
  parts?: Array<{ pointer: string; items?: number }> | undefined;
  /** Where the page is: `items 41–80 of 402 at /entities`, `lines 1–120 of 5,000`. */
  note: string;
  /** The exact arguments of the next page; absent on the last one. */
  next?: ReadBackArgs | undefined;
  /** True when this page ends the selection and nothing was cut. */
  complete: boolean;
}
