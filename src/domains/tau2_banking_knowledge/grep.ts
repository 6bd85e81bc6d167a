/**
 * The reference's grep retriever: a regular expression (case-insensitive by
 * default) counted over each document's content; documents with a match ranked by
 * count, ties in document order. A pattern that does not compile is searched for
 * literally, as the reference falls back to `re.escape`.
 *
 * Python's and JavaScript's expressions agree on what agents write (words,
 * alternations, classes, quantifiers, anchors); Python's named groups are
 * translated. Where they differ the pattern compiles in one and not the other, and
 * then is searched for literally here.
 *
 * @module
 */

export interface GrepHit {
  index: number;
  count: number;
}

/** Documents matching `pattern`, best first, at most `topK`. */
export function grepRank(
  contents: readonly string[],
  pattern: string,
  topK: number,
  caseSensitive = false,
): GrepHit[] {
  if (pattern.trim() === "") return [];
  const re = compile(pattern, caseSensitive);
  const hits: GrepHit[] = [];
  contents.forEach((content, index) => {
    re.lastIndex = 0;
    let count = 0;
    for (const _ of content.matchAll(re)) count++;
    if (count > 0) hits.push({ index, count });
  });
  // Stable: equal counts keep document order, as Python's sort does.
  hits.sort((a, b) => b.count - a.count);
  return hits.slice(0, topK);
}

function compile(pattern: string, caseSensitive: boolean): RegExp {
  const flags = caseSensitive ? "g" : "gi";
  const translated = pattern.replace(/\(\?P</g, "(?<").replace(/\(\?P=(\w+)\)/g, "\\k<$1>");
  try {
    return new RegExp(translated, flags);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\\-/]/g, "\\$&"), flags);
  }
}
