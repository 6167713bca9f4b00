/**
 * A payload's sha256 taken on a helper thread while the gate parses, validates and views the payload on its own.
 *
 * Hashing is a quarter of admitting a 64 KB or 1 MB result, and most of that is encoding a string to UTF-8 on the
 * way (for a string of two-byte units, as much again as the hash). Nothing the gate does before it renders the
 * model's content needs the hash, so a payload of at least {@link MIN_UNITS} units is copied into shared memory
 * (a string as its UTF-16 units, a copy the engine makes at memory speed) and a worker thread transcodes and hashes
 * it; the gate settles the hash (`PendingHash.settle`) before the first thing that reads it, by then usually done.
 *
 * The thread is the host's own (`node:worker_threads`, reached as the hash module is, with no import), started by
 * the first payload large enough and used once it has said it is ready: until then, and wherever there is no such
 * module, or shared memory, or the thread fails, the gate hashes on its own thread as before. A job is handed over
 * through shared memory alone: the gate marks the job's buffer pending and rings a doorbell word. After each job the
 * thread looks at the doorbell for a short while ({@link LOOK_US}), so a gate admitting results one after another
 * rings it with a store; then it sleeps in `Atomics.wait`, marked parked, and only then does a ring wake it (a
 * system call). Only a new buffer is sent, once, as a message, which the thread takes off its port
 * (`receiveMessageOnPort`) when it wakes; a buffer the gate lets go of is sent again, empty, so the thread lets go of
 * it too.
 *
 * Correctness never rests on the thread: a job it could not do (a text with a lone surrogate, which its transcoder
 * refuses) or did not finish in time is hashed on the caller's thread, from the payload the pending hash still
 * holds, with the same answer. The thread is `unref`ed, so it never keeps a process alive, and its buffers are
 * reused, a few at a time.
 */
import { KEY_SCREEN_SOURCE, type KeyScreen, SCREEN_FREE, SCREEN_UNSURE } from "./key-screen.js";
import { type HashedText, hashTextNow, hostBuiltin, sha256HexNow } from "./provenance.js";

/** Payloads shorter than this (in UTF-16 units, or bytes) are hashed at once: the hand-over would cost more. */
export const MIN_UNITS = 32 * 1024;
/**
 * Payloads longer than this are hashed at once too, so shared memory is never held in proportion to a huge one: a
 * job's buffer is at most 32 MB (a string's units take two bytes each).
 */
export const MAX_UNITS = 16 * 1024 * 1024;
/**
 * A text longer than this is not screened (`key-screen.ts`): the thread encodes a screened text whole, not in
 * pieces, and holds no more than 12 MB for it.
 */
const SCREEN_MAX_UNITS = 4 * 1024 * 1024;

/**
 * A job's buffer: a header of 32-bit words (state, UTF-8 length, units or bytes, kind, whether the encoding holds
 * U+FFFD, whether the payload holds `\u`, the key screen to run or 0, its answer), the digest as 64 ASCII hex
 * characters, then the payload.
 */
const HEAD_WORDS = 8;
const DIGEST_AT = 32;
const DATA_AT = 96;
/**
 * A job's states: none yet (a new buffer's zeros), done, failed, taken by the thread, taken back by the caller
 * before the thread began, or handed over.
 */
const DONE = 1;
const FAILED = 2;
const TAKEN = 3;
const TAKEN_BACK = 4;
const PENDING = 5;
const TEXT = 0;
const BYTES = 1;
/**
 * The words of the thread's control buffer: whether it is ready, the doorbell the gate rings for a job, how many
 * buffers the thread holds, and whether it sleeps (a ring must wake it).
 */
const READY = 0;
const BELL = 1;
const HELD = 2;
const PARKED = 3;

/**
 * How long the thread keeps looking at the doorbell after its last job before it sleeps, in microseconds. Waking a
 * sleeping thread is a system call that costs the gate 10–20 µs on a virtual machine, as much as the rest of a
 * 64 KB hand-over, and the thread then takes as long again to get a core back; a gate admitting results one after
 * another rings a thread still looking, which costs a store, and the job is under way at once. Measured with the
 * bench contract (`node bench/admit-loop.js 65536`): 235 µs an admit with the thread asleep between jobs, 195 µs
 * with it looking. The thread spends at most this much of a core after each job, and none while no results come.
 */
