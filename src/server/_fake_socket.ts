/**
 * Test helpers: a socket that records what a session sends, decoded back into RTVI
 * messages, and a small domain to load worlds into sessions.
 *
 * @module
 */
import { z } from "zod";
import type { Domain } from "../domains/domain.ts";
import { readFrame } from "../protocol/framing.ts";
import { parseMessage, type RtviMessage } from "../protocol/messages.ts";
import { decodePipecatFrame, type PipecatAudioFrame } from "../protocol/protobuf.ts";
import type { SessionSocket } from "./session.ts";

export class FakeSocket implements SessionSocket {
  readonly frames: (string | Uint8Array)[] = [];
  closedWith?: { code?: number; reason?: string };
  /** Keep only a count (long fuzz runs). */
  countOnly = false;
  count = 0;

  send(data: string | Uint8Array): void {
    this.count++;
    if (!this.countOnly) this.frames.push(data);
  }

  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
  }

  /** Every message sent so far, decoded (audio frames left out: see `audio`). */
  messages(): RtviMessage[] {
    return this.frames.flatMap((f) => {
      const frame = readFrame(f);
      if (frame.ok && "skipped" in frame && frame.skipped === "audio") return [];
      if (!frame.ok || !("text" in frame)) throw new Error(`undecodable frame from the session`);
      const parsed = parseMessage(frame.text);
      if (!parsed.ok || !parsed.message) throw new Error(`not an RTVI message: ${frame.text}`);
      return [parsed.message];
    });
  }

  /** The pipecat AudioRawFrames sent so far, decoded. */
  audio(): PipecatAudioFrame[] {
    return this.frames.flatMap((f) => {
      if (typeof f === "string") return [];
      const r = decodePipecatFrame(f);
      return r.ok && r.frame.kind === "audio" ? [r.frame] : [];
    });
  }

  /** Messages sent since the last call. */
  take(): RtviMessage[] {
    const out = this.messages();
    this.frames.length = 0;
    return out;
  }
}

/** A toy world: one agent-side colour, a write tool, a read tool, an exit tool. */
export const TOY_DOMAIN: Domain = {
  id: "toy",
  tools: [
    {
      name: "set_color",
      aliases: ["SetColorTool"],
      side: "agent",
      kind: "write",
      description: "Paint the house.",
      args: z.object({ color: z.string() }).strict(),
      run: (a: { color: string }, ctx) => {
        ctx.db.color = a.color;
        return {
          ok: true,
          result: { color: a.color },
          record: { action_type: "set_color", name: "set_color", arguments: a },
        };
      },
    },
    {
      name: "get_color",
      side: "agent",
      kind: "read",
      description: "The colour of the house.",
      args: z.object({}).strict(),
      run: (_a, ctx) => ({ ok: true, result: { color: ctx.db.color ?? null } }),
    },
    {
      name: "end_conversation",
      side: "agent",
      kind: "system",
      description: "End the call.",
      args: z.object({}).strict(),
      run: () => ({
        ok: true,
        result: { success: true },
        exit: "<exit>The task is finished.</exit>",
      }),
    },
    {
      name: "toggle_wifi",
      side: "user",
      kind: "write",
      description: "Toggle the phone's wifi.",
      args: z.object({}).strict(),
      run: (_a, ctx) => {
        ctx.db.wifi = !ctx.db.wifi;
        return { ok: true, result: { wifi: ctx.db.wifi }, record: { action_type: "toggle_wifi" } };
      },
    },
  ],
  validationError: (_tool, error) => ({
    status: "error",
    error_type: "validation_error",
    message: error.issues.map((i) => i.message).join("; "),
  }),
  initFunctions: {
    agent: {
      paint: (db, args) => {
        db.color = args.color;
      },
    },
    user: {},
  },
};

export function toyDomains(id: string): Promise<Domain> {
  if (id === "toy") return Promise.resolve(TOY_DOMAIN);
  return Promise.reject(new Error(`unknown domain "${id}"`));
}
