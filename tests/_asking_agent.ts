/**
 * A test agent for rebooking scenarios that asks before it acts, as a careful human
 * agent does: after the caller's first words it asks what they need, then searches,
 * offers every option found (flight number, departure and arrival time, total cost,
 * the gold one last), and books the option the caller names; one the caller does not
 * name is taken as the first offered. It knows the scenario's reference actions (the
 * search to run, the rebooking to make) but not which option the caller wants: only
 * the caller's words can lead it to gold.
 *
 * The total of each option is what `rebook_flight` would collect, computed on a private
 * copy of the world (the domain's own rule), so what the agent says is what it books.
 *
 * @module
 */
import type { CallEvent, CallLine, CallSetup, Participant } from "../src/bridge/call.ts";
import type { DataRoot } from "../src/scenario/data_root.ts";
import { openEnvironment } from "../src/scenario/open_environment.ts";
import type { ReferenceAction, Scenario } from "../src/scenario/scenario.ts";

/** What the agent heard in reply to each of its questions. */
export interface Heard {
  needs?: string;
  /** What it offered. */
  offer?: string;
  choice?: string;
}

interface Option {
  journey: string;
  flight: string;
  departs: string;
  arrives: string;
  stops: number;
  total: number;
}

/** Whether the asking agent can play `scenario`: it searches, then rebooks once. */
export function rebooks(scenario: Scenario): boolean {
  const names = (scenario.expect.reference_actions ?? []).map((a) => a.name);
  return names.includes("search_rebooking_options") &&
    names.filter((n) => n === "rebook_flight").length === 1;
}

export class AskingAgent implements Participant {
  readonly info = { kind: "asking-test-agent" };
  readonly heard: Heard = {};
  #line?: CallLine;
  #replies: ((text: string) => void)[] = [];
  #started = false;
  #over = false;

  constructor(readonly root: DataRoot, readonly scenario: Scenario, readonly seed: string) {}

  start(line: CallLine, _setup: CallSetup): Promise<void> {
    this.#line = line;
    return Promise.resolve();
  }

  onEvent(event: CallEvent): void {
    if (event.type === "hangup") {
      this.#over = true;
      return;
    }
    if (event.type === "call_start" && event.you_speak_first) {
      this.#line!.say("Thank you for calling. How can I help you today?");
    }
    if (event.type !== "speech" || event.kick) return;
    if (!this.#started) {
      this.#started = true;
      this.#play().catch((e) => this.#line!.hangUp(`asking agent failed: ${e}`));
      return;
    }
    this.#replies.shift()?.(event.text);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #ask(text: string): Promise<string> {
    const reply = new Promise<string>((resolve) => this.#replies.push(resolve));
    this.#line!.say(text);
    return reply;
  }

  async #play(): Promise<void> {
    const line = this.#line!;
    const actions = this.scenario.expect.reference_actions ?? [];
    this.heard.needs = await this.#ask(
      "I can help with that. What do you need from the new flight? Any preferences?",
    );
    const rebook = actions.findIndex((a) => a.name === "rebook_flight");
    const gold = String(actions[rebook]!.arguments.new_journey_id);
    // Everything before the rebooking as the reference does it (lookups, the search).
    let found: unknown;
    for (const a of actions.slice(0, rebook)) {
      const r = await line.callTool(a.name, a.arguments);
      if (a.name === "search_rebooking_options") found = r.result;
    }
    const options = await this.#price(found, actions, rebook, gold);
    const offer = options.map((o, i) =>
      `Option ${i + 1}: flight ${o.flight}, ${
        o.stops === 0 ? "nonstop" : `${o.stops} stop${o.stops === 1 ? "" : "s"}`
      }, leaves at ${o.departs} and arrives at ${o.arrives}, for a total of $${o.total}.`
    ).join(" ");
    this.heard.offer = `${offer} Which one would you like?`;
    this.heard.choice = await this.#ask(this.heard.offer);
    if (this.#over) return;
    const chosen = options.find((o) => this.heard.choice!.includes(o.flight)) ??
      options.find((o) => this.heard.choice!.includes(o.departs)) ??
      options[0]!;
    // The rebooking and what follows, onto the chosen journey.
    for (const a of actions.slice(rebook)) {
      await line.callTool(a.name, _swap(a.arguments, gold, chosen.journey));
    }
    await this.#ask("That is all done. Is there anything else I can help you with?");
    if (this.#over) return;
    line.say("Thank you for calling. Goodbye.");
    await line.callTool("end_conversation", {});
  }

  /** Each option found, with what rebooking onto it would collect; the gold one last. */
  async #price(
    found: unknown,
    actions: readonly ReferenceAction[],
    rebook: number,
    gold: string,
  ): Promise<Option[]> {
    const listed = ((found as { options?: unknown[] })?.options ?? []) as {
      journey_id: string;
      departure_time?: string;
      arrival_time?: string;
      num_stops?: number;
      segments?: { flight_number?: string }[];
    }[];
    const out: Option[] = [];
    for (const o of listed) {
      const { env } = await openEnvironment(this.root, this.scenario, this.seed);
      for (const a of actions.slice(0, rebook)) env.call("agent", a.name, a.arguments);
      const args = { ...actions[rebook]!.arguments, new_journey_id: o.journey_id };
      const r = env.call("agent", "rebook_flight", args);
      const total = (r.result as { cost_summary?: { total_collected?: number } })?.cost_summary
        ?.total_collected;
      if (!r.ok || typeof total !== "number" || !o.departure_time || !o.arrival_time) continue;
      out.push({
        journey: o.journey_id,
        flight: o.segments?.map((s) => s.flight_number).join("/") ?? o.journey_id,
        departs: _spoken(o.departure_time),
        arrives: _spoken(o.arrival_time),
        stops: o.num_stops ?? Math.max(0, (o.segments?.length ?? 1) - 1),
        total,
      });
    }
    out.sort((a, b) => Number(a.journey === gold) - Number(b.journey === gold));
    return out;
  }
}

/** `16:05` as `4:05 PM`. */
function _spoken(clock: string): string {
  const [h, m] = clock.split(":").map(Number);
  return `${((h! + 11) % 12) + 1}:${String(m).padStart(2, "0")} ${h! >= 12 ? "PM" : "AM"}`;
}

/** The arguments with every `from` string value replaced by `to`. */
function _swap(args: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(args), (_k, v) => (v === from ? to : v));
}