const LOOK_US = 300;

/**
 * How long a settle waits for a job the thread has begun before hashing itself, in milliseconds: about three times
 * what the thread takes for `units` (a unit or byte a nanosecond and a half), and half a millisecond more. A thread
 * that gets no core (a machine busy with other work) costs a caller that much, never an unbounded wait.
 */
function waitMs(units: number): number {
  return 0.5 + units * 4.5e-6;
}

/** A hash being taken on the helper thread. */
export interface PendingHash {
  /** The payload's UTF-8 length and sha256: the thread's, or, when it could not give them in time, the caller's own. */
  settle(): HashedText;
  /** Gives up a hash no one will read: a job the thread has not begun is taken back, and its buffer reused. */
  drop(): void;
  /**
   * Whether the thread has found, by now, that no string under the job's screened keys could read like
   * instructions (`key-screen.ts`); false for a job with no screen, or none answered yet. Never waits.
   */
  screenedFree(): boolean;
}

interface WorkerLike {
  unref(): void;
  on(event: string, listener: () => void): void;
}

interface PortLike {
  postMessage(message: unknown): void;
  unref?(): void;
}

interface WorkerThreads {
  Worker: new (
    source: string,
    options: { eval: true; workerData: unknown; transferList: readonly unknown[] },
  ) => WorkerLike;
  MessageChannel: new () => { port1: PortLike; port2: unknown };
}

interface BufferModule {
  Buffer: {
    from(
      buffer: ArrayBufferLike,
      offset: number,
      length: number,
    ): Uint8Array & {
      write(text: string, offset: number, encoding: "utf16le"): number;
      toString(encoding: "latin1"): string;
    };
  };
}

/**
 * The thread's code, which reaches its modules through `process.getBuiltinModule`, so that it runs whether the
 * host evaluates it as a script or as a module (a process started with `--input-type=module` passes that on). It
 * sleeps on the doorbell word ({@link BELL}); woken, it takes the buffers sent to it off its port, then does every
 * pending job among them. A text is transcoded from UTF-16 to UTF-8 in pieces that never split a surrogate pair,
 * every piece fed to one hash, and the state word set and notified last. A transcoder that meets a lone surrogate
 * throws, and the job is marked failed. Beside the hash, the thread says whether the payload holds `\u` (a JSON
 * escape), so the gate need not read a large JSON text again to know it has no escaped lone surrogate. The thread
 * never returns to its event loop: a host that ends it (the process exiting, `terminate`) interrupts the wait.
 */
