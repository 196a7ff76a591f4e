/**
 * Can the sandbox run here? Linux needs bubblewrap (and socat for the network proxy), macOS
 * has sandbox-exec; anything else is unsupported. A real probe (`bwrap … /bin/true`) catches
 * what a PATH lookup cannot: user namespaces turned off, an AppArmor rule, a container
 * without the privilege.
 */
import { lazyRequire } from "../_kits/lazy/index";
import { agentWritableFolders, agentWritableTest, hostEnv } from "../_kits/process/index";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { UbiquityError } from "../../src/index";
import { socketFilter } from "./seccomp";

// node:child_process on first use: an ESM import of it loads net, dgram and perf code, which a
// run that spawns nothing never needs (cold start, bench/lean-profile.md).
const childProcess = lazyRequire<typeof import("node:child_process")>("node:child_process");

/** Where the sandbox stands on this machine. */
export interface SandboxAvailability {
  ok: boolean;
  platform: NodeJS.Platform;
  /** `bubblewrap` on Linux, `seatbelt` on macOS. */
  backend?: "bubblewrap" | "seatbelt";
  /** The program that builds the sandbox (bwrap, sandbox-exec). */
  program?: string;
  /** socat, which carries the network proxy into the sandbox (Linux, allowedDomains only). */
  socat?: string;
  /** Why not, and how to fix it. */
  reason?: string;
}

/** The install line for bubblewrap, named in every error about it. */
export const INSTALL_HINT =
  "install it with `apt-get install bubblewrap socat` (Debian/Ubuntu; `dnf install bubblewrap socat` on Fedora, `pacman -S bubblewrap socat` on Arch)";

/** The sandbox was asked for and cannot start. */
export class SandboxUnavailableError extends UbiquityError {}

/**
 * The first executable `name` in an absolute folder of PATH that the agent cannot write. A relative
 * entry (`./bin`) names a folder of wherever the process runs, the project: its `bwrap` would be
 * the sandbox (red team i, I4); so would an absolute one inside the workspace or another writable
 * folder (`/home/u/proj/bin`, red team j, J1), or a program there linked to from elsewhere.
 */
/** Where `path` leads (itself when it does not exist). */
function resolvedProgram(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function which(name: string, path = process.env.PATH ?? ""): string | undefined {
  const agentWrote = agentWritableTest();
  for (const dir of [...path.split(delimiter), "/usr/bin", "/bin"]) {
    if (!dir || !isAbsolute(dir)) continue;
    // The executable check first: it is one call, the folder checks resolve links (most PATH
    // folders have no such program, and a missing socat went through every one).
    try {
      accessSync(join(dir, name), constants.X_OK);
    } catch {
      continue;
    }
    if (agentWrote(dir) || agentWrote(dirname(resolvedProgram(join(dir, name))))) continue;
    return join(dir, name);
  }
  return undefined;
}

const cache = new Map<string, SandboxAvailability>();

/** Check (once per process and PATH) whether the sandbox works here. */
export function sandboxAvailability(
  platform: NodeJS.Platform = process.platform,
  bwrapPath?: string,
): SandboxAvailability {
  const key = `${platform}:${bwrapPath ?? ""}:${process.env.PATH ?? ""}:${process.cwd()}:${agentWritableFolders().join(delimiter)}`;
  let hit = cache.get(key);
  if (!hit) {
    hit = probe(platform, bwrapPath);
    cache.set(key, hit);
  }
  return hit;
}

function probe(platform: NodeJS.Platform, bwrapPath?: string): SandboxAvailability {
  if (platform === "darwin") {
    const program = which("sandbox-exec");
    return program
      ? { ok: true, platform, backend: "seatbelt", program }
      : {
          ok: false,
          platform,
          backend: "seatbelt",
          reason: "sandbox-exec was not found (it ships with macOS in /usr/bin)",
        };
  }
  if (platform !== "linux")
    return {
      ok: false,
      platform,
      reason: `the sandbox supports Linux (bubblewrap) and macOS (Seatbelt), not ${platform}`,
    };
  const program = bwrapPath ? (existsSync(bwrapPath) ? bwrapPath : undefined) : which("bwrap");
  const socat = which("socat");
  if (!program)
    return {
      ok: false,
      platform,
      backend: "bubblewrap",
      socat,
      reason: `bubblewrap (bwrap) is not installed: ${INSTALL_HINT}`,
    };
  // A trial run costs ~5 ms, paid by every run now that the sandbox is on by default: a success is
  // remembered for this boot and this bwrap (a failure never is, so a fix is seen at once).
  const stamp = probeStamp(program);
  if (stamp && readProbeCache() === stamp) return { ok: true, platform, backend: "bubblewrap", program, socat };
  // With the socket filter every command gets (a kernel without seccomp filters makes bwrap fail
  // at every command: better said here, once, as the sandbox not working).
  const filter = socketFilter("blocked");
  const run = childProcess().spawnSync(
    program,
    [
      ...(filter ? ["--seccomp", "0"] : []),
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--proc",
      "/proc",
      "--unshare-all",
      "--die-with-parent",
      "--new-session",
      "--cap-drop",
      "ALL",
      "--",
      "/bin/true",
    ],
    {
      encoding: "utf8",
      timeout: 10_000,
      env: hostEnv(),
      ...(filter ? { input: filter } : {}),
    },
  );
  if (run.status !== 0) {
    const why = (run.stderr || run.error?.message || `exit ${run.status}`).trim();
    return {
      ok: false,
      platform,
      backend: "bubblewrap",
      program,
      socat,
      reason: `${program} is installed but cannot create a sandbox here (${why}); unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile for bwrap)`,
    };
  }
  if (stamp) writeProbeCache(stamp);
  return { ok: true, platform, backend: "bubblewrap", program, socat };
}

function probeCachePath(): string {
  const base = process.env.XDG_CACHE_HOME || join(process.env.HOME || homedir(), ".cache");
  return join(base, "ubiquity", "sandbox-probe");
}

/** What a remembered success is valid for: this boot, this user, this bwrap file, the user-namespace settings. */
function probeStamp(program: string): string | undefined {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const info = statSync(program);
    const userns = [
      "/proc/sys/kernel/unprivileged_userns_clone",
      "/proc/sys/user/max_user_namespaces",
      "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
    ]
      .map((p) => {
        try {
          return readFileSync(p, "utf8").trim();
        } catch {
          return "-";
        }
      })
      .join(",");
    return `v2 ${boot} ${process.getuid?.() ?? "-"} ${program} ${info.size} ${info.mtimeMs} ${userns}`;
  } catch {
    return undefined;
  }
}

function readProbeCache(): string | undefined {
  try {
    return readFileSync(probeCachePath(), "utf8");
  } catch {
    return undefined;
  }
}

function writeProbeCache(stamp: string): void {
  const path = probeCachePath();
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}`;
    writeFileSync(temp, stamp);
    renameSync(temp, path);
  } catch {
    // a read-only home: the probe runs again next time
  }
}
