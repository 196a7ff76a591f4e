/**
 * What a model accepts besides text. Only images so far: `supportsImages(label)` answers from the
 * families known to take image input, and `modelCapabilities` (an option of this plugin) says
 * otherwise for any label — a local vision model, a deployment whose name tells nothing
 * (`azure:my-deployment`), or a family this table does not know yet.
 */
import { readOption } from "../_kits/authoring/index";
import { modelOptions } from "./options";

/** What a model accepts, as `modelCapabilities` states it. */
export interface ModelCapability {
  /** True when the model takes image input (user images, images in tool results). */
  images?: boolean;
}

/**
 * Model ids of the families that take images. Matched on the id (after `provider:`), so the same
 * model behind a gateway (`openrouter:openai/gpt-4o`, `bedrock:anthropic.claude-3-5-sonnet-…`) is
 * known too. Text-only members of a family (o1-mini, o3-mini, gpt-3.5) are listed apart.
 */
const IMAGE_FAMILIES: RegExp[] = [
  /gpt-4o|gpt-4\.1|gpt-4\.5|gpt-4-turbo|gpt-4-vision|gpt-5/, // OpenAI
  /(^|[/.])o[1-9]/, // OpenAI o-series (o1, o3, o4-mini, …)
  /claude-(3|[a-z]+-[4-9])|claude-[4-9]/, // Anthropic Claude 3 and later
  /gemini|gemma-3/, // Google
  /grok-(4|2-vision|vision)/, // xAI
  /pixtral|mistral-(medium|small)-(latest|25|3)/, // Mistral
  /llama-?3\.2.*vision|llama-4|llava/, // Meta Llama vision
  /qwen.*-vl|qvq/, // Qwen vision
  /nova-(pro|lite|premier)/, // Amazon Nova
  /command-a-vision|aya-vision/, // Cohere
];
const TEXT_ONLY: RegExp[] = [/(^|[/.])o1-(mini|preview)|(^|[/.])o3-mini|gpt-3\.5|embedding/];

/** The entry of `capabilities` for `label`: an exact label first, else the longest `prefix*` pattern that matches. */
function capabilityOf(label: string, capabilities: Record<string, ModelCapability> = {}): ModelCapability | undefined {
  if (capabilities[label]) return capabilities[label];
  const patterns = Object.keys(capabilities).filter((k) => k.endsWith("*") && label.startsWith(k.slice(0, -1)));
  const longest = patterns.sort((a, b) => b.length - a.length)[0];
  return longest === undefined ? undefined : capabilities[longest];
}

/**
 * True when the model of `label` (`provider:model`) takes image input: `capabilities[label]`
 * (or a `provider:*`-style pattern) when it says, else the known families. The offline `test`
 * and scripted models take none unless `capabilities` says so.
 */
export function supportsImages(label: string, capabilities?: Record<string, ModelCapability>): boolean {
  const stated = capabilityOf(label, capabilities)?.images;
  if (stated !== undefined) return stated;
  const id = label.slice(label.indexOf(":") + 1).toLowerCase();
  if (label === "test" || TEXT_ONLY.some((p) => p.test(id))) return false;
  return IMAGE_FAMILIES.some((p) => p.test(id));
}

/** Whether the model of the run a tool is called in takes images (no run, as in a tool called by hand: no), and its label. */
export function runSeesImages(run: { modelLabel?: string | null; options: object } | undefined): {
  label: string;
  sees: boolean;
} {
  const label = run?.modelLabel ?? "unknown";
  return {
    label,
    sees: run?.modelLabel ? supportsImages(label, readOption(modelOptions, run.options, "modelCapabilities")) : false,
  };
}