const THREAD_SOURCE = `
const { workerData, receiveMessageOnPort } = process.getBuiltinModule("node:worker_threads");
const { transcode, Buffer } = process.getBuiltinModule("node:buffer");
const { createHash } = process.getBuiltinModule("node:crypto");
const PIECE = 64 * 1024;
const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);
// A JSON escape's \\u, in UTF-8 and in UTF-16 (little-endian).
const ESCAPE_BYTES = Buffer.from([0x5c, 0x75]);
const ESCAPE_UNITS = Buffer.from([0x5c, 0, 0x75, 0]);
const control = new Int32Array(workerData.control);
const buffers = new Map();
const screens = new Map();
${KEY_SCREEN_SOURCE}
// A job's key screen, answered before its hash so that the gate has it when it checks fields: free only in a
// payload with no \\u, where every key is written as it is.
function screen(head, bytes) {
  const told = screens.get(head[6]);
  const free = told !== undefined && head[5] === 0 && screenFree(bytes, told);
  Atomics.store(head, 7, free ? ${SCREEN_FREE} : ${SCREEN_UNSURE});
}
function run(sab) {
  const head = new Int32Array(sab, 0, ${HEAD_WORDS});
  // A job the caller took back, or a buffer with no job in it, is not this thread's to do.
  if (Atomics.compareExchange(head, 0, ${PENDING}, ${TAKEN}) !== ${PENDING}) return;
  let state = ${FAILED};
  try {
    const length = head[2];
    const hash = createHash("sha256");
    let bytes = 0;
    if (head[3] === ${BYTES}) {
      const payload = Buffer.from(sab, ${DATA_AT}, length);
      if (payload.indexOf(ESCAPE_BYTES) >= 0) head[5] = 1;
      if (head[6] !== 0) screen(head, payload);
      hash.update(payload);
      bytes = length;
    } else if (head[6] !== 0) {
      // A screened text is encoded whole: the screen reads its UTF-8, which the hash then takes.
      const encoded = transcode(Buffer.from(sab, ${DATA_AT}, length * 2), "utf16le", "utf8");
      if (encoded.indexOf(ESCAPE_BYTES) >= 0) head[5] = 1;
      screen(head, encoded);
      hash.update(encoded);
      if (encoded.indexOf(REPLACEMENT) >= 0) head[4] = 1;
      bytes = encoded.length;
    } else {
      const units = Buffer.from(sab, ${DATA_AT}, length * 2);
      // Found only where it starts a unit: its bytes may also straddle two units that are no escape.
      let escape = units.indexOf(ESCAPE_UNITS);
      while (escape >= 0 && (escape & 1) === 1) escape = units.indexOf(ESCAPE_UNITS, escape + 1);
      if (escape >= 0) head[5] = 1;
      for (let at = 0; at < length; ) {
        let end = Math.min(length, at + PIECE);
        if (end < length) {
          const last = units[2 * end - 2] | (units[2 * end - 1] << 8);
          if (last >= 0xd800 && last <= 0xdbff) end--;
        }
        const piece = transcode(units.subarray(2 * at, 2 * end), "utf16le", "utf8");
        hash.update(piece);
        // Pieces end between characters, so the bytes of U+FFFD are never split between two.
        if (head[4] === 0 && piece.indexOf(REPLACEMENT) >= 0) head[4] = 1;
        bytes += piece.length;
        at = end;
      }
    }
    Buffer.from(sab, ${DIGEST_AT}, 64).write(hash.digest("hex"), "latin1");
    head[1] = bytes;
    state = ${DONE};
  } catch {}
  Atomics.store(head, 0, state);
  Atomics.notify(head, 0);
}
// Ready only once a transcode and a hash have worked here: a host without them never gets a job.
transcode(Buffer.from("\\u00e9", "utf16le"), "utf16le", "utf8");
createHash("sha256").update("").digest("hex");
Atomics.store(control, ${READY}, 1);
let bell = Atomics.load(control, ${BELL});
for (;;) {
  // The bell as it was before the look at the buffers: a job marked pending after it rang again is found by the
  // look below, or makes the wait return at once.
  for (let sent = receiveMessageOnPort(workerData.port); sent !== undefined; sent = receiveMessageOnPort(workerData.port)) {
    const { id, buffer, screen: told } = sent.message;
    if (told !== undefined) screens.set(told.id, screenOf(told));
    else if (buffer === undefined) buffers.delete(id);
    else buffers.set(id, buffer);
  }
  Atomics.store(control, ${HELD}, buffers.size);
  for (const buffer of buffers.values()) run(buffer);
  // A while looking, then asleep: marked parked before the last look, so a gate that rings after that look sees the
  // mark and wakes the thread, and one that rang before it is found by it.
  const until = performance.now() + ${LOOK_US / 1000};
  let rung = Atomics.load(control, ${BELL});
  while (rung === bell && performance.now() < until) rung = Atomics.load(control, ${BELL});
  if (rung === bell) {
    Atomics.store(control, ${PARKED}, 1);
    rung = Atomics.load(control, ${BELL});
    if (rung === bell) Atomics.wait(control, ${BELL}, bell);
    Atomics.store(control, ${PARKED}, 0);
    rung = Atomics.load(control, ${BELL});
  }
  bell = rung;
}
`;

/**
 * The helper thread: not started, starting (its ready word still 0), ready, or given up on. `port` sends it new
 * buffers and the ones let go; `control` holds its ready word and the doorbell.
 */
let thread: { port: PortLike; control: Int32Array } | "off" | undefined;

const bufferModule = hostBuiltin<BufferModule>("node:buffer");

