/**
 * The banking knowledge base: the policy documents (`documents/*.json`, each
 * `{id, title, content}`) the agent searches. Documents are kept in file-name
 * order: the reference takes them in directory-listing order, which differs
 * between machines and decides only the order of equal scores.
 *
 * @module
 */
import { z } from "zod";

export const DocumentSchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  content: z.string(),
});

export type KbDocument = z.infer<typeof DocumentSchema>;

/** The documents in order, and each by id. */
export interface KnowledgeBase {
  readonly documents: readonly KbDocument[];
  readonly byId: ReadonlyMap<string, KbDocument>;
}

export function knowledgeBase(documents: readonly KbDocument[]): KnowledgeBase {
  // The reference keys documents by id: a later file of the same id wins.
  const byId = new Map<string, KbDocument>();
  for (const d of documents) byId.set(d.id, d);
  return { documents: [...byId.values()], byId };
}

/** Reads every `*.json` of a folder; a file that is not a document is an error naming it. */
export function loadKnowledgeBase(dir: string): KnowledgeBase {
  const names = [...Deno.readDirSync(dir)]
    .filter((e) => e.isFile && e.name.endsWith(".json"))
    .map((e) => e.name)
    .sort();
  const documents = names.map((name) => {
    const path = `${dir}/${name}`;
    const parsed = DocumentSchema.safeParse(JSON.parse(Deno.readTextFileSync(path)));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`${path}: ${issue.path.join(".") || "document"}: ${issue.message}`);
    }
    return parsed.data;
  });
  return knowledgeBase(documents);
}
