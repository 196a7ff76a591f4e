/**
 * What a stdio server's or a command hook's program loads from the folder it starts in, noted before it starts so the
 * sandbox keeps it out of a sandboxed command's reach and the permission engine asks about a write
 * there (loader/run-config-files.ts). `npx -y @acme/server` runs `node_modules/@acme/server` when a
 * `node_modules` in that folder or one above holds it, installed or not: a command without network
 * could plant one there, and the next start ran it as the server, with the server's network.
 *
 * Fail closed: a runner's package named in a way this does not read (an option it does not know),
 * a package manager running a script (`npm run`, `yarn start`: package.json names what runs) and a
 * JavaScript runtime running a file (whose imports resolve there) protect every `node_modules`
 * found from the folder up, not just one package.
 */
import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import {
  isScriptFile,
  rememberConfiguredCode,
  rememberConfiguredPackage,
  rememberEnvironmentPaths,
} from "../../../loader/index";

/** Programs that run a package by name: the words before the package that name the subcommand. */
const RUNNERS: Record<string, readonly string[]> = {
  npx: [],
  pnpx: [],
  bunx: [],
  npm: ["exec", "x"],
  pnpm: ["dlx", "exec"],
  yarn: ["dlx", "exec"],
  bun: ["x"],
};
/** JavaScript runtimes: a file they run imports from `node_modules`. */
const RUNTIMES = new Set(["node", "nodejs", "tsx", "ts-node", "deno", "bun"]);
/** Options of the runners that take no value (`-y`), and those that name the package (`-p x`). */
const FLAGS = new Set(["-y", "--yes", "--no", "-q", "--quiet", "--silent", "-s", "--prefer-offline", "--offline"]);
const PACKAGE_OPTIONS = new Set(["-p", "--package"]);

/** A package spec's name: `@acme/server@1.2.0` → `@acme/server`, `server@latest` → `server`; undefined when it is a path or URL. */
function packageName(spec: string): string | undefined {
  if (/^[./~]|:/.test(spec)) return undefined;
  const at = spec.indexOf("@", spec.startsWith("@") ? 1 : 0);
  const name = at > 0 ? spec.slice(0, at) : spec;
  return /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name) ? name : undefined;
}

/**
 * The packages `command args` runs by name, `[]` when it runs none from `node_modules`, or
 * undefined when whatever it loads from there cannot be named (every `node_modules` counts).
 */
export function runnerPackages(command: string, args: readonly string[]): string[] | undefined {
  const program = basename(command);
  const sub = RUNNERS[program];
  if (!sub) return otherProgram(command, args);
  let rest = [...args];
  if (sub.length > 0) {
    if (!sub.includes(rest[0] ?? "")) return undefined; // `npm run x`, `yarn start`: a script of package.json
    rest = rest.slice(1);
  }
  const named: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word === "--") {
      i++;
      const name = packageName(rest[i] ?? "");
      return name && named.length === 0 ? [name] : named.length > 0 ? named : undefined;
    }
    if (FLAGS.has(word)) continue;
    const [option, value] = word.startsWith("--") ? word.split(/=(.*)/s) : [word, undefined];
    if (PACKAGE_OPTIONS.has(option!)) {
      const name = packageName(value ?? rest[++i] ?? "");
      if (!name) return undefined;
      named.push(name);
      continue;
    }
    if (word.startsWith("-")) return undefined;
    // The first word that is no option: the package (or, after `-p`, the program it provides).
    if (named.length > 0) return named;
    const name = packageName(word);
    return name ? [name] : undefined;
  }
  return named.length > 0 ? named : undefined;
}

