import type { Verdict } from "../score/verdict.ts";

/** What the reports read of a verdict (the transcript is not needed). */
export type ReportedVerdict = Omit<Verdict, "turns"> & { turns?: Verdict["turns"] };
