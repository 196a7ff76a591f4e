/**
 * Each repository job works in its own checkout, so runs of one prompt over many repositories
 * (or many runs over one) never share a working tree. The checkout's folder is named by the job,
 * under the worker's work folder: a worker on the same host (or sharing the folder) that takes a
 * lost run over continues in the files the first one left.
 */
import { execFile } from "node:child_process";
import { hostEnv } from "../_kits/process/index";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { promisify } from "node:util";
import { UbiquityError, redactText, urlPasswords } from "../../src/index";
import { isRemote } from "./remote-policy";

const exec = promisify(execFile);

/**
 * The transports a job's repository may use: never `ext::` (a command line) or `fd::`, whatever
 * the worker's git config allows (GIT_ALLOW_PROTOCOL overrides protocol.*.allow).
 */
const ALLOWED_PROTOCOLS = "file:git:http:https:ssh";

async function git(cwd: string, args: string[]): Promise<string> {
  const env = { ...hostEnv(), GIT_TERMINAL_PROMPT: "0", GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS };
  const { stdout } = await exec("git", args, { cwd, maxBuffer: 64 * 1024 * 1024, env });
  return stdout;
}

/** A remote or file:// URL as it is; anything else a local path (absolute, or relative to `base`), so git reads it as one. */
function source(repository: string, base: string): string {
  if (isRemote(repository) || /^file:\/\//i.test(repository)) return repository;
  return isAbsolute(repository) ? repository : resolve(base, repository);
}

/** Check `repository` at `ref` out into `dir` (kept when it is already there); returns `dir`. */
export async function checkout(
  repository: string,
  ref: string | undefined,
  dir: string,
  base = process.cwd(),
  { followRedirects = true } = {},
): Promise<string> {
  // Both come from the queue: an argument git would read as an option (--upload-pack=…, -c …) is refused.
  if (repository.startsWith("-"))
    throw new UbiquityError(`cannot check out ${JSON.stringify(repository)}: a repository may not start with "-"`);
  if (ref !== undefined && (ref.startsWith("-") || /[\0-\x1f\x7f]/.test(ref)))
    throw new UbiquityError(`cannot check out ${repository} at ${JSON.stringify(ref)}: not a ref`);
  if (existsSync(resolve(dir, ".git"))) return dir;
  mkdirSync(dirname(dir), { recursive: true });
  try {
    await git(dirname(dir), [
      ...(followRedirects ? [] : ["-c", "http.followRedirects=false"]),
      "clone",
      "--quiet",
      "--no-hardlinks",
      "--",
      source(repository, base),
      dir,
    ]);
    if (ref) await git(dir, ["checkout", "--quiet", "--detach", ref]);
    // The diff `fleet status` shows is against this commit.
    await git(dir, ["tag", "-f", "ubiquity-fleet-base", "HEAD"]);
  } catch (error) {
    // A repository URL may carry a token (https://x-access-token:…@host): never in the error.
    const message = `cannot check out ${repository}${ref ? ` at ${ref}` : ""} into ${dir}: ${(error as Error).message.trim()}`;
    throw new UbiquityError(redactText(message, urlPasswords(message)));
  }
  return dir;
}

/** What the run changed in a git working tree, or undefined outside one. */
export async function diffOf(dir: string): Promise<string | undefined> {
  try {
    const base = (await git(dir, ["rev-parse", "-q", "--verify", "ubiquity-fleet-base"]).catch(() => "")).trim();
    // In the fleet's own checkout, intent-to-add makes new files show in the diff; a folder of
    // the user's (a `cwd` job) keeps its index as it is, and shows changes to tracked files.
    if (base) await git(dir, ["add", "--intent-to-add", "--all"]);
    return await git(dir, ["diff", base || "HEAD"]);
  } catch {
    return undefined;
  }
}