/**
 * What a program that is no runner loads from `node_modules`: nothing only for a program found on
 * PATH by its bare name (`uvx`, `python3`, `docker`) whose words name no runner or runtime.
 * Fail closed (red team o, O4): a runtime runs a file whose imports resolve there; a wrapper runs
 * a runner all the same (`env npx -y pkg`, `sh -c "npx -y pkg"`, `nice`, `timeout`); and a
 * program given by its path (`./node_modules/.bin/server`, `bin/server.js`) is a file whose
 * imports resolve there too, or the package itself.
 */
function otherProgram(command: string, args: readonly string[]): string[] | undefined {
  if (RUNTIMES.has(basename(command)) || command.includes("/")) return undefined;
  const names = new Set(Object.keys(RUNNERS).concat([...RUNTIMES]));
  const words = args.flatMap((arg) => arg.split(/[\s;&|()`'"=]+/));
  return words.some((word) => names.has(basename(word)) || word.includes("node_modules")) ? undefined : [];
}

/**
 * Note what a stdio server started as `command args` in `cwd` loads from `node_modules` there or
 * above, and the paths in `cwd` its environment names (`NODE_OPTIONS: "--require ./x.cjs"`,
 * `PYTHONPATH: "lib"`: red team p, P2).
 */
export function noteServerPackages(
  command: string,
  args: readonly string[],
  cwd: string,
  env?: Readonly<Record<string, string>>,
): void {
  rememberEnvironmentPaths(env, cwd);
  for (const file of namedScripts(command, args, cwd)) rememberConfiguredCode(file);
  const names = runnerPackages(command, args);
  if (names === undefined) {
    rememberConfiguredPackage("", cwd);
    // A package manager running a script: package.json says which.
    if (RUNNERS[basename(command)]) rememberConfiguredCode(`${cwd}/package.json`);
  } else for (const name of names) rememberConfiguredPackage(name, cwd);
}

/**
 * The scripts a server's command line names (its program given by path, `python3 tools/server.py`,
 * `sh run.sh`, `--entry=lib/main.mjs`): existing files in `cwd` with a script's name or an
 * execute bit. They run at the server's next start, with the server's network (all, by default):
 * a sandboxed command without the network rewrote `tools/srv.py`, and it would run as the server
 * (red team zt, ZT3), while a hook's script (`sh scripts/guard.sh`) was read-only already. A data
 * file an argument names (`--db data.sqlite`) is no script: the server may write it.
 */
function namedScripts(command: string, args: readonly string[], cwd: string): string[] {
  const words = [
    command,
    ...args.flatMap((a) => (a.startsWith("-") && a.includes("=") ? [a.slice(a.indexOf("=") + 1)] : [a])),
  ];
  return (
    words
      .filter((w) => w !== "" && !w.startsWith("-") && (w.includes("/") || w.includes(".")))
      .map((w) => resolve(cwd, w))
      // In the server's folder, which sandboxed commands may write; not an installed package's file
      // (rememberConfiguredPackage keeps those, store links and all), nor the program's own
      // executable elsewhere (process.execPath), which no sandboxed command can write.
      .filter(
        (path) => path.startsWith(`${resolve(cwd)}/`) && !/\/node_modules\//.test(path.slice(resolve(cwd).length)),
      )
      .filter((path) => isFile(path) && isScriptFile(path))
  );
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false; // absent, or no path at all (too long, through a file)
  }
}

/**
 * `noteServerPackages` for a command hook's shell line: a plain line by its words (`npx -y
 * @acme/guard`), one with shell syntax as `sh -c LINE` (any runner or runtime a word names
 * protects every `node_modules`). A hook that ran a package by name ran what a sandboxed command
 * planted in it, and its answer approves calls (red team p, P5).
 */
export function noteCommandLinePackages(line: string, cwd: string, env?: Readonly<Record<string, string>>): void {
  const words = line.trim().split(/\s+/);
  if (/[;&|<>()$`\\'"]/.test(line) || words[0] === undefined || words[0] === "")
    noteServerPackages("sh", ["-c", line], cwd, env);
  else noteServerPackages(words[0], words.slice(1), cwd, env);
}
