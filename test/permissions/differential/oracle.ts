/**
 * Bash as the oracle: each command string runs with real `bash -c` inside bubblewrap, traced by
 * strace, and we read off what it started and what it wrote.
 *
 * The sandbox: no network (every namespace unshared), the host system read-only, a fresh copy
 * of the fixture workspace and home folder on a tmpfs for every string, `/tmp` a tmpfs. Every
 * program the generator names is a no-op stub — first on PATH, and bound over its real copy in
 * /usr/bin too, so `/usr/bin/rm`, `env -i rm` and `command -p rm` reach a stub as well. Only
 * bash, sh, and the wrappers whose point is what *they* start (env, nice, timeout, nohup, xargs,
 * find) are real. strace -f records every execve with its argv and every path opened for
 * writing, created or removed — also attempts the read-only root refused, since those would
 * land on a real machine. Strings run one after another inside one bwrap per batch, batches in
 * parallel, so thousands run in well under a minute.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseTrace, type Observation } from "./trace";
import { GENERATED_PROGRAMS } from "./generator";

/** Programs that are real in the sandbox: their point is what they start. */
export const REAL_PROGRAMS = ["bash", "sh", "env", "nice", "timeout", "nohup", "xargs", "find", "true", "false"];

/** Programs that are stubs (the generator may name any of these): its own list, every spec'd program and /usr/bin's snapshot. */
const NAMED_STUBS = [
  "git",
  "rm",
  "cat",
  "ls",
  "echo",
  "printf",
  "curl",
  "wget",
  "sed",
  "awk",
  "tee",
  "cp",
  "mv",
  "ln",
  "install",
  "grep",
  "rg",
  "python3",
  "python",
  "node",
  "perl",
  "npm",
  "npx",
  "make",
  "touch",
  "mkdir",
  "sort",
  "tar",
  "rsync",
  "ssh",
  "dd",
  "head",
  "tail",
  "wc",
  "chmod",
  "sudo",
  "vim",
  "less",
  "id",
  "whoami",
  "date",
  "sleep",
  "test",
  "[",
  "kill",
  "base64",
  "evil",
  "stdbuf",
  "setsid",
  "flock",
  "script",
  "watch",
  "time",
  "ionice",
  "chrt",
  "taskset",
  "su",
  "zsh",
  "ksh",
];
const NEVER_STUBBED = new Set([...REAL_PROGRAMS, "strace"]);
export const STUB_PROGRAMS = [...new Set([...NAMED_STUBS, ...GENERATED_PROGRAMS])].filter(
  (name) => !NEVER_STUBBED.has(name) && /^[A-Za-z0-9_.+:-]+$/.test(name),
);

const TRACED =
  "execve,execveat,open,openat,creat,truncate,rename,renameat,renameat2,link,linkat,symlink,symlinkat,unlink,unlinkat,mkdir,mkdirat,rmdir,mknod,mknodat";

/** Why the oracle cannot run here (a message naming what to install), or undefined when it can. */
export function oracleUnavailable(): string | undefined {
  for (const tool of ["bwrap", "strace", "bash"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) {
      return `the differential harness needs bubblewrap, strace and bash (${tool} is missing): apt-get install -y bubblewrap strace`;
    }
  }
  const probe = spawnSync("bwrap", [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--unshare-all",
    "--die-with-parent",
    "--",
    "/bin/true",
  ]);
  if (probe.status !== 0) return `bubblewrap cannot create a sandbox here: ${probe.stderr.toString().trim()}`;
  return undefined;
}

/** The fixture every string starts from: where the workspace and home folder are. */
export interface Fixture {
  /** The workspace (cwd of every string), on the host: its pristine copy, which the engine judges. */
  workspace: string;
  home: string;
  /** Remove everything the fixture made. */
  dispose(): void;
}

// The files every string finds: a few plain files, a folder, a symlink out, sensitive files.
function fillFixture(workspace: string, home: string) {
  mkdirSync(join(workspace, "sub"), { recursive: true });
  mkdirSync(join(workspace, ".git", "hooks"), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(workspace, "a.txt"), "alpha\n");
  writeFileSync(join(workspace, "sub", "b.txt"), "beta\n");
  writeFileSync(join(workspace, ".env"), "SECRET=1\n");
  writeFileSync(join(workspace, ".git", "config"), "[core]\n");
  writeFileSync(join(home, ".bashrc"), "# rc\n");
  symlinkSync("/tmp", join(workspace, "tmp-link"));
}

/** Make the fixture (host side). Its paths are the same inside the sandbox. */
export function makeFixture(): Fixture {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "ubq-diff-")));
  const workspace = join(base, "run", "ws");
  const home = join(base, "run", "home");
  fillFixture(workspace, home);
  return { workspace, home, dispose: () => rmSync(base, { recursive: true, force: true }) };
}

