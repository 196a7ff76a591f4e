/**
 * A folder's own files that can run code or change what the agent may do, found without
 * running or applying any of them — for the trust prompt and for the warning naming what an
 * untrusted folder's run skipped. The kernel lists the config files its search would load;
 * each plugin lists the files of its own that it would apply (`plugin.projectFiles`).
 */
import { statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { extname, join, relative, resolve, sep } from "node:path";
import { CONFIG_SEARCH_PLACES } from "./load";
import { configSearchFolders } from "./search";
import { readRegularFileSync } from "./safe-read";
import type { Plugin } from "../src/index";
import type { ProjectFile, ProjectPlace } from "./plugin-contract";

const SCRIPT = new Set([".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"]);
const MAX_PEEK_BYTES = 1024 * 1024;

/**
 * The project's own files under `cwd` (and between it and the config search's stop): the config
 * files, and what each plugin of `plugins` says it would apply there.
 */
export function findProjectFiles(cwd: string, home: string = homedir(), plugins: readonly Pick<Plugin, "projectFiles">[] = []): ProjectFile[] {
  const root = resolve(cwd);
  const homeDir = resolve(home);
  const inHome = (p: string) => p === join(homeDir, ".ubiquity") || p.startsWith(join(homeDir, ".ubiquity") + sep) || resolve(p, "..") === homeDir || resolve(p, "..") === join(homeDir, ".config");
  const out: ProjectFile[] = [];
  const folders = configSearchFolders(root, homeDir);
  for (const folder of folders) {
    for (const place of CONFIG_SEARCH_PLACES) {
      const file = join(folder, place);
      if (!pathExists(file)) continue;
      const effect = describeConfig(file, place === "package.json");
      if (effect) out.push({ path: file, kind: "config", effect });
    }
  }
  for (const plugin of plugins) out.push(...(plugin.projectFiles?.({ cwd: root, folders, home: homeDir }) ?? []));
  return out.filter((file) => !inHome(file.path));
}

/** `path` relative to `cwd` when inside it (`./x` never; just `x`), else absolute. */
export function displayPath(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !rel.startsWith(sep) ? rel : path;
}

/**
 * Text from an untrusted file, safe to show in the trust question: control characters (an
 * escape sequence could erase or rewrite the lines around it) become "?", and long values are cut.
 */
export function printable(text: unknown, max = 60): string {
  const flat = String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, "?");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** True when something exists at `path` (a file, a folder, anything `stat` sees). */
export function pathExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A regular JSON or YAML file's data (1 MiB at most), or undefined when it cannot be read or parsed. */
export function peekJsonOrYaml(file: string): unknown {
  const read = readRegularFileSync(file, MAX_PEEK_BYTES);
  if (!read.ok) return undefined;
  try {
    // yaml loads only when there is a YAML file to read (cold start).
    return extname(file) === ".json" || file.endsWith("package.json") ? JSON.parse(read.text) : (createRequire(import.meta.url)("yaml") as typeof import("yaml")).parse(read.text);
  } catch {
    return undefined;
  }
}

function describeConfig(file: string, isPackageJson: boolean): string | undefined {
  if (SCRIPT.has(extname(file))) return "runs as code";
  const data = peekJsonOrYaml(file);
  const config = isPackageJson ? (data as Record<string, unknown> | undefined)?.ubiquity : data;
  if (isPackageJson && config === undefined) return undefined;
  if (!config || typeof config !== "object") return "sets run options";
  // Plugins and presets first: they run as code. Then the rest, as many as fit.
  const keys = Object.keys(config).sort((a, b) => Number(isCode(b)) - Number(isCode(a)));
  const loads = keys.some(isCode) ? "; its plugins and presets run as code" : "";
  const shown = keys.slice(0, 8).map((k) => printable(k, 30));
  return keys.length ? `sets ${shown.join(", ")}${keys.length > shown.length ? ", …" : ""}${loads}` : "sets run options";
}

const isCode = (key: string) => key === "plugins" || key === "presets";
