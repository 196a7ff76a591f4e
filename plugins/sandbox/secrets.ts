/**
 * What the sandbox makes unreadable: the sensitive set in the home folder (keys, cloud and
 * registry credentials, Ubiquity's own trust store and transcripts), `.env*` files and private
 * keys inside the permitted folders, the paths of `Read(...)` deny rules, and `denyRead`.
 * Worked out before the run's first sandboxed spawn and again before each later one whose sweep
 * saw the writable folders' names change (runtime.ts, #refreshSecrets); the system's folders once a
 * run. A file a sandboxed command creates is its own.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  writeFileSync,
  type Dirent,
} from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { LINE_BREAKS, micromatch, tinyglobby } from "../_kits/lazy/index";
import { compiledCacheDir } from "../../loader/index";
import { SecretWalk } from "./secret-walk";
import { findCandidates, findCandidatesAsync, systemFind } from "./system-find";
import { toolchainSettings } from "./toolchain-settings";

/** Home-relative paths that hold credentials. */
export const SENSITIVE_HOME = [
  ".ssh",
  ".aws",
  ".gnupg",
  ".azure",
  ".kube",
  ".docker",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".pypirc",
  ".pgpass",
  ".ubiquity",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".local/share/keyrings",
  // Inside folders HOME_READABLE keeps: tokens some tools leave beside their toolchain or cache.
  ".cache/huggingface/token",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".local/share/uv/credentials",
  ".hex/hex.config",
  ".cabal/config",
  ".julia/servers",
  ".config/git/credentials",
] as const;

/**
 * The folders of the user's cache folder (`~/.cache`) that stay readable: each a package, build or
 * toolchain cache that commands build and run from. Named, not the whole folder: credentials sit
 * there too (huggingface_hub's `token` and `stored_tokens`, snowflake's `credential_cache*`, other
 * tools' login caches), and one nobody named must not be readable.
 */
const HOME_CACHES = [
  "pip",
  "uv",
  "pypoetry",
  "pipenv",
  "pdm",
  "hatch",
  "pre-commit",
  "black",
  "mypy",
  "ruff",
  "go-build",
  "golangci-lint",
  "yarn",
  "pnpm",
  "node",
  "node-gyp",
  "typescript",
  "deno",
  "bun",
  "ms-playwright",
  "puppeteer",
  "Cypress",
  "selenium",
  "electron",
  "electron-builder",
  "prisma",
  "turbo",
  "bazel",
  "ccache",
  "sccache",
  "zig",
  "coursier",
  "mise",
  "nix",
  "fontconfig",
  "matplotlib",
  "torch",
  "huggingface/hub",
  "huggingface/datasets",
].map((name) => `.cache/${name}`);

/**
 * What stays readable of the home folder inside the sandbox; the rest of it is hidden (an empty,
 * read-only folder stands in for it). An allow-list, not a list of secrets: a credential file
 * nobody thought of — another agent's `auth.json`, a vault token, shell history — is not
 * readable because it is not here. Toolchains and their caches (what commands run and build
 * from), and configuration that holds no credentials. `filesystem.allowRead` adds more.
 */
export const HOME_READABLE = [
  // Version managers and language homes.
  ".nvm",
  ".fnm",
  ".volta",
  ".asdf",
  ".mise",
  ".local/share/mise",
  ".local/bin",
  ".local/lib",
  ".local/share/pnpm",
  ".local/share/fnm",
  // uv's interpreters and tools, not its `credentials`.
  ".local/share/uv/python",
  ".local/share/uv/tools",
  ".local/share/virtualenvs",
  ".pyenv",
  ".rbenv",
  ".rvm",
  ".rustup",
  ".cargo/bin",
  ".cargo/registry",
  ".cargo/git",
  ".sdkman",
  ".jenv",
  // The SDK that dotnet-install.sh puts here, not `.dotnet/corefx` (the X.509 store: dev-certs'
  // private keys).
  ...["dotnet", "sdk", "shared", "host", "packs", "templates", "sdk-manifests", "tools"].map((p) => `.dotnet/${p}`),
  ".nuget/packages",
  ".ghcup",
  // Not cabal's `config` (a Hackage password), stack's `upload` (its credentials), julia's `logs`
  // (the REPL's history), `config` (startup.jl sets ENV) or `servers` (package server tokens).
  ...["bin", "packages", "store", "share"].map((p) => `.cabal/${p}`),
  ...["config.yaml", "global-project", "indices", "pantry", "programs", "snapshots", "setup-exe-cache"].map(
    (p) => `.stack/${p}`,
  ),
  ".opam",
  ".elan",
  ...["packages", "artifacts", "compiled", "environments", "registries", "scratchspaces", "juliaup", "dev"].map(
    (p) => `.julia/${p}`,
  ),
  ".conda",
  ".poetry",
  ".pixi",
  ".nix-profile",
  ".linuxbrew",
  ".bun/bin",
  ".bun/install",
  ".deno",
  "go",
  ".go",
  ".mix",
  // hex's packages and registry cache, not its `hex.config` (the API key).
  ".hex/packages",
  ".hex/cache.ets",
  ".swiftpm",
  ".tfenv",
  // Package and build caches.
  // npm's package cache and npx's installs, not its `_logs` (a command line's `--…_authToken=`).
  ".npm/_cacache",
  ".npm/_npx",
  ".pnpm-store",
  ".yarn/berry",
  ...HOME_CACHES,
  ".gradle/caches",
  ".gradle/wrapper",
  ".m2/repository",
  // Configuration read on every start that holds no credentials. (Shell start-up files are not
  // here: they often export keys. Git's config is served filtered: see GIT_CONFIGS.)
  ".config/git/ignore",
  ".config/git/attributes",
  ".gitignore_global",
  ".gitattributes",
  ".tool-versions",
  ".nvmrc",
  ".inputrc",
  ".editorconfig",
  ".terminfo",
  ".ripgreprc",
  ".config/ripgrep",
] as const;

