/**
 * `ubiquity sandbox check`: does the sandbox work on this machine, and if not, why and how to
 * fix it. Runs a real sandbox (a read-only root, no network) rather than trusting a PATH lookup.
 * Exit code: 0 works, 1 does not, 2 usage error.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { didYouMean } from "../../src/index";
import { hostEnv } from "../_kits/process/index";
import { sandboxAvailability, INSTALL_HINT } from "./availability";
import { BRIDGE_HINT, bridgeTools } from "./bridge";
import { hasSocketFilter, socketFilter } from "./seccomp";

/** Where the command writes. */
export interface SandboxCommandIO {
  stdout(text: string): void;
  stderr(text: string): void;
}

const USAGE = `Usage: ubiquity sandbox check [--json]

Report whether the OS sandbox (sandbox option, ubiquity:sandbox) works here: the platform,
the program it uses, and a real trial (a write outside the workspace must fail, one inside
must work, the network must be off).
Exit code: 0 works, 1 does not.
`;

/** One trial inside the sandbox. */
interface Trial {
  name: string;
  ok: boolean;
  detail?: string;
}

/** `ubiquity sandbox …` with its arguments; resolves to the exit code. */
export async function sandboxCheck(argv: string[], io: SandboxCommandIO): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    io.stdout(USAGE);
    return 0;
  }
  const rest = argv.filter((a) => a !== "--json");
  if (rest.length !== 1 || rest[0] !== "check") {
    const typed =
      rest[0] !== undefined && rest[0] !== "check"
        ? ` (not ${JSON.stringify(rest[0])}${didYouMean(rest[0], ["check"])})`
        : "";
    io.stderr(`error: expected \`ubiquity sandbox check\`${typed}\n\n${USAGE}`);
    return 2;
  }
  const found = sandboxAvailability();
  const trials = found.ok && found.backend === "bubblewrap" ? trial(found.program!, found.socat) : [];
  const ok = found.ok && trials.every((t) => t.ok);
  const report = {
    ok,
    platform: found.platform,
    backend: found.backend ?? null,
    program: found.program ?? null,
    socat: found.socat ?? null,
    reason: found.reason ?? null,
    trials,
  };
  if (argv.includes("--json")) {
    io.stdout(`${JSON.stringify(report, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  const lines = [
    `platform: ${found.platform}`,
    `backend: ${found.backend ?? "none"}${found.program ? ` (${found.program})` : ""}`,
  ];
  if (found.backend === "bubblewrap") {
    lines.push(`socat: ${found.socat ?? `not installed (needed for network.allowedDomains: ${INSTALL_HINT})`}`);
    const bridge = bridgeTools();
    lines.push(
      `proxy bridge: ${"tools" in bridge ? `${bridge.tools.nsenter}, ${bridge.tools.setpriv}` : `${bridge.missing.join(", ")} not installed (needed for network.allowedDomains: ${BRIDGE_HINT})`}`,
    );
  }
  for (const t of trials) lines.push(`${t.ok ? "ok  " : "FAIL"} ${t.name}${t.detail ? `: ${t.detail}` : ""}`);
  if (found.backend === "seatbelt") lines.push("note: the macOS profile is not exercised by this check");
  if (found.backend === "bubblewrap" && !hasSocketFilter())
    lines.push(
      `note: no seccomp filter for ${process.arch}: sandboxed commands can make Unix sockets (each run warns)`,
    );
  lines.push(
    ok ? "the sandbox works here" : `the sandbox does not work here: ${found.reason ?? "a trial failed (see above)"}`,
  );
  io.stdout(`${lines.join("\n")}\n`);
  return ok ? 0 : 1;
}

function trial(bwrap: string, socat: string | undefined): Trial[] {
  const ws = mkdtempSync(join(tmpdir(), "ubiquity-sandbox-check-"));
  try {
    const base = [
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
      "--bind",
      ws,
      ws,
      "--chdir",
      ws,
      "--",
    ];
    const run = (script: string) =>
      spawnSync(bwrap, [...base, "/bin/sh", "-c", script], { encoding: "utf8", timeout: 10_000, env: hostEnv() });
    const inside = run("echo ok > inside.txt && cat inside.txt");
    const outside = run("echo x > /etc/ubiquity-sandbox-check 2>&1 || echo refused");
    const net = run("cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '");
    // The filter every command gets, and a Unix socket made under it (socat, when installed).
    const filter = socketFilter("blocked");
    const unix =
      filter && socat
        ? spawnSync(bwrap, ["--seccomp", "0", ...base, socat, "-u", "OPEN:/dev/null", "UNIX-CONNECT:absent.sock"], {
            encoding: "utf8",
            timeout: 10_000,
            input: filter,
            env: hostEnv(),
          })
        : undefined;
    return [
      {
        name: "a write inside the workspace works",
        ok: inside.stdout.trim() === "ok",
        detail: inside.stderr.trim() || undefined,
      },
      {
        name: "a write outside it is refused",
        ok: outside.stdout.includes("refused") || outside.stdout.includes("Read-only"),
      },
      {
        name: "the network is off (only lo)",
        ok: net.stdout.trim() === "lo",
        detail: `interfaces: ${net.stdout.trim() || "(none)"}`,
      },
      // Without a filter for this machine there is no trial: the note below says so.
      ...(filter
        ? [
            {
              name: "Unix sockets cannot be made (seccomp filter)",
              ok: unix === undefined || unix.stderr.includes("Operation not permitted"),
              detail: unix
                ? unix.stderr.trim().split("\n").at(-1)
                : "filter loaded; not tried (socat is not installed)",
            },
          ]
        : []),
    ];
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}