// Inside the sandbox, for each NUL-separated string: a fresh workspace and home, then the traced run.
// Inside the sandbox, for each NUL-separated string: the traced run in a fresh workspace and home.
// Copying the fixture costs two processes, so it is only redone when something in it changed
// (a builtin \`-nt\` test against a stamp written just before the run: no process at all).
const DRIVER = String.raw`
set -u
list=$1 out=$2 tpl=$3 run=$4
stamp=/tmp/.ubq-stamp
i=0 dirty=1
while IFS= read -r -d '' s; do
  if ((dirty)); then
    /tmp/.ubq-real/rm -rf "$run/ws" "$run/home"
    /tmp/.ubq-real/cp -a "$tpl/ws" "$tpl/home" "$run/"
  fi
  : > "$stamp"
  cd "$run/ws"
  timeout -s KILL 5 strace -f --seccomp-bpf -v -qq -s 65535 -xx -y -o "$out/$i.trace" -e trace=${TRACED} /bin/bash -c "$s" </dev/null >/dev/null 2>&1
  echo $? > "$out/$i.status"
  cd /
  dirty=0
  for p in "$run/ws" "$run/ws/sub" "$run/ws/.git" "$run/ws/.git/hooks" "$run/ws/a.txt" "$run/ws/sub/b.txt" "$run/ws/.env" \
      "$run/ws/.git/config" "$run/home" "$run/home/.bashrc"; do [[ -e $p && ! $p -nt $stamp ]] || dirty=1; done
  i=$((i+1))
done < "$list"
`;

/** The real files behind the stubbed names (symlinks such as awk → mawk followed), never a real program's. */
function realCopies(): string[] {
  const keep = new Set(
    REAL_PROGRAMS.flatMap((name) =>
      ["/usr/bin", "/bin"]
        .map((f) => join(f, name))
        .filter(existsSync)
        .map((p) => realpathSync(p)),
    ),
  );
  keep.add(realpathSync("/usr/bin/true"));
  const out = new Set<string>();
  for (const name of STUB_PROGRAMS) {
    for (const folder of ["/usr/bin", "/usr/sbin"]) {
      const path = join(folder, name);
      if (!existsSync(path)) continue;
      const real = realpathSync(path);
      if (!keep.has(real)) out.add(real);
    }
  }
  return [...out];
}

/** Run a batch in one sandbox. */
async function runBatch(strings: string[], fixture: Fixture, scratch: string): Promise<Observation[]> {
  const dir = mkdtempSync(join(scratch, "batch-"));
  const out = join(dir, "out");
  const stubs = join(dir, "stubs");
  mkdirSync(out);
  mkdirSync(stubs);
  for (const name of STUB_PROGRAMS) symlinkSync("/usr/bin/true", join(stubs, name));
  writeFileSync(join(dir, "list"), strings.map((s) => `${s}\0`).join(""));
  writeFileSync(join(dir, "driver.sh"), DRIVER);
  const run = join(fixture.workspace, "..");
  const tpl = join(dir, "tpl");
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    run,
    tpl,
    "--tmpfs",
    run,
    "--bind",
    out,
    out,
    "--ro-bind",
    join(dir, "list"),
    join(dir, "list"),
    "--ro-bind",
    join(dir, "driver.sh"),
    join(dir, "driver.sh"),
    "--ro-bind",
    "/usr/bin/rm",
    "/tmp/.ubq-real/rm",
    "--ro-bind",
    "/usr/bin/cp",
    "/tmp/.ubq-real/cp",
    "--ro-bind",
    stubs,
    "/usr/local/bin",
  ];
  for (const target of realCopies()) args.push("--ro-bind", "/usr/bin/true", target);
  args.push(
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/local/bin:/usr/bin:/bin",
    "--setenv",
    "HOME",
    fixture.home,
    "--setenv",
    "LC_ALL",
    "C",
    "--setenv",
    "TMPDIR",
    "/tmp",
    "--",
    "/bin/bash",
    join(dir, "driver.sh"),
    join(dir, "list"),
    out,
    tpl,
    run,
  );
  await new Promise<void>((resolvePromise, reject) => {
    const child = spawn("bwrap", args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`bwrap exited ${code}: ${stderr.slice(0, 2000)}`)),
    );
  });
  const observations = strings.map((_, i) => {
    const trace = existsSync(join(out, `${i}.trace`)) ? readFileSync(join(out, `${i}.trace`), "latin1") : "";
    const status = Number(readFileSync(join(out, `${i}.status`), "utf8").trim());
    return parseTrace(trace, status);
  });
  rmSync(dir, { recursive: true, force: true });
  return observations;
}

/** Run every string in bash inside the sandbox; batches run in parallel on the available cores. */
export async function observe(
  strings: string[],
  fixture: Fixture,
  options: { workers?: number; batchSize?: number } = {},
): Promise<Observation[]> {
  const workers = options.workers ?? Math.max(1, Math.min(availableParallelism(), 4));
  const size = options.batchSize ?? Math.max(1, Math.ceil(strings.length / workers));
  const scratch = mkdtempSync(join(tmpdir(), "ubq-diff-batches-"));
  try {
    const batches: Promise<Observation[]>[] = [];
    const queue: number[] = [];
    for (let start = 0; start < strings.length; start += size) queue.push(start);
    const results: Observation[][] = new Array(queue.length);
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const k = next++;
        const start = queue[k]!;
        results[k] = await runBatch(strings.slice(start, start + size), fixture, scratch);
      }
    };
    for (let w = 0; w < workers; w++) batches.push(worker().then(() => []));
    await Promise.all(batches);
    return results.flat();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
