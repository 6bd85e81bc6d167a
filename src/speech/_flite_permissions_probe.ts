/**
 * Run by `tts_flite_test.ts` in a child process with narrow permissions: synthesizes
 * one utterance through the Worker in the temp dir given as the first argument.
 *
 * @module
 */
import { FliteTts } from "./tts_flite.ts";

const tts = new FliteTts({ tempDir: Deno.args[0]! });
const r = await tts.synthesize({ text: "Checking permissions." });
await tts.close();
console.log(r.ok ? `ok ${r.audio.sampleRate} ${r.audio.samples.length}` : r.error.message);