/**
 * The folders of HOME_READABLE where installations of toolchains live (each node, Python, Ruby,
 * JDK, maven, conda environment…): their settings are hidden (toolchain-settings.ts). Not the
 * package caches and stores beside them, whose files are packages others published.
 */
export const HOME_TOOLCHAINS = [
  ".nvm",
  ".fnm",
  ".volta",
  ".asdf",
  ".mise",
  ".local/share/mise",
  ".local/share/pnpm",
  ".local/share/fnm",
  ".local/share/uv/python",
  ".local/share/uv/tools",
  ".local/share/virtualenvs",
  ".pyenv",
  ".rbenv",
  ".rvm",
  ".rustup",
  ".sdkman",
  ".jenv",
  ".ghcup",
  ".stack/programs",
  ".opam",
  ".elan",
  ".julia/juliaup",
  ".conda",
  ".poetry",
  ".pixi",
  ".linuxbrew",
  ".tfenv",
] as const;

/** The user's git config files: inside the sandbox, a copy without credentials stands in for each. */
export const GIT_CONFIGS = [".gitconfig", ".config/git/config"] as const;

/**
 * The home's configuration files the sandbox serves as filtered copies: the git configs
 * (GIT_CONFIGS) and mise's global configs (`~/.config/mise/*.toml`, `conf.d/*.toml`), which pick
 * the tool versions its shims run but may also set secrets (`[env]`). Each copy keeps only what is
 * known to hold none; the rest of those folders is not shown.
 */
export function homeConfigCopies(home: string): { path: string; filter: (text: string) => string }[] {
  const tomls = (dir: string) => {
    try {
      return readdirSync(dir)
        .filter((name) => name.endsWith(".toml"))
        .map((name) => join(dir, name));
    } catch {
      return [];
    }
  };
  const mise = join(home, ".config", "mise");
  return [
    ...GIT_CONFIGS.map((rel) => ({ path: join(home, rel), filter: gitConfigWithoutCredentials })),
    ...[...tomls(mise), ...tomls(join(mise, "conf.d"))].map((path) => ({ path, filter: miseConfigWithoutSecrets })),
  ];
}

/** The tables of a mise config that choose tools and hold no secrets (`[env]`, `[tasks]`, `[hooks]` and the rest go). */
const MISE_KEPT = /^(tools|alias|tool_alias|plugins|settings)$/;

/** A key name that may hold a credential. */
const SECRET_NAME = /key|token|secret|passw|auth|credential|cookie/i;

/**
 * A mise config with only the tables that choose tools (MISE_KEPT), and of those no key named like
 * a credential, no multi-line string, and no URL's password; at the top level only `min_version`.
 */