/**
 * Free job buffers by capacity (payload bytes), reused so a busy gate allocates no shared memory per payload: at
 * most {@link KEEP_PER_CAPACITY} of a capacity and {@link KEEP_BYTES} in all.
 */
const free = new Map<number, Slot[]>();
/** Free buffers kept per capacity. */
const KEEP_PER_CAPACITY = 2;
/** Bytes of free buffers kept in all: a process that once saw a few large payloads holds no more than this. */
const KEEP_BYTES = 8 * 1024 * 1024;
let keptBytes = 0;
/**
 * One free buffer too large for {@link KEEP_BYTES}, kept while large payloads keep coming: a new buffer of many
 * megabytes costs a page fault per page as it is first written (about a millisecond a megabyte), as much as the
 * hash it spares. Released once {@link LARGE_IDLE_MS} pass without a job that could reuse it.
 */
let large: { slot: Slot; timer: ReturnType<typeof setTimeout> } | undefined;
/** How long the large free buffer is kept without being reused, in milliseconds. */
const LARGE_IDLE_MS = 2000;

/** A job buffer the thread knows: its id there, and its capacity class. */
interface Slot {
  buffer: SharedArrayBuffer;
  id: number;
  capacity: number;
  /** The buffer's header words, its payload area and its digest, as views made once with the buffer. */
  head: Int32Array;
  data: ReturnType<BufferModule["Buffer"]["from"]>;
  digest: ReturnType<BufferModule["Buffer"]["from"]>;
}

/** The id of the next buffer made. */
let nextId = 0;

/** The helper thread when it is ready for jobs; starts it the first time it is asked for. */
function readyThread(): { port: PortLike; control: Int32Array } | undefined {
  if (thread === "off") return undefined;
  if (thread === undefined) {
    thread = "off";
    // Looked up only now: loading `node:worker_threads` takes a couple of milliseconds, which a process whose
    // results are all small never spends.
    const workerThreads = hostBuiltin<WorkerThreads>("node:worker_threads");
    if (workerThreads === undefined || bufferModule === undefined || typeof SharedArrayBuffer !== "function") {
      return undefined;
    }
    try {
      const control = new SharedArrayBuffer(16);
      const { port1, port2 } = new workerThreads.MessageChannel();
      const worker = new workerThreads.Worker(THREAD_SOURCE, {
        eval: true,
        workerData: { control, port: port2 },
        transferList: [port2],
      });
      worker.unref();
      port1.unref?.();
      const off = () => {
        thread = "off";
      };
      worker.on("error", off);
      worker.on("exit", off);
      thread = { port: port1, control: new Int32Array(control) };
    } catch {
      // A host that forbids threads (a permission model, a sandbox): hash on this thread.
    }
    return undefined;
  }
  return Atomics.load(thread.control, READY) === 1 ? thread : undefined;
}

/**
 * Tells the thread of a buffer (`buffer` given), that it is let go of, or of a key screen; a thread that has ended
 * hears nothing.
 */
function tell(message: { id: number; buffer?: SharedArrayBuffer } | { screen: KeyScreen }): void {
  if (typeof thread !== "object") return;
  try {
    thread.port.postMessage(message);
  } catch {
    // A closed port: the thread has ended, and its buffers with it.
  }
}

/** The capacity class of a payload of `bytes` bytes: a power of two, so buffers fit many payload sizes. */
function capacityFor(bytes: number): number {
  let capacity = 2 * MIN_UNITS;
  while (capacity < bytes) capacity *= 2;
  return capacity;
}

/** A free buffer of `capacity`, or a new one, which the thread is told of before any job is written into it. */
function takeBuffer(capacity: number): Slot {
  if (large !== undefined && large.slot.capacity === capacity) {
    const { slot, timer } = large;
    clearTimeout(timer);
    large = undefined;
    return slot;
  }
  const kept = free.get(capacity)?.pop();
  if (kept !== undefined) {
    keptBytes -= capacity;
    return kept;
  }
  const buffer = new SharedArrayBuffer(DATA_AT + capacity);
  const { Buffer } = bufferModule as BufferModule;
  const slot = {
    buffer,
    id: nextId++,
    capacity,
    head: new Int32Array(buffer, 0, HEAD_WORDS),
    data: Buffer.from(buffer, DATA_AT, capacity),
    digest: Buffer.from(buffer, DIGEST_AT, 64),
  };
  tell({ id: slot.id, buffer: slot.buffer });
  return slot;
}

