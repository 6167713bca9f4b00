/**
 * What a media block's bytes are, read from their first bytes (the file signature every decoder checks first), so a
 * media type is never taken on the server's word alone: an SVG, an HTML page or an executable declared `image/png`
 * does not begin as a PNG does, and is refused.
 *
 * Only the first {@link HEAD_BYTES} bytes are decoded, whatever the block's size. A type with no signature here (an
 * SVG, which is text that may carry script) has nothing to check its bytes by: the caller admits it only when the
 * contract names it exactly, never through a wildcard such as `image/*`.
 */

/** Bytes decoded from the start of the data: enough for the longest signature below (RIFF and ISO BMFF brands). */
const HEAD_BYTES = 12;

/** Whether `head` starts with `ascii` at `offset`. */
function at(head: Uint8Array, offset: number, ascii: string): boolean {
  if (head.length < offset + ascii.length) return false;
  for (let i = 0; i < ascii.length; i++) if (head[offset + i] !== ascii.charCodeAt(i)) return false;
  return true;
}

/** Whether `head` starts with the bytes `bytes`. */
function startsWith(head: Uint8Array, bytes: readonly number[]): boolean {
  return head.length >= bytes.length && bytes.every((byte, i) => head[i] === byte);
}

/** An ISO base media file (`....ftyp<brand>`) of one of `brands`: AVIF, HEIF, MP4 audio. */
function isoBrand(head: Uint8Array, brands: readonly string[]): boolean {
  return at(head, 4, "ftyp") && brands.some((brand) => at(head, 8, brand));
}

/** An MPEG audio frame header: eleven set sync bits, and a layer that is not the reserved `00`. */
function mpegFrame(head: Uint8Array): boolean {
  return (
    head.length >= 2 && head[0] === 0xff && ((head[1] as number) & 0xe0) === 0xe0 && ((head[1] as number) & 0x06) !== 0
  );
}

const PNG = (h: Uint8Array) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = (h: Uint8Array) => startsWith(h, [0xff, 0xd8, 0xff]);
const WAV = (h: Uint8Array) => at(h, 0, "RIFF") && at(h, 8, "WAVE");
const MP3 = (h: Uint8Array) => at(h, 0, "ID3") || mpegFrame(h);
const OGG = (h: Uint8Array) => at(h, 0, "OggS");
const FLAC = (h: Uint8Array) => at(h, 0, "fLaC");
const AAC = (h: Uint8Array) =>
  at(h, 0, "ADIF") || (h.length >= 2 && h[0] === 0xff && ((h[1] as number) & 0xf6) === 0xf0);
const MP4_AUDIO = (h: Uint8Array) => isoBrand(h, ["M4A ", "M4B ", "mp41", "mp42", "isom", "dash"]);
const WEBM = (h: Uint8Array) => startsWith(h, [0x1a, 0x45, 0xdf, 0xa3]);
const AIFF = (h: Uint8Array) => at(h, 0, "FORM") && (at(h, 8, "AIFF") || at(h, 8, "AIFC"));
const BMP = (h: Uint8Array) => at(h, 0, "BM");
const ICO = (h: Uint8Array) => startsWith(h, [0x00, 0x00, 0x01, 0x00]);

/** The signature of each media type toolgate can check, by the type's essence (aliases included). */
const SIGNATURES: Readonly<Record<string, (head: Uint8Array) => boolean>> = {
  "image/png": PNG,
  "image/apng": PNG,
  "image/jpeg": JPEG,
  "image/jpg": JPEG,
  "image/pjpeg": JPEG,
  "image/gif": (h) => at(h, 0, "GIF87a") || at(h, 0, "GIF89a"),
  "image/webp": (h) => at(h, 0, "RIFF") && at(h, 8, "WEBP"),
  "image/bmp": BMP,
  "image/x-ms-bmp": BMP,
  "image/tiff": (h) => startsWith(h, [0x49, 0x49, 0x2a, 0x00]) || startsWith(h, [0x4d, 0x4d, 0x00, 0x2a]),
  "image/x-icon": ICO,
  "image/vnd.microsoft.icon": ICO,
  "image/avif": (h) => isoBrand(h, ["avif", "avis"]),
  "image/heic": (h) => isoBrand(h, ["heic", "heix", "heim", "heis", "mif1", "msf1"]),
  "image/heif": (h) => isoBrand(h, ["heic", "heix", "heim", "heis", "mif1", "msf1"]),
  "audio/wav": WAV,
  "audio/wave": WAV,
  "audio/x-wav": WAV,
  "audio/vnd.wave": WAV,
  "audio/mpeg": MP3,
  "audio/mp3": MP3,
  "audio/ogg": OGG,
  "audio/opus": OGG,
  "audio/vorbis": OGG,
  "audio/flac": FLAC,
  "audio/x-flac": FLAC,
  "audio/aac": AAC,
  "audio/mp4": MP4_AUDIO,
  "audio/m4a": MP4_AUDIO,
  "audio/x-m4a": MP4_AUDIO,
  "audio/webm": WEBM,
  "audio/aiff": AIFF,
  "audio/x-aiff": AIFF,
  "audio/midi": (h) => at(h, 0, "MThd"),
  "audio/x-midi": (h) => at(h, 0, "MThd"),
};

/** The value of one base64 digit (already checked to be one). */
function digit(unit: number): number {
  if (unit >= 0x41 && unit <= 0x5a) return unit - 0x41;
  if (unit >= 0x61 && unit <= 0x7a) return unit - 0x61 + 26;
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30 + 52;
  return unit === 0x2b ? 62 : 63;
}

/** The first {@link HEAD_BYTES} bytes of strict base64 `data` (fewer when the data is shorter). */
export function headBytes(data: string): Uint8Array {
  const head: number[] = [];
  for (let i = 0; i + 4 <= data.length && head.length < HEAD_BYTES; i += 4) {
    const padding = data.charCodeAt(i + 3) === 0x3d ? (data.charCodeAt(i + 2) === 0x3d ? 2 : 1) : 0;
    let group = 0;
    for (let j = 0; j < 4; j++) {
      const unit = data.charCodeAt(i + j);
      group = (group << 6) | (unit === 0x3d ? 0 : digit(unit));
    }
    head.push((group >> 16) & 0xff);
    if (padding < 2) head.push((group >> 8) & 0xff);
    if (padding < 1) head.push(group & 0xff);
  }
  return Uint8Array.from(head.slice(0, HEAD_BYTES));
}

/**
 * Whether strict base64 `data` begins as media of `type` (an essence, `image/png`) begins: `true` or `false` for a
 * type with a known signature, `undefined` for one without.
 */
export function matchesSignature(type: string, data: string): boolean | undefined {
  const signature = SIGNATURES[type];
  return signature === undefined ? undefined : signature(headBytes(data));
}