export function miseConfigWithoutSecrets(text: string): string {
  const out: string[] = [];
  let keep = false;
  let inString: string | undefined;
  for (const line of text.split("\n")) {
    if (inString) {
      if (line.includes(inString)) inString = undefined;
      continue;
    }
    const quotes = /"""|'''/.exec(line);
    if (quotes && line.split(quotes[0]).length % 2 === 0) {
      inString = quotes[0]; // a multi-line string starts: it and its lines go
      continue;
    }
    const head = /^\s*\[\[?\s*["']?([A-Za-z0-9_-]+)/.exec(line);
    if (head) {
      keep = MISE_KEPT.test(head[1]!);
      if (keep) out.push(line);
      continue;
    }
    const key = /^\s*["']?([^\s="']+)/.exec(line)?.[1] ?? "";
    const allowed = keep ? !SECRET_NAME.test(key) : key === "min_version" || /^\s*(#.*)?$/.test(line);
    if (allowed) out.push(line.replace(/(\w[\w+.-]*:\/\/[^\s/@:]*):[^\s/@]*@/g, "$1@"));
  }
  return out.join("\n");
}

/**
 * The sections of git's own configuration that hold no credential (git-config(1)): what commands
 * run and build with. Not `url`, `http` (extraHeader), `credential`, `include`/`includeIf`
 * (files outside the list), `sendemail` (smtpPass) or `imap` (pass), nor any other tool's section:
 * hub's and gh's old `[github] token`, `[gitlab] token` and their like were kept by a filter that
 * dropped only the sections it named, and a sandboxed `git config --global github.token` printed
 * the token (red team zf, ZF6).
 */
const GIT_SECTIONS = new Set(
  (
    "add advice alias am apply blame branch bundle checkout clean clone color column commit commitgraph core " +
    "diff difftool extensions feature fetch filter format fsck gc gpg grep gui help i18n index init interactive " +
    "lfs log mailmap maintenance man merge mergetool notes pack pager pretty protocol pull push rebase receive " +
    "remote repack rerere revert safe sequence showbranch sparse splitindex ssh stash status submodule tag tar " +
    "trace2 transfer uploadarchive uploadpack user versionsort web worktree"
  ).split(" "),
);

/**
 * A git config with only what is known to hold no credential (fail closed): the sections of
 * GIT_SECTIONS, of those no key named like a credential (SECRET_NAME: `user.signingKey` goes too)
 * with the lines it continues on, no comment, and no URL's password.
 */
export function gitConfigWithoutCredentials(text: string): string {
  const out: string[] = [];
  let keep = true;
  let continued = false; // the previous line went and ended in a backslash: its value goes on here
  for (const line of text.split("\n")) {
    if (continued) {
      continued = /\\\s*$/.test(line);
      continue;
    }
    const head = /^\s*\[\s*([A-Za-z0-9.-]+)[^\]]*\]/.exec(line);
    if (head) keep = GIT_SECTIONS.has(head[1]!.split(".")[0]!.toLowerCase());
    // Comments go too (`# token: …`): git needs none of them.
    if (!keep || /^\s*[#;]/.test(line)) continue;
    // A variable after the header on the same line (`[core] bare = false`) is judged as its own line is.
    const rest = head ? line.slice(head[0].length) : line;
    const key = /^\s*([A-Za-z][A-Za-z0-9-]*)/.exec(rest)?.[1] ?? "";
    if (key && SECRET_NAME.test(key)) {
      continued = /\\\s*$/.test(rest);
      if (head) out.push(head[0]);
      continue;
    }
    // A URL's password (a remote's `https://x-access-token:TOKEN@github.com/…`) goes too.
    out.push(line.replace(/(\w[\w+.-]*:\/\/[^\s/@:]*):[^\s/@]*@/g, "$1@"));
  }
  return out.join("\n");
}

/**
 * The folders of HOME_READABLE where a toolchain keeps the user's own working copies, not
 * packages others published: GOPATH's `src` (every checkout before Go modules, and `go get` of
 * one's own repositories) and julia's `dev` (`Pkg.develop`). Other projects live there with their
 * `.env` files and keys, so the secret patterns are hidden there as in the writable folders. The
 * package caches beside them are not walked: what they hold is public, and walking them (a
 * toolchain, a module cache) at every command would cost seconds.
 */
export const HOME_CHECKOUTS = ["go/src", ".go/src", ".julia/dev"] as const;

/**
 * Patterns of secret files inside the permitted folders: the private keys the permission engine
 * names (sensitive.ts: `id_*` keys, `*.pem`, `*.key`, PKCS#12 and Java keystores) and `.env` files.
 * `id_dsa` and the security-key kinds (`id_ecdsa_sk`, `id_ed25519_sk`) and the keystores were read
 * in the sandbox while the docs said `id_*` keys were hidden (red team zo).
 */
export const SECRET_PATTERNS = [
  "**/.env",
  "**/.env.*",
  "**/*.pem",
  "**/*.key",
  "**/*.p12",
  "**/*.pfx",
  "**/*.jks",
  "**/*.keystore",
  // Every `id_` key the engine names (`^id_[a-z0-9_]+$`), not only the defaults: `ssh-keygen -f
  // id_rsa_deploy`, `id_ed25519_github` were read in the sandbox (red team zq, ZQ6). Not `.pub`.
  "**/id_+([a-z0-9_])",
] as const;

/**
 * The names hidden in the folders shown read-only for the programs on the PATH (red team zo, ZO3):
 * the system's folders' (SYSTEM_SECRET_NAME), not `*.pem` — a toolchain's certificate bundle
 * (Homebrew's `etc/openssl@3/cert.pem`) is public, and TLS needs it.
 */
export const SHOWN_SECRET_PATTERNS = [
  "**/.env",
  "**/.env.*",
  "**/?*.key",
  "**/id_+([a-z0-9_])",
  "**/.npmrc",
  "**/.pypirc",
  "**/.netrc",
  "**/.git-credentials",
  "**/.pgpass",
] as const;

// No depth bound (a .env seven folders down is still a secret); node_modules and .git are skipped.
const WALK = {
  dot: true,
  absolute: true,
  onlyFiles: true,
  followSymbolicLinks: false,
  ignore: ["**/node_modules/**", "**/.git/**"],
} as const;

/** The glob a `Read(...)` rule's path means (the permission engine's reading of it). */
export function rulePathGlob(pattern: string, cwd: string, home: string): { base: string; glob: string } | undefined {
  const p = pattern.trim().replace(/\/+$/, "");
  if (p === "" || /^\/+$/.test(p)) return undefined; // "everything": not a mask
  if (p === "~" || p.startsWith("~/")) return { base: home, glob: p.slice(2) || "." };
  if (p.startsWith("/")) return { base: "/", glob: p.replace(/^\/+/, "") };
  if (p.startsWith("./")) return { base: cwd, glob: p.slice(2) };
  if (p.includes("/")) return { base: cwd, glob: p };
  return { base: cwd, glob: `**/${p}` }; // a bare name: at any depth (inside the permitted folders)
}

/** Every existing path to make unreadable. */
export function secretPaths(input: {
  home: string;
  roots: readonly string[];
  readRules: readonly string[];
  denyRead: readonly string[];
  cwd: string;
  /** The run's walk of the permitted folders for SECRET_PATTERNS, kept between calls (a fresh one when not given). */
  walk?: SecretWalk;
}): string[] {
  const out = new Set<string>();
  const walk = input.walk ?? new SecretWalk(SECRET_PATTERNS);
  // Where a link leads is hidden only where the sandbox shows it at all: /tmp is private and the
  // home folder a tmpfs there (bar the permitted folders), and a mount over what is not there fails.
  const under = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);
  const visible = (p: string) =>
    input.roots.some((root) => under(p, root)) || !(under(p, "/tmp") || under(p, input.home));
  for (const rel of SENSITIVE_HOME) {
    const path = join(input.home, rel);
    if (existsSync(path)) out.add(path);
  }
  // The toolchains' own settings (npm's etc/npmrc, pip.conf, maven's conf/settings.xml…; red team zf, ZF1).
  for (const path of toolchainSettings(HOME_TOOLCHAINS.map((rel) => join(input.home, rel)))) out.add(path);
  // Ubiquity's own state is hidden like ~/.ubiquity, wherever it lives: the compiled copies of
  // every TypeScript config the user ran, other projects' included (their keys, their MCP
  // servers' env), sit in the user's cache folder, which HOME_READABLE keeps readable (red team u, U1).
  // (Elsewhere under /tmp it is out of sight already: the sandbox's /tmp is its own.)
  const compiled = compiledCacheDir({ ...process.env, HOME: input.home });
  const shown = [input.home, ...input.roots].some((dir) => under(compiled, dir)) || !under(compiled, "/tmp");
  if (shown && existsSync(compiled)) out.add(compiled);
  // The user's own checkouts in the home's readable folders (GOPATH's src, julia's dev): other
  // projects, whose secrets are hidden by name as the writable folders' are (red team z, Z3).
  for (const rel of HOME_CHECKOUTS)
    for (const file of safeGlob([...SECRET_PATTERNS], join(input.home, rel), Infinity, visible)) out.add(file);
  for (const root of input.roots) {
    const found = walk.walk(root);
    for (const file of [...found.files, ...found.linkTargets.filter(visible)]) out.add(file);
    // The folders above, up to the repository root or the home folder: a monorepo's .env
    // sits above the package the agent works in.
    for (const dir of ancestors(root, input.home)) {
      for (const file of safeGlob(
        SECRET_PATTERNS.map((p) => p.replace("**/", "")),
        dir,
        1,
        visible,
      ))
        out.add(file);
    }
  }
  for (const rule of input.readRules) {
    const g = rulePathGlob(rule, input.cwd, input.home);
    if (!g) continue;
    if (!/[*?[\]{}]/.test(g.glob)) {
      const path = g.glob === "." ? g.base : join(g.base, g.glob);
      if (existsSync(path)) out.add(path);
      continue;
    }
    // A glob from `/` would walk the whole disk; start from its literal head instead.
    const parts = g.glob.split("/");
    const literal = parts.findIndex((s) => /[*?[\]{}]/.test(s));
    const base = join(g.base, ...parts.slice(0, literal));
    // Inside the permitted folders a rule's glob is walked whole, like the secret patterns. Elsewhere
    // it is bounded (it may start high up: `Read(/srv/**/*.key)`), and what lies below the bound was
    // never looked at: the folders at the bound are hidden whole (fail closed).
    const inside = input.roots.some((root) => base === root || base.startsWith(`${root}/`));
    for (const file of safeGlob([parts.slice(literal).join("/")], base, inside ? Infinity : RULE_DEPTH, visible))
      out.add(file);
    if (!inside) for (const dir of foldersAtDepth(base, RULE_DEPTH)) out.add(dir);
  }
  for (const path of input.denyRead) if (isAbsolute(path) && existsSync(path)) out.add(path);
  return [...out].sort();
}

/**
 * The secrets by name (SHOWN_SECRET_PATTERNS) in the folders outside the system's, the home and
 * the permitted ones that the sandbox shows read-only for the programs on the PATH (bwrap.ts,
 * pathRoots: `/work/other` for `/work/other/node_modules/.bin`). Another project, whose .env files
 * and keys a sandboxed command read (red team zo, ZO3): hidden by name there as in the system's
 * folders, node_modules and .git skipped as in the permitted ones. Read-only inside the sandbox,
 * so walked once a run, as the system's folders are.
 */
export function shownSecretPaths(shown: readonly string[], roots: readonly string[]): string[] {
  const under = (p: string, dir: string) => p === dir || p.startsWith(`${dir}/`);
  const walk = new SecretWalk(SHOWN_SECRET_PATTERNS);
  const out = new Set<string>();
  // What lies in a permitted folder is that folder's walk's (a file there may go at any time).
  const own = (p: string) => under(p, "/tmp") || roots.some((r) => under(p, r));
  for (const root of shown) {
    if (roots.some((r) => under(root, r))) continue;
    const found = walk.walk(root);
    for (const file of [...found.files, ...found.linkTargets]) if (!own(file)) out.add(file);
  }
  return [...out].sort();
}

/**
 * What a sandboxed command must not change for the `Edit(...)`/`Write(...)` deny and ask rules
 * (each rule's path): a literal path; for a pattern, the folder its literal part names when that
 * folder lies below a writable folder (`./src/**` → src, whole), the writable folders below it
 * when it lies above them (`~/**`), and the files it matches now when it is one. The engine
 * cannot say what code it cannot see writes (`python3 -c …`, `./x.sh`, a background shell's
 * stdin); the sandbox is the boundary there, as for Read rules (red team q, Q2).
 */
export function writeRulePaths(input: {
  rules: readonly string[];
  roots: readonly string[];
  cwd: string;
  home: string;
}): string[] {
  const out = new Set<string>();
  const under = (p: string, dir: string) => dir === "/" || p.startsWith(`${dir}/`);
  for (const rule of input.rules) {
    const g = rulePathGlob(rule, input.cwd, input.home);
    if (!g) continue;
    if (!/[*?[\]{}]/.test(g.glob)) {
      out.add(g.glob === "." ? g.base : join(g.base, g.glob));
      continue;
    }
    const parts = g.glob.split("/");
    const literal = parts.findIndex((s) => /[*?[\]{}]/.test(s));
    const head = join(g.base, ...parts.slice(0, literal));
    if (input.roots.some((root) => under(head, root))) out.add(head);
    for (const root of input.roots) {
      if (root === head) for (const file of safeGlob([parts.slice(literal).join("/")], head)) out.add(file);
      else if (under(root, head)) out.add(root);
    }
  }
  return [...out].sort();
}

/**
 * The files an `Edit(...)`/`Write(...)` rule's pattern names that writeRulePaths cannot hold by a
 * folder: a pattern whose literal part is a writable folder itself (`*.lock`, a bare `*.pem`) names
 * files a sandboxed command may make later, anywhere in it. A predicate for the workspace guard,
 * which binds an existing one read-only and takes a new one out of the workspace, as it does a
 * protected name (red team q, Q7). Undefined when no rule is such a pattern.
 */
export function writeRuleMatcher(input: {
  rules: readonly string[];
  roots: readonly string[];
  cwd: string;
  home: string;
}): ((path: string) => string | undefined) | undefined {
  const mm = micromatch();
  const tests: { base: string; test: (rel: string) => boolean; rule: string }[] = [];
  for (const rule of input.rules) {
    const g = rulePathGlob(rule, input.cwd, input.home);
    if (!g || !/[*?[\]{}]/.test(g.glob)) continue;
    const parts = g.glob.split("/");
    const literal = parts.findIndex((s) => /[*?[\]{}]/.test(s));
    const head = join(g.base, ...parts.slice(0, literal));
    if (!input.roots.includes(head)) continue;
    const matcher = mm.matcher(parts.slice(literal).join("/"), { dot: true, ...LINE_BREAKS });
    tests.push({ base: head, test: matcher, rule });
  }
  if (tests.length === 0) return undefined;
  return (path) => {
    for (const t of tests)
      if (path.startsWith(`${t.base}/`) && t.test(path.slice(t.base.length + 1)))
        return `a rule forbids or asks before editing it (${t.rule})`;
    return undefined;
  };
}

/** The folders above `dir`, nearest first, up to (and with) the one holding `.git`; none past `home` or `/`. */
function ancestors(dir: string, home: string): string[] {
  const out: string[] = [];
  if (existsSync(join(dir, ".git"))) return out;
  for (let d = dirname(dir); d !== dirname(d) && d !== home && d !== dirname(home); d = dirname(d)) {
    out.push(d);
    if (existsSync(join(d, ".git"))) return out;
  }
  return []; // no repository above: the folder stands alone
}

/** How many folders deep a `Read(...)` rule's glob is walked outside the permitted folders. */
const RULE_DEPTH = 8;

/** The folders exactly `depth` levels below `base` (links not followed; node_modules and .git skipped, as in the walk). */
function foldersAtDepth(base: string, depth: number): string[] {
  if (!existsSync(base)) return [];
  try {
    return tinyglobby()
      .globSync(["*/".repeat(depth)], { ...WALK, onlyFiles: false, onlyDirectories: true, deep: depth, cwd: base })
      .map((p) => p.replace(/\/+$/, ""));
  } catch {
    return [];
  }
}

/**
 * The files under `cwd` the patterns match, and the links they match whatever they lead to: the
 * glob drops every link when it does not follow them, and a `.env` that links to a file outside is
 * the most common `.env` there is. A link is bound over, so what it leads to is hidden at its path.
 */
function safeGlob(
  patterns: string[],
  cwd: string,
  deep = Infinity,
  visible: (path: string) => boolean = () => true,
): string[] {
  if (!existsSync(cwd)) return [];
  try {
    const files = tinyglobby().globSync(patterns, {
      ...WALK,
      ...(deep === Infinity ? {} : { deep }),
      ignore: [...WALK.ignore],
      cwd,
    });
    return [...files, ...linksMatching(patterns, cwd, deep).filter(visible)];
  } catch {
    return [];
  }
}

/**
 * What the symbolic links under `cwd` whose relative path matches lead to (links not followed on
 * the walk, node_modules and .git skipped): bubblewrap cannot mount over a link, so the file or
 * folder it leads to is hidden instead (at every path, which is what the rule means).
 */
function linksMatching(patterns: string[], cwd: string, deep: number): string[] {
  const mm = micromatch();
  // A name with a line break matches too (LINE_BREAKS: `*` is compiled to `.`).
  const matches = (path: string) => mm.isMatch(path, patterns, { dot: true, ...LINE_BREAKS });
  const out: string[] = [];
  const walk = (dir: string, rel: string, level: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // unreadable to this user: to the sandboxed command too
    }
    for (const entry of entries) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink()) {
        if (!matches(path)) continue;
        try {
          out.push(realpathSync(join(dir, entry.name)));
        } catch {
          // a dangling link: nothing to read through it
        }
      } else if (entry.isDirectory() && entry.name !== "node_modules" && entry.name !== ".git" && level < deep)
        walk(join(dir, entry.name), path, level + 1);
    }
  };
  walk(cwd, "", 1);
  return out;
}

/**
 * The system's folders whose entries are checked for what not everyone may read (privateSystemPaths):
 * those with configuration and state. The rest of SYSTEM_ROOTS is programs and libraries (`/usr`
 * is walked only in `/usr/local`, its one place for local configuration), package stores (`/nix`,
 * `/gnu`, `/snap`, readable by everyone by design) and `/sys` (the kernel's, not files).
 */
export const PRIVATE_WALK_ROOTS = ["/etc", "/var", "/opt", "/usr/local"] as const;

/** The rules a kept reading was made by (2: secrets by name, SYSTEM_SECRET_NAME; 3: scratch folders). */
const SCAN_VERSION = 3;

/** How many entries the walk reads afresh in one run before it stops and hides every folder it has not read. */
const PRIVATE_WALK_LIMIT = 300_000;

/** What the walk found in one folder: its stamp, its private entries (a folder's name ends in `/`), and its folders to walk. */
interface FolderScan {
  stamp: string;
  hidden: string[];
  walked: string[];
  /** Its sticky folders everyone may write (`/var/tmp`): laid over with a private one (see privateSystemPaths). */
  scratch?: string[];
  /**
   * Its files everyone may read that this user could read without the others' bit (root: all; else
   * those of its user or one of its groups): checked again when the reading is reused.
   */
  open?: string[];
}

/** This process's user and groups (asked once a folder, not once a file: each asks the kernel). */
function whoAmI(): { uid: number; groups: number[] } {
  return { uid: process.getuid?.() ?? 0, groups: process.getgroups?.() ?? [] };
}

/** Could this process (`me`) read a file of `stats` were the others' read bit taken away? */
function readableAnyway(stats: { uid: number; gid: number }, me: { uid: number; groups: number[] }): boolean {
  return me.uid === 0 || stats.uid === me.uid || me.groups.includes(stats.gid);
}

/** Is every file `scan` found public still a file everyone may read? */
function publicStill(dir: string, scan: FolderScan): boolean {
  if (!scan.open) return false; // a reading from before the files were kept: read again
  for (const name of scan.open) {
    const stats = lstatSync(join(dir, name), { throwIfNoEntry: false });
    if (stats?.isFile() && (stats.mode & 0o004) === 0) return false;
  }
  return true;
}

/**
 * What of the system's folders not everyone may read: a file without the others' read bit, a
 * folder without their read and search bits (hidden whole, not read further). A sandboxed command
 * sees of them only what any user of the machine could (fail closed): run as root (containers,
 * CI, dev VMs), or in a group, it read `/etc/shadow`, `/etc/ssl/private`, debconf's
 * `passwords.dat`, a database's files, a WireGuard key, which no list named. Not followed: links
 * (their targets are judged where they are). Not walked: `skip` (the run's own folders, the home),
 * and a sticky folder everyone may write (`/var/tmp`: scratch space, not the system's). Such a
 * folder is returned as `scratch` instead, to be replaced with a private empty one, as /tmp is:
 * other processes' files come and go there, and the walk's rule (only what any user may read) was
 * never applied to them, so a sandboxed command read the user's own private scratch files there
 * (`/var/tmp/<0700 folder>/<0600 file>`: vim's swap files, a tool's saved tokens) and every one
 * everyone may read (red team zb, ZB1).
 *
 * Run as root, read by find(1) where the system has it (system-find.ts), every run afresh: nothing
 * is kept, so a file made private in place (`chmod 600` changes no folder; red team y, Y4) is seen
 * at the next run as any other is. Otherwise (`find: false`, find missing or not running cleanly,
 * or another user), the walk in Node (nodeWalk), past PRIVATE_WALK_LIMIT entries hiding the folders
 * not yet read whole, with `cache` keeping each folder's reading: a later run lists no folder that
 * did not change, and stats the public files this user could read were they made private in place.
 * As root that is every file, so a kept reading saves root little, and find's stats in C cost a
 * third of the walk's in a fresh process; another user's kept reading stats the folders and that
 * user's own files, less than find's reading of every entry where the folders are large.
 */
export function privateSystemPaths(
  skip: readonly string[],
  options: {
    roots?: readonly string[];
    limit?: number;
    cache?: string;
    racyMs?: number;
    /** The find program [as root, the system's (systemFind()); else false]; false: the walk in Node. */
    find?: string | false;
    /** How long find may take before the walk in Node reads the folders instead [FIND_TIMEOUT_MS]. */
    findTimeoutMs?: number;
  } = {},
): SystemPrivatePath[] {
  const walk = systemWalk(skip, options);
  const candidates = walk.find ? findCandidates(walk.find, walk.pending, skip, walk.findTimeoutMs) : undefined;
  return walk.finish(candidates);
}

/**
 * privateSystemPaths without blocking while find reads the folders (the sandbox's warm-up, as the
 * model writes its first command): the same walk, the same judging. Without find, or when find did
 * not run cleanly, the walk in Node, as privateSystemPaths does it. `signal` ends find early.
 */
export async function privateSystemPathsAsync(
  skip: readonly string[],
  options: Parameters<typeof privateSystemPaths>[1] & { signal?: AbortSignal } = {},
): Promise<SystemPrivatePath[]> {
  const walk = systemWalk(skip, options);
  const candidates = walk.find
    ? await findCandidatesAsync(walk.find, walk.pending, skip, walk.findTimeoutMs, options.signal)
    : undefined;
  // Ended by its caller (the run closed mid-walk): nothing, never the walk in Node in find's place,
  // which read the folders again with the event loop held as the process exited (red team zv, ZV3).
  options.signal?.throwIfAborted();
  return walk.finish(candidates);
}

/** One walk of privateSystemPaths: the roots to read, the reader, and the judging of what was read. */
function systemWalk(skip: readonly string[], options: NonNullable<Parameters<typeof privateSystemPaths>[1]>) {
  const { roots = PRIVATE_WALK_ROOTS, findTimeoutMs = FIND_TIMEOUT_MS } = options;
  const find = options.find ?? (process.getuid?.() === 0 ? systemFind() : false);
  systemWalks++;
  const inSkipped = (p: string) => skip.some((s) => p === s || p.startsWith(`${s}/`));
  // Hidden neither: a skipped folder, what is in one, nor a folder that holds one.
  const skipped = (p: string) => inSkipped(p) || skip.some((s) => s.startsWith(`${p}/`));
  const pending = roots.filter((r) => !inSkipped(r) && lstatSync(r, { throwIfNoEntry: false })?.isDirectory());
  /** What find printed judged, or (undefined: no find, or not clean) the walk in Node. */
  const finish = (candidates: string[] | undefined): SystemPrivatePath[] => {
    const found = candidates ? judgeCandidates(candidates, skipped) : nodeWalk(pending, roots, skip, options);
    return [...found.scratch, ...fewerMasks(found.out, roots, skipped)];
  };
  return { find, pending, findTimeoutMs, finish };
}

/** How many times privateSystemPaths ran in this process (tests: whether a run walked). */
export function systemWalkCount(): number {
  return systemWalks;
}
let systemWalks = 0;

/** find's bound on a machine whose system folders are huge: the walk in Node, which stops at its limit, takes over. */
const FIND_TIMEOUT_MS = 10_000;

/** What find printed, judged by its own stat now as readFolder judges an entry (find only narrows). */
function judgeCandidates(
  candidates: readonly string[],
  skipped: (path: string) => boolean,
): { out: SystemPrivatePath[]; scratch: SystemPrivatePath[] } {
  const out: SystemPrivatePath[] = [];
  const scratch: SystemPrivatePath[] = [];
  for (const path of candidates) {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (!stats || stats.isSymbolicLink()) continue; // gone: nothing to hide
    if (stats.isDirectory()) {
      const open = (stats.mode & 0o005) === 0o005;
      if (open && (stats.mode & 0o1002) === 0o1002) scratch.push({ path, dir: true, scratch: true });
      // Private, or made public since find printed it without entering it: what it holds was not read.
      else if (!skipped(path)) out.push({ path, dir: true });
    } else if (stats.isFile() && ((stats.mode & 0o004) === 0 || SYSTEM_SECRET_NAME.test(basename(path)))) {
      if (!skipped(path)) out.push({ path, dir: false });
    }
  }
  return { out, scratch };
}

/** The walk in Node (see privateSystemPaths): `pending`, the roots to read, each an existing folder not skipped. */
function nodeWalk(
  pending: string[],
  roots: readonly string[],
  skip: readonly string[],
  options: { limit?: number; cache?: string; racyMs?: number },
): { out: SystemPrivatePath[]; scratch: SystemPrivatePath[] } {
  const { limit = PRIVATE_WALK_LIMIT, cache, racyMs = RACY_MS } = options;
  // This process's last readings too (a program that runs many sessions, the tests): checked by their stamps alike.
  const stored = readScans(cache);
  const known = { ...lastScans, ...stored };
  const scans: Record<string, FolderScan> = {};
  const out: SystemPrivatePath[] = [];
  const scratch: SystemPrivatePath[] = [];
  const inSkipped = (p: string) => skip.some((s) => p === s || p.startsWith(`${s}/`));
  const skipped = (p: string) => inSkipped(p) || skip.some((s) => s.startsWith(`${p}/`));
  const now = Date.now();
  let read = 0;
  let fresh = 0;
  while (pending.length > 0) {
    const dir = pending.pop()!;
    const info = lstatSync(dir, { throwIfNoEntry: false });
    if (!info?.isDirectory()) continue; // not there, or a link (merged /usr): judged where it leads
    // Made private in place since its parent was read (a chmod changes the folder, not its parent).
    if ((info.mode & 0o005) !== 0o005 && !roots.includes(dir) && !skipped(dir)) {
      out.push({ path: dir, dir: true });
      continue;
    }
    // The reading's rules are part of its stamp: a reading kept by an earlier version is read again.
    const stamp = `${SCAN_VERSION}:${info.ctimeMs}:${info.mtimeMs}:${info.ino}`;
    const kept = known[dir];
    let scan = isScan(kept) && kept.stamp === stamp ? kept : undefined;
    // A file made private in place (`chmod 600`) changes no folder: each public file of a kept reading
    // that this user could read as private is looked at again (a stat each, no listing); one that is
    // private now has the folder read again. (As root that is every file: root reads them all.)
    if (scan && !publicStill(dir, scan)) scan = undefined;
    if (!scan) {
      if (read >= limit) {
        out.push({ path: dir, dir: true });
        continue;
      }
      const reading = readFolder(dir, stamp);
      if (!reading) {
        // A folder it may search but cannot list (an I/O error, a security module): not known, so hidden.
        if (!roots.includes(dir) && !skipped(dir)) out.push({ path: dir, dir: true });
        continue;
      }
      scan = reading;
      read += scan.hidden.length + scan.walked.length;
      fresh++;
    }
    // A change in the clock's last tick leaves the times as they were: such a reading is not kept.
    if (now - info.ctimeMs > racyMs) scans[dir] = scan;
    for (const name of scan.hidden) {
      const path = join(dir, name.replace(/\/$/, ""));
      if (!skipped(path)) out.push({ path, dir: name.endsWith("/") });
    }
    for (const name of scan.walked) {
      const path = join(dir, name);
      if (!inSkipped(path)) pending.push(path);
    }
    // Laid over before the run's own folders are bound, so a workspace or a home inside stays seen.
    for (const name of scan.scratch ?? []) scratch.push({ path: join(dir, name), dir: true, scratch: true });
  }
  // Written only when a folder was read afresh or one is gone: a run that changed nothing writes nothing.
  if (cache && (fresh > 0 || Object.keys(scans).length !== Object.keys(stored).length)) writeScans(cache, scans);
  lastScans = scans;
  return { out, scratch };
}

/** A path of the system's folders the sandbox hides, or (`scratch`) replaces with a private empty folder. */
export interface SystemPrivatePath {
  path: string;
  dir: boolean;
  scratch?: true;
}

/** A folder with more private entries than this is hidden whole (a cache of 0600 files, a journal). */
const MASKS_PER_FOLDER = 32;
/** At most this many paths hidden in all: each is a mount, and bwrap takes at most 9,000 arguments. */
const MAX_MASKS = 1500;

/**
 * Fewer paths to hide, hiding more (fail closed): a folder with more than MASKS_PER_FOLDER
 * private entries is hidden whole, and while there are more than MAX_MASKS, the folder below a
 * root holding the most of them is. Never a root itself, nor a folder that holds one the run
 * owns (`kept`).
 */
function fewerMasks(
  masks: { path: string; dir: boolean }[],
  roots: readonly string[],
  kept: (path: string) => boolean,
): { path: string; dir: boolean }[] {
  const isRoot = (p: string) => roots.includes(p);
  const count = new Map<string, number>();
  for (const m of masks) count.set(dirname(m.path), (count.get(dirname(m.path)) ?? 0) + 1);
  let out = masks;
  for (const [dir, n] of count) if (n > MASKS_PER_FOLDER && !isRoot(dir) && !kept(dir)) out = hideWhole(out, dir);
  while (out.length > MAX_MASKS) {
    const below = new Map<string, number>();
    for (const m of out)
      for (let dir = dirname(m.path); !isRoot(dir) && dir !== dirname(dir); dir = dirname(dir))
        if (!kept(dir)) below.set(dir, (below.get(dir) ?? 0) + 1);
    const [dir, n] = [...below].sort((a, b) => b[1] - a[1])[0] ?? [undefined, 0];
    if (dir === undefined || n < 2) break;
    out = hideWhole(out, dir);
  }
  return out;
}

/** `masks` with everything under `dir` replaced by `dir` itself. */
function hideWhole(masks: { path: string; dir: boolean }[], dir: string): { path: string; dir: boolean }[] {
  return [...masks.filter((m) => m.path !== dir && !m.path.startsWith(`${dir}/`)), { path: dir, dir: true }];
}

/** The readings of this process's last walk (privateSystemPaths). */
let lastScans: Record<string, FolderScan> = {};

/** File times tick coarsely: a folder changed this recently may change again unseen within its stamp. */
const RACY_MS = 2000;

/**
 * Files hidden in the system's folders by their name, however readable: a deployed app's `.env`
 * (`/var/www/site/.env`, `/opt/app/.env`), an SSH or TLS private key and a service account's
 * token file (`/var/lib/jenkins/.npmrc`: npm writes it 0644) are everyone's to read there only by
 * mistake, and a sandboxed command read them (red team z, Z2). SECRET_PATTERNS' names and
 * SENSITIVE_HOME's token files, but `*.pem`: the system's certificate bundles are public `.pem`
 * files that TLS needs.
 */
const SYSTEM_SECRET_NAME =
  /^(?:\.env(?:\..*)?|id_[a-z0-9_]+|.+\.key|\.npmrc|\.pypirc|\.netrc|\.git-credentials|\.pgpass)$/;

function readFolder(dir: string, stamp: string): FolderScan | undefined {
  const scan: FolderScan = { stamp, hidden: [], walked: [], scratch: [], open: [] };
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const me = whoAmI();
  for (const name of names) {
    const stats = lstatSync(join(dir, name), { throwIfNoEntry: false });
    if (!stats || stats.isSymbolicLink()) continue;
    if (stats.isDirectory()) {
      if ((stats.mode & 0o005) !== 0o005) scan.hidden.push(`${name}/`);
      // Not a sticky folder everyone writes (`/var/tmp`): other processes' scratch files come and go
      // there, and one gone from under a mount laid over it stopped every command. It is replaced whole.
      else if ((stats.mode & 0o1002) !== 0o1002) scan.walked.push(name);
      else scan.scratch!.push(name);
    } else if (stats.isFile() && ((stats.mode & 0o004) === 0 || SYSTEM_SECRET_NAME.test(name))) scan.hidden.push(name);
    else if (stats.isFile() && readableAnyway(stats, me)) scan.open!.push(name);
  }
  return scan;
}

function isScan(value: unknown): value is FolderScan {
  const v = value as Partial<FolderScan> | undefined;
  const names = (x: unknown) =>
    Array.isArray(x) && x.every((n) => (typeof n === "string" && !n.includes("/", 0)) || /^[^/]+\/$/.test(n));
  return (
    typeof v?.stamp === "string" &&
    names(v.hidden) &&
    names(v.walked) &&
    (v.scratch === undefined || names(v.scratch)) &&
    (v.open === undefined || names(v.open))
  );
}

function readScans(cache: string | undefined): Record<string, FolderScan> {
  if (!cache) return {};
  try {
    const parsed = JSON.parse(readFileSync(cache, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, FolderScan>) : {};
  } catch {
    return {}; // absent or damaged: everything is read afresh
  }
}

function writeScans(cache: string, scans: Record<string, FolderScan>): void {
  try {
    mkdirSync(dirname(cache), { recursive: true, mode: 0o700 });
    const temp = `${cache}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(scans), { mode: 0o600 });
    renameSync(temp, cache);
  } catch {
    // a cache that cannot be written costs the next run a full walk, nothing more
  }
}