/** A buffer whose job is over: kept for the next job, or let go of, by the thread too. */
function giveBack(slot: Slot): void {
  const { capacity } = slot;
  let kept = free.get(capacity);
  if (kept === undefined) {
    kept = [];
    free.set(capacity, kept);
  }
  if (kept.length < KEEP_PER_CAPACITY && keptBytes + capacity <= KEEP_BYTES) {
    kept.push(slot);
    keptBytes += capacity;
  } else if (capacity > KEEP_BYTES / KEEP_PER_CAPACITY && (large === undefined || large.slot.capacity <= capacity)) {
    if (large !== undefined) {
      clearTimeout(large.timer);
      letGo(large.slot);
    }
    const timer = setTimeout(() => {
      if (large !== undefined) letGo(large.slot);
      large = undefined;
    }, LARGE_IDLE_MS);
    // The timer never keeps a process alive: one that exits drops the buffer with everything else.
    timer.unref?.();
    large = { slot, timer };
  } else letGo(slot);
}

/**
 * Lets go of a buffer: the thread is told, and woken to drop it (a sleeping thread would hold it until the next job),
 * once it has no job in it; then the collector takes it.
 */
function letGo(slot: Slot): void {
  tell({ id: slot.id });
  if (typeof thread === "object") ring(thread.control);
}

/** Wakes the thread: it takes what was sent to it, and does every pending job. */
function ring(control: Int32Array): void {
  Atomics.add(control, BELL, 1);
  if (Atomics.load(control, PARKED) === 1) Atomics.notify(control, BELL);
}

/** Whether a large free buffer is held now, for tests of its release. */
export function holdsLargeBuffer(): boolean {
  return large !== undefined;
}

/**
 * The job buffers the gate holds (free, and the large one) and those the thread holds (as of its last wake), for
 * tests that nothing let go of stays held: with no job under way, the two are the same.
 */
export function heldBuffers(): { gate: number; thread: number | undefined } {
  let gate = large === undefined ? 0 : 1;
  for (const kept of free.values()) gate += kept.length;
  return { gate, thread: typeof thread === "object" ? Atomics.load(thread.control, HELD) : undefined };
}

/** How many payloads have been handed to the helper thread in this process: what a caller checks it is used by. */
let handedOver = 0;

/** How many payloads have been handed to the helper thread so far. */
export function threadJobs(): number {
  return handedOver;
}

/** How many hashes the helper thread has given, for tests that it does the jobs it is handed, asleep or awake. */
let answered = 0;

/** How many of the jobs handed over the thread has answered (the rest were hashed on the caller's thread). */
export function threadAnswers(): number {
  return answered;
}

/** How many settled jobs the thread had screened free (`key-screen.ts`), for tests that the screen is used. */
let screenedFreeCount = 0;

/** How many jobs settled with their key screen answered free. */
export function screenedFreeJobs(): number {
  return screenedFreeCount;
}

/** A job for the thread: the buffer it is written into, its header, and the thread's control buffer. */
interface Job {
  control: Int32Array;
  slot: Slot;
  head: Int32Array;
}

/** The key screens the thread has been told of, by id. */
const told = new Set<number>();

/**
 * A buffer for a payload of `length` units (or bytes) of `kind`, taking `bytes` bytes, with its header written but
 * for the state; `undefined` when the payload is better hashed at once (too short, too long, or no thread ready).
 * A `screen` is run on it unless it is a text too long to encode whole.
 */
function jobFor(
  length: number,
  bytes: number,
  kind: typeof TEXT | typeof BYTES,
  screen: KeyScreen | undefined,
): Job | undefined {
  if (length < MIN_UNITS || length > MAX_UNITS) return undefined;
  const ready = readyThread();
  if (ready === undefined) return undefined;
  const slot = takeBuffer(capacityFor(bytes));
  const { head } = slot;
  head.fill(0, 1);
  head[2] = length;
  head[3] = kind;
  if (screen !== undefined && (kind === BYTES || length <= SCREEN_MAX_UNITS)) {
    // Told before the job that names it: the thread takes what was sent before it looks at its buffers.
    if (!told.has(screen.id)) {
      told.add(screen.id);
      tell({ screen });
    }
    head[6] = screen.id;
  }
  return { control: ready.control, slot, head };
}

