export interface PersonaSpeaker {
  reply(input: {
    instructions: string;
    userdata?: Record<string, unknown>;
    history: { speaker: "agent" | "far_end"; text: string }[];
  }): Promise<string>;
}
