/**
 * WAV files of PCM16 audio: a writer (mono or stereo, the canonical 44-byte header)
 * and a reader that walks the RIFF chunks, for tests, flite's output and providers
 * that answer in WAV. Reading returns problems as data; `writeWavFile` reports a file
 * that cannot be written instead of throwing, so a recording never aborts a run.
 *
 * @example
 * ```ts
 * const bytes = encodeWav(pcm16(interleave(userSide, agentSide), 16000, 2));
 * const back = decodeWav(bytes); // { ok: true, audio }
 * await writeWavFile("out/audio/t1.wav", audio); // { ok: true } or { ok: false, message }
 * ```
 *
 * @module
 */
import { type AudioFormatProblem, type Pcm16, pcm16, pcm16BytesView } from "./pcm.ts";

/** A WAV file's bytes for PCM16 audio. */
export function encodeWav(audio: Pcm16): Uint8Array<ArrayBuffer> {
  const dataBytes = audio.samples.length * 2;
  const out = new Uint8Array(44 + dataBytes);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, "RIFF");
  v.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, audio.channels, true);
  v.setUint32(24, audio.sampleRate, true);
  v.setUint32(28, audio.sampleRate * audio.channels * 2, true);
  v.setUint16(32, audio.channels * 2, true);
  v.setUint16(34, 16, true);
  ascii(36, "data");
  v.setUint32(40, dataBytes, true);
  // The samples' own bytes on a little-endian host (one copy), not a call per sample.
  out.set(pcm16BytesView(audio.samples), 44);
  return out;
}

/** Reads a PCM16 WAV file (mono or stereo). Other encodings are a problem. */
export function decodeWav(bytes: Uint8Array): { ok: true; audio: Pcm16 } | AudioFormatProblem {
  const bad = (message: string): AudioFormatProblem => ({ ok: false, message });
  if (bytes.length < 12) return bad("Not a WAV file: too short");
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") return bad("Not a WAV file: no RIFF/WAVE header");
  let format: { channels: number; sampleRate: number; bits: number; code: number } | undefined;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const id = tag(at);
    const size = v.getUint32(at + 4, true);
    const body = at + 8;
    if (id === "fmt ") {
      if (size < 16 || body + 16 > bytes.length) return bad("WAV fmt chunk is too short");
      format = {
        code: v.getUint16(body, true),
        channels: v.getUint16(body + 2, true),
        sampleRate: v.getUint32(body + 4, true),
        bits: v.getUint16(body + 14, true),
      };
      // WAVE_FORMAT_EXTENSIBLE: the real format code starts the sub-format GUID.
      if (format.code === 0xfffe && size >= 40) format.code = v.getUint16(body + 24, true);
    } else if (id === "data") {
      if (!format) return bad("WAV data chunk comes before its fmt chunk");
      if (format.code !== 1 || format.bits !== 16) {
        return bad(`WAV is not PCM16 (format ${format.code}, ${format.bits} bits)`);
      }
      if (format.channels !== 1 && format.channels !== 2) {
        return bad(`WAV has ${format.channels} channels; only mono and stereo are read`);
      }
      if (format.sampleRate <= 0) return bad("WAV sample rate is 0");
      // Streamed WAVs may say 0 or 0xffffffff: take what is there.
      const end = size === 0 || size === 0xffffffff
        ? bytes.length
        : Math.min(bytes.length, body + size);
      let len = end - body;
      len -= len % (2 * format.channels);
      const samples = new Int16Array(len / 2);
      for (let i = 0; i < samples.length; i++) samples[i] = v.getInt16(body + i * 2, true);
      return { ok: true, audio: pcm16(samples, format.sampleRate, format.channels as 1 | 2) };
    }
    at = body + size + (size % 2);
  }
  return bad("WAV has no data chunk");
}

/** Writes a WAV file; a failure (no permission, no such folder) is returned, not thrown. */
export async function writeWavFile(
  path: string | URL,
  audio: Pcm16,
): Promise<{ ok: true } | AudioFormatProblem> {
  try {
    await Deno.writeFile(path, encodeWav(audio));
    return { ok: true };
  } catch (e) {
    return { ok: false, message: `Cannot write WAV ${String(path)}: ${(e as Error).message}` };
  }
}
