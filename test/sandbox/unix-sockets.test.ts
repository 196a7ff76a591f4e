/**
 * The seccomp filter bwrap applies to sandboxed commands: no Unix socket (a host socket the
 * sandbox can see — docker's, an ssh-agent's, a dev server's — is no network namespace's), no
 * io_uring, no keyring calls, no other ABI; socketpair and the namespace's own TCP/UDP still work. Probed with
 * python3 inside the real bwrap; allowAllUnixSockets turns it off.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedModel } from "ubiquity/testing";
import { summon } from "ubiquity";
import { collect } from "../helpers/collect";
import type { ResolvedOptions } from "ubiquity/plugin";
import { sandboxSettings } from "../../plugins/sandbox/config";
import { socketFilter, unixSocketWarning } from "../../plugins/sandbox/seccomp";
import { filterVerdict as verdict } from "./filter-verdict";
import { hostSocket, outputs, runBash, sandboxPlace, SKIP } from "./helpers";

const place = sandboxPlace();
const PROBE = join(import.meta.dirname, "fixtures", "socket-probe.py");
const run = { sandbox: true, permissionMode: "bypassPermissions" } as const;

const connect = `python3 -c "import socket;s=socket.socket(socket.AF_UNIX);s.connect('dev.sock');print(s.recv(99))"`;

describe.skipIf(SKIP)("the sandbox's socket filter", () => {
  it("refuses AF_UNIX sockets (EPERM), datagram socketpairs, other families, io_uring and the keyring calls; stream socketpairs, TCP, UDP and loopback work, as do ordinary commands", async () => {
    const ws = place.ws();
    copyFileSync(PROBE, join(ws, "probe.py"));
    const out = outputs(
      await runBash(
        [
          "python3 probe.py",
          "git --version && node -e 'console.log(6*7)' && npm --version && ls probe.py && python3 -c 'print(\"py ok\")'",
          "curl -sS -m 5 http://127.0.0.1:9/ ; echo curl-exit=$?",
        ],
        { cwd: ws, ...run },
      ),
    );
    const probed = Object.fromEntries(
      out
        .c0!.content.trim()
        .split("\n")
        .map((l) => l.split(" "))
        .map(([name, ...rest]) => [name, rest.join(" ")]),
    );
    expect(probed).toEqual({
      unix: "ERR EPERM",
      unix_dgram: "ERR EPERM",
      unix_high_bits: "ERR EPERM",
      socketpair: "OK",
      socketpair_seqpacket: "OK",
      socketpair_dgram: "ERR EPERM",
      tcp: "OK",
      udp6: "OK",
      netlink: "OK",
      vsock: "ERR EAFNOSUPPORT",
      loopback: "OK",
      io_uring_setup: "ERR EPERM",
      add_key: "ERR EPERM",
      keyctl: "ERR EPERM",
    });
    expect(out.c1!.content).toMatch(/git version [\s\S]*\n42\n[\d.]+\nprobe\.py\npy ok/);
    expect(out.c1!.isError).toBe(false);
    // curl runs and fails to connect (nothing listens; no Unix socket is needed for that).
    expect(out.c2!.content).toContain("curl-exit=7");
  });

  it("kills a process that makes a system call of another ABI (x32, i386 int 0x80): their numbers are not the ones checked", async () => {
    const ws = place.ws();
    copyFileSync(PROBE, join(ws, "probe.py"));
    const out = outputs(
      await runBash(["python3 probe.py x32; echo status=$?", "python3 probe.py int80; echo status=$?"], {
        cwd: ws,
        ...run,
      }),
    );
    // 159: killed by SIGSYS (128 + 31), before the probe could print anything.
    expect(out.c0!.content).toContain("status=159");
    expect(out.c0!.content).not.toContain("x32 ");
    expect(out.c1!.content).toContain("status=159");
    expect(out.c1!.content).not.toContain("int80 ");
  });

  it("the model hears why: a host socket's connect fails with Operation not permitted, and the system prompt says Unix sockets cannot be made", async () => {
    const ws = place.ws();
    const host = await hostSocket(ws);
    const model = scriptedModel([{ toolCalls: [{ toolName: "Bash", input: { command: connect }, id: "c0" }] }, "done"]);
    try {
      const out = outputs(
        await collect(summon("go", { model, cwd: ws, ...run, persistSession: false, persistTodos: false })),
      );
      expect(out.c0!.content).toContain("Operation not permitted");
    } finally {
      host.close();
    }
    expect(host.hits).toEqual([]);
    expect(JSON.stringify(model.requests[0]!.prompt[0])).toContain("No Unix sockets");
  });

  it("network.allowAllUnixSockets lets sandboxed commands reach a host socket again", async () => {
    const ws = place.ws();
    const host = await hostSocket(ws);
    try {
      const out = outputs(
        await runBash([connect], { cwd: ws, ...run, sandbox: { network: { allowAllUnixSockets: true } } }),
      );
      expect(out.c0!.content).toContain("HELLO-FROM-HOST");
    } finally {
      host.close();
    }
    expect(host.hits).toEqual(["connected"]);
  });

  it("says at start where a Unix socket setting cannot be honoured (allowUnixSockets paths); allowedDomains keeps them blocked", async () => {
    const warningOf = async (sandbox: object) => {
      const messages = await collect(
        summon("hi", {
          model: scriptedModel(["done"]),
          cwd: place.ws(),
          sandbox,
          persistSession: false,
          persistTodos: false,
        }),
      );
      const init = messages.find((m) => m.type === "system" && m.subtype === "init");
      return init && "sandbox" in init ? init.sandbox?.warning : undefined;
    };
    expect(await warningOf({})).toBeUndefined();
    expect(await warningOf({ network: { allowedDomains: ["example.com"] } })).toBeUndefined();
    expect(await warningOf({ network: { allowUnixSockets: ["/var/run/docker.sock"] } })).toContain(
      "network.allowUnixSockets (/var/run/docker.sock) is not honoured on Linux",
    );
  });
});

describe("the socket filter where there is none", () => {
  const settings = (sandbox: unknown) =>
    sandboxSettings({ cwd: "/w", sandbox } as unknown as ResolvedOptions, "/h", {});

  it("a machine without a filter (riscv64) gets none, and the warning says Unix sockets are open there; an ABI with one gets a program", () => {
    expect(socketFilter("blocked", "riscv64")).toBeUndefined();
    expect(socketFilter("blocked", "arm64")!.length % 8).toBe(0);
    expect(unixSocketWarning(settings(true), "riscv64")).toContain("there is no seccomp filter for riscv64");
    expect(unixSocketWarning(settings(true), "x64")).toBeUndefined();
    expect(unixSocketWarning(settings({ network: { allowAllUnixSockets: true } }), "riscv64")).toBeUndefined();
  });
});

describe("the socket filter's program", () => {
  const AARCH64 = 0xc00000b7;
  const ARM = 0x40000028;
  const X86_64 = 0xc000003e;
  const I386 = 0x40000003;

  it("aarch64: socket(AF_UNIX) and a datagram socketpair are refused, a stream socketpair, TCP and other calls pass, io_uring is refused, arm32 is killed", () => {
    const p = socketFilter("blocked", "arm64")!;
    expect(verdict(p, AARCH64, 198, [1, 1, 0])).toBe("errno 1");
    expect(verdict(p, AARCH64, 198, [2, 1, 0])).toBe("allow");
    expect(verdict(p, AARCH64, 198, [40, 1, 0])).toBe("errno 97");
    expect(verdict(p, AARCH64, 199, [1, 1 | 0x80000, 0])).toBe("allow");
    expect(verdict(p, AARCH64, 199, [1, 2, 0])).toBe("errno 1");
    expect(verdict(p, AARCH64, 425)).toBe("errno 1");
    expect(verdict(p, AARCH64, 219)).toBe("errno 1"); // keyctl
    expect(verdict(p, AARCH64, 63)).toBe("allow");
    expect(verdict(p, ARM, 281, [1, 1, 0])).toBe("kill");
  });

  it("x86_64: the same, x32 and i386 (socketcall included) are killed; with Unix sockets allowed only AF_UNIX and socketpairs change", () => {
    const p = socketFilter("blocked", "x64")!;
    expect(verdict(p, X86_64, 41, [1, 1, 0])).toBe("errno 1");
    expect(verdict(p, X86_64, 41, [10, 2, 0])).toBe("allow");
    expect(verdict(p, X86_64, 53, [1, 5, 0])).toBe("allow");
    expect(verdict(p, X86_64, 53, [1, 2, 0])).toBe("errno 1");
    expect(verdict(p, X86_64, 41 | 0x40000000, [1, 1, 0])).toBe("kill");
    expect(verdict(p, I386, 102, [1])).toBe("kill");
    const open = socketFilter("allowed", "x64")!;
    expect(verdict(open, X86_64, 41, [1, 1, 0])).toBe("allow");
    expect(verdict(open, X86_64, 53, [1, 2, 0])).toBe("allow");
    expect(verdict(open, X86_64, 41, [40, 1, 0])).toBe("errno 97");
    expect(verdict(open, X86_64, 426)).toBe("errno 1");
    expect(verdict(open, X86_64, 248)).toBe("errno 1"); // add_key
    expect(verdict(open, I386, 359, [1, 1, 0])).toBe("kill");
  });
});
