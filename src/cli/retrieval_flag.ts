/**
 * `--retrieval V` and `--embeddings-url URL`: the banking retrieval variant and, for
 * a dense one, its embeddings endpoint, checked and put in use before scenarios load.
 */
import {
  DEFAULT_VARIANT,
  resolveVariant,
  useEmbeddingsUrl,
  useRetrievalVariant,
  VARIANT_NAMES,
} from "../domains/tau2_banking_knowledge/mod.ts";
import { InputError } from "./problem.ts";

/**
 * What the config hash records: the variant's canonical name unless it is the default
 * (the same configuration as no flag), and the endpoint of a dense one.
 */
export function retrievalFromFlags(
  values: { retrieval?: string; "embeddings-url"?: string },
): { variant?: string; embeddings_url?: string } | undefined {
  const value = values.retrieval;
  const url = values["embeddings-url"];
  if (value === undefined) {
    if (url !== undefined) {
      throw new InputError({
        field: "--embeddings-url",
        message: "needs a dense --retrieval variant",
      });
    }
    return undefined;
  }
  let variant;
  try {
    variant = resolveVariant(value);
  } catch {
    throw new InputError({
      field: "--retrieval",
      message: `unknown retrieval variant "${value}"`,
      hint: `one of ${VARIANT_NAMES.join(", ")}`,
    });
  }
  if (variant.dense && url === undefined) {
    throw new InputError({
      field: "--retrieval",
      message: `${variant.name} embeds with an OpenAI-compatible endpoint`,
      hint: "name it with --embeddings-url URL",
    });
  }
  if (!variant.dense && url !== undefined) {
    throw new InputError({ field: "--embeddings-url", message: `${variant.name} embeds nothing` });
  }
  if (url !== undefined && !/^https?:\/\/\S+$/.test(url)) {
    throw new InputError({ field: "--embeddings-url", message: "expected an http(s) URL" });
  }
  useRetrievalVariant(variant.name);
  useEmbeddingsUrl(url);
  if (variant.name === DEFAULT_VARIANT) return undefined;
  return { variant: variant.name, ...(url !== undefined ? { embeddings_url: url } : {}) };
}