/** A job handed to the thread, settled once: the thread's answer, or the caller's own hash of `fallback`. */
function pending({ control, slot, head }: Job, fallback: () => HashedText): PendingHash {
  // Pending only now, with the job written (the store orders every write before it), then the bell rung: a thread
  // that looked at its buffers before the store finds the bell changed and looks again.
  Atomics.store(head, 0, PENDING);
  ring(control);
  handedOver++;
  let settled: HashedText | undefined;
  // A dropped job's buffer is no longer its own: a settle after a drop hashes here.
  let dropped = false;
  // The screen's answer as the buffer held it when the job ended here (the buffer may then serve another job).
  let screened: boolean | undefined;
  const screenAnswer = () => head[6] !== 0 && Atomics.load(head, 7) === SCREEN_FREE;
  return {
    settle() {
      if (settled !== undefined) return settled;
      if (dropped) {
        settled = fallback();
        return settled;
      }
      // A job the thread has not begun (it is behind, or not running) is taken back and hashed here: waiting for
      // it would cost more. One it has begun is waited for.
      let state = Atomics.compareExchange(head, 0, PENDING, TAKEN_BACK);
      if (state === PENDING) state = TAKEN_BACK;
      else if (state === TAKEN) {
        try {
          Atomics.wait(head, 0, TAKEN, waitMs(head[2] as number));
        } catch {
          // A thread that may not block (a browser-like main thread with Node's modules) hashes itself instead.
        }
        state = Atomics.load(head, 0);
      }
      if (state === DONE) {
        const sha256 = slot.digest.toString("latin1");
        settled = { byteLength: head[1] as number, sha256, replacement: head[4] === 1, escapes: head[5] === 1 };
        answered++;
      } else settled = fallback();
      screened = screenAnswer();
      if (screened) screenedFreeCount++;
      // A buffer the thread may still write to (it did not answer in time) is let go of: it is the thread's until
      // that job is over, then the collector's.
      if (state !== TAKEN) giveBack(slot);
      else letGo(slot);
      return settled;
    },
    drop() {
      if (settled !== undefined || dropped) return;
      dropped = true;
      screened = false;
      const state = Atomics.compareExchange(head, 0, PENDING, TAKEN_BACK);
      // One the thread has begun is left to it, and its buffer let go of.
      if (state !== TAKEN) giveBack(slot);
      else letGo(slot);
    },
    screenedFree() {
      return screened ?? screenAnswer();
    },
  };
}

/**
 * A pending hash of `text`'s UTF-8 encoding, or `undefined` when it is better hashed at once (too short, too long,
 * or no thread ready). It settles to exactly what {@link hashTextNow} gives: the thread searches its encoding for
 * U+FFFD as that does, and a text the thread refuses (one with a lone surrogate) is hashed by {@link hashTextNow}.
 */
export function hashTextLater(text: string, screen?: KeyScreen): PendingHash | undefined {
  const job = jobFor(text.length, 2 * text.length, TEXT, screen);
  if (job === undefined) return undefined;
  job.slot.data.write(text, 0, "utf16le");
  return pending(job, () => hashTextNow(text) as HashedText);
}

/** A pending sha256 of `bytes`, or `undefined` when they are better hashed at once (see {@link hashTextLater}). */
export function hashBytesLater(bytes: Uint8Array, screen?: KeyScreen): PendingHash | undefined {
  const length = bytes.byteLength;
  const job = jobFor(length, length, BYTES, screen);
  if (job === undefined) return undefined;
  const copy = new Uint8Array(job.slot.buffer, DATA_AT, length);
  copy.set(bytes);
  // The copy, not the caller's array: the bytes hashed are the bytes received, whatever the caller does after.
  return pending(job, () => ({ byteLength: length, sha256: sha256HexNow(copy) as string, replacement: false }));
}
