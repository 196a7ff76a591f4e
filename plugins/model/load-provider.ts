/**
 * Lazy loading of provider packages. Each package is imported the first time a model string
 * names it, never at `import "ubiquity"` (all of them together cost ~400 ms and ~110 MB). The
 * specifiers are literal so bundlers see them; a package that is not installed becomes an error
 * that names the package and the command that installs it.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ModelError } from "../../src/index";
import type { ProviderSpec } from "./providers";
import { isMissingModule } from "../_kits/lazy/index";

/** A provider package's module: its factory export, called with the provider settings. */
export type ProviderModule = Record<string, unknown>;

const LOADERS: Record<string, () => Promise<unknown>> = {
  "@ai-sdk/openai": () => import("@ai-sdk/openai"),
  "@ai-sdk/anthropic": () => import("@ai-sdk/anthropic"),
  "@ai-sdk/google": () => import("@ai-sdk/google"),
  "@ai-sdk/google-vertex": () => import("@ai-sdk/google-vertex"),
  "@ai-sdk/amazon-bedrock": () => import("@ai-sdk/amazon-bedrock"),
  "@ai-sdk/azure": () => import("@ai-sdk/azure"),
  "@ai-sdk/mistral": () => import("@ai-sdk/mistral"),
  "@ai-sdk/groq": () => import("@ai-sdk/groq"),
  "@ai-sdk/xai": () => import("@ai-sdk/xai"),
  "@ai-sdk/deepseek": () => import("@ai-sdk/deepseek"),
  "@ai-sdk/cohere": () => import("@ai-sdk/cohere"),
  "@ai-sdk/togetherai": () => import("@ai-sdk/togetherai"),
  "@ai-sdk/fireworks": () => import("@ai-sdk/fireworks"),
  "@ai-sdk/cerebras": () => import("@ai-sdk/cerebras"),
  "@ai-sdk/perplexity": () => import("@ai-sdk/perplexity"),
  "@ai-sdk/deepinfra": () => import("@ai-sdk/deepinfra"),
  "@ai-sdk/huggingface": () => import("@ai-sdk/huggingface"),
  "@ai-sdk/moonshotai": () => import("@ai-sdk/moonshotai"),
  "@ai-sdk/alibaba": () => import("@ai-sdk/alibaba"),
  "@ai-sdk/openai-compatible": () => import("@ai-sdk/openai-compatible"),
  "@ai-sdk/gateway": () => import("@ai-sdk/gateway"),
  "@openrouter/ai-sdk-provider": () => import("@openrouter/ai-sdk-provider"),
};

const cache = new Map<string, Promise<ProviderModule>>();

/** The install command for a provider package at its ai@7-compatible major. */
export function installHint(spec: Pick<ProviderSpec, "package" | "major">): string {
  return `npm i ${spec.package}@${spec.major}`;
}

const isMissing = isMissingModule;

/**
 * Import a provider package once. `load` is the importer (the table's literal import by default;
 * tests pass their own to exercise the missing-package path).
 */
export function loadProviderModule(
  providerName: string,
  spec: Pick<ProviderSpec, "package" | "major">,
  load: () => Promise<unknown> = LOADERS[spec.package] ?? (() => import(/* @vite-ignore */ spec.package)),
): Promise<ProviderModule> {
  let pending = cache.get(spec.package);
  if (!pending) {
    pending = load().then(
      (mod) => mod as ProviderModule,
      (error: unknown) => {
        cache.delete(spec.package);
        if (isMissing(error, spec.package)) {
          throw new ModelError(
            `provider "${providerName}" needs the package ${spec.package}, which is not installed: run \`${installHint(spec)}\``,
          );
        }
        throw error;
      },
    );
    cache.set(spec.package, pending);
  }
  return pending;
}

/** True when the package can be found from this module (walks node_modules upwards; imports nothing). */
export function isInstalled(pkg: string, from: string = dirname(fileURLToPath(import.meta.url))): boolean {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}
