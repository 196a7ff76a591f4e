/**
 * The environment a subprocess starts with. Bash, command hooks and stdio MCP servers all build
 * their child's environment here, so the three never disagree about what is scrubbed; the
 * credential predicate is the kernel's (`isCredentialName`, `urlPasswords`), the one redaction
 * masks with. Pure functions: the caller passes the parent environment (a sandbox wrapper can
 * take the result as it is).
 */
import { isCredentialName, urlPasswords, type SubprocessEnvMode } from "../../../src/index";

/** Variables that configure ubiquity itself (UBIQUITY_MODEL, UBIQUITY_TRUST): a nested run must not inherit them. */
const OWN = /^UBIQUITY_/;
/**
 * True when a variable is a credential: by its name, or because its value is a URL carrying a
 * password (DATABASE_URL=postgres://app:pw@db, HTTPS_PROXY=http://me:pw@proxy).
 */
export function isCredentialVariable(name: string, value?: string): boolean {
  return isCredentialName(name) || (value !== undefined && urlPasswords(value).length > 0);
}

/** True when a subprocess does not get this variable from its parent (unless `env` names it). */
export function isScrubbedVariable(name: string, value?: string): boolean {
  return OWN.test(name.toUpperCase()) || isCredentialVariable(name, value);
}

/** The run options that shape a subprocess's environment. */
export interface SubprocessEnvOptions {
  /** Variables every subprocess gets; they win over the parent's and are never scrubbed. */
  env?: Readonly<Record<string, string>>;
  /** ["scrubbed"] */
  subprocessEnv?: SubprocessEnvMode;
}

/**
 * The environment a subprocess starts with: the parent's variables (process.env, or the MCP
 * SDK's short safe list) minus credentials and UBIQUITY_* unless `subprocessEnv` is "inherit",
 * then `options.env`, then `add` (a server's own `env`, a hook's project-dir variables).
 */
export function buildSubprocessEnv(
  options: SubprocessEnvOptions,
  { parent = process.env, add = [] }: { parent?: Readonly<Record<string, string | undefined>>; add?: readonly (Readonly<Record<string, string>> | undefined)[] } = {},
): Record<string, string> {
  const inherit = options.subprocessEnv === "inherit";
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (!inherit && isScrubbedVariable(name, value)) continue;
    out[name] = value;
  }
  for (const layer of [options.env, ...add]) if (layer) Object.assign(out, layer);
  return out;
}
