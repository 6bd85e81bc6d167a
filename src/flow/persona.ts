/**
 * Who speaks a flow's `instructions` (screeners, persons, persona calls) when a
 * model is configured. The flow caller gives it the node's instructions, the
 * scenario's userdata and the current node's conversation so far; it returns what
 * the far end says next (empty: nothing).
 *
 * @module
 */

export interface PersonaSpeaker {
  reply(input: {
    instructions: string;
    userdata?: Record<string, unknown>;
    /** The call's language (BCP 47), when the scenario gives one: the persona speaks it. */
    language?: string;
    history: { speaker: "agent" | "far_end"; text: string }[];
  }): Promise<string>;
}
