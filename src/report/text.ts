/**
 * Text made safe where it is shown: Markdown (names from the input, inert, in tables)
 * and HTML.
 *
 * @module
 */

/**
 * Text from the input (scenario names, labels, suites, models) made inert in Markdown:
 * HTML's `&`, `<`, `>` as entities (a viewer that allows HTML renders none of it) and
 * Markdown's emphasis, code, link and table characters escaped (an `_` inside a word,
 * as in `eva_airline__1_4_1`, emphasises nothing and is left as it is).
 */
export function markdownText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"))
    .replace(/[\\`*[\]~|]/g, (c) => `\\${c}`)
    .replace(/_+/g, (run, at: number, all: string) => {
      const word = /[\p{L}\p{N}]/u;
      const inside = word.test(all[at - 1] ?? "") && word.test(all[at + run.length] ?? "");
      return inside ? run : run.replace(/_/g, "\\_");
    });
}

/** Text made inert in HTML (element content and quoted attributes). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A Markdown table: cells with `|` escaped and line breaks flattened. */
export function markdownTable(header: string[], rows: string[][]): string[] {
  const cell = (s: string) => s.replace(/(?<!\\)\|/g, "\\|").replace(/\r?\n/g, " ");
  return [
    `| ${header.map(cell).join(" | ")} |`,
    `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ];
}
