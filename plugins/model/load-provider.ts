/**
 * Lazy loading of provider packages. Each package is imported the first time a model string
 * names it, never at `import "ubiquity"` (all of them together cost ~400 ms and ~110 MB). The
 * specifiers are literal so bundlers see them; a package that is not installed becomes an error
 * that names the package and the command that installs it.
 */
import { existsSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
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

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Where this copy of ubiquity is installed, which decides where a provider package must go: npm's
 * global folder (`<prefix>/lib/node_modules/ubiquity`, with `<prefix>/bin/ubiquity` beside it; on
 * Windows `<prefix>/node_modules/ubiquity`), npx's cache, or a project. A package installed in the
 * project is not found by a global ubiquity (Node looks beside ubiquity, never in the cwd).
 */
export function installPlace(from: string = here): { kind: "global"; prefix: string } | { kind: "npx" | "project" } {
  const marker = `${sep}node_modules${sep}ubiquity`;
  const at = from.lastIndexOf(marker);
  if (at < 0 || (from.length > at + marker.length && from[at + marker.length] !== sep)) return { kind: "project" };
  const root = from.slice(0, at);
  if (root.includes(`${sep}_npx${sep}`)) return { kind: "npx" };
  const prefix = process.platform === "win32" ? root : basename(root) === "lib" ? dirname(root) : undefined;
  const bin = process.platform === "win32" ? join(root, "ubiquity.cmd") : join(prefix ?? root, "bin", "ubiquity");
  return prefix !== undefined && existsSync(bin) ? { kind: "global", prefix } : { kind: "project" };
}

/**
 * The install command for a provider package at its ai@7-compatible major, where this ubiquity
 * finds it: beside a global install (`npm i -g … --prefix <its prefix>`), with npx's `-p`, or
 * in the project.
 */
export function installHint(spec: Pick<ProviderSpec, "package" | "major">, from: string = here): string {
  const pkg = `${spec.package}@${spec.major}`;
  const place = installPlace(from);
  if (place.kind === "global") return `npm i -g ${pkg} --prefix ${shellWord(place.prefix) ?? "<prefix>"}`;
  if (place.kind === "npx") return `npx -p ubiquity -p ${pkg} ubiquity …`;
  return `npm i ${pkg}`;
}

/**
 * A folder as one word of the command a user pastes into a shell (red team zv, ZV2): a prefix with a
 * space (`C:\\Users\\Jane Doe\\AppData\\Roaming\\npm`) split into two arguments, and one with `;`,
 * `$(…)` or a backquote ran a command of its name. Plain characters stay bare; on POSIX anything
 * else printable is single-quoted; on Windows double quotes hold what cmd and PowerShell leave
 * alone there (not `"`, `%`, `!`, `$`, a backquote). What cannot be quoted so (a line break, a
 * control character) gives undefined: no command is printed with it.
 */
export function shellWord(text: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (CONTROL.test(text)) return undefined;
  // Letters, digits and `@+:,./_-`, not led by `-`: no shell reads them (no `~` or `=` to expand).
  if (/^[\w@+:,./][\w@+:,./-]*$/.test(text)) return text;
  if (platform === "win32") return /["%!$`]/.test(text) ? undefined : `"${text}"`;
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** A line break or another control character (C0, DEL, C1, the Unicode line separators). */
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029]/;

/** Why the install command is not a plain `npm i` (nothing for a project's ubiquity). */
function installWhere(from: string = here): string {
  const place = installPlace(from);
  if (place.kind === "global")
    return ` (ubiquity is installed globally, in ${CONTROL.test(place.prefix) ? JSON.stringify(place.prefix) : place.prefix}: it finds a provider package installed beside it, not one in the project)`;
  if (place.kind === "npx") return " (npx runs ubiquity from its cache, which finds only the packages named with -p)";
  return "";
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
            `provider "${providerName}" needs the package ${spec.package}, which is not installed: run \`${installHint(spec)}\`${installWhere()}`,
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
export function isInstalled(pkg: string, from: string = here): boolean {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}
