/** Encoding names, apart from the encoders so that option tables can list them without loading every encoder. */

/** The encodings Cubist knows, by name. */
export const encodingNames = ["heule-compact", "heule-fbcolors", "heule-explicit", "heule-all", "cubist-placement"] as const;
export type EncodingName = (typeof encodingNames)[number];

/** The default encoding: Cubist's own, measured faster than heule-all under Kissat (BENCHMARKS.md). */
export const DEFAULT_ENCODING: EncodingName = "cubist-placement";

/** True when `name` is a known encoding name. */
export function isEncodingName(name: string): name is EncodingName {
  return (encodingNames as readonly string[]).includes(name);
}

