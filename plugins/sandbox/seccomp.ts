/**
 * The seccomp filter bwrap applies to every sandboxed command (`--seccomp FD`): a classic BPF
 * program, assembled here (no native helper). A Unix socket a host process listens on is a file
 * the sandbox may see (the workspace, a bound folder), no network namespace's, and connect()
 * needs no write access; so the filter refuses to make one:
 * - socket(): only AF_INET, AF_INET6 and AF_NETLINK (all scoped to the sandbox's network
 *   namespace); AF_UNIX fails with EPERM, every other family (AF_VSOCK reaches the hypervisor,
 *   whatever the namespace) with EAFNOSUPPORT;
 * - socketpair(): AF_UNIX stream and seqpacket only (a connected pair, that can connect nowhere
 *   else); a datagram pair fails with EPERM (a datagram socket can be connected, or sendto(), to
 *   any path);
 * - io_uring_setup/enter/register: EPERM (IORING_OP_SOCKET makes a socket past the filter);
 * - add_key/request_key/keyctl: EPERM. The kernel's keyrings are not namespaced: a key a command
 *   adds outlives it, in the user's quota, and the user's own keyrings are one call away (Docker's
 *   default profile refuses them too);
 * - perf_event_open, bpf and userfaultfd: EPERM. No build or test needs them, they need no
 *   capability (as far as the machine's sysctls let an unprivileged user: perf_event_paranoid,
 *   unprivileged_bpf_disabled, unprivileged_userfaultfd), and they are where the kernel's
 *   exploits that leave a sandbox usually start (userfaultfd holds a kernel thread mid-copy for a
 *   race; perf and eBPF are large parsers of untrusted input). Docker's default profile refuses
 *   them too (red team zb, ZB2);
 * - a mode with the set-user-ID or set-group-ID bit (chmod, fchmod, fchmodat, fchmodat2, and
 *   open, openat, creat, mknod, mknodat, whose mode a new file gets): EPERM. Such a file outlives
 *   the command on the host and runs with its owner's rights for whoever starts it: a sandboxed
 *   `cp /bin/sh x && chmod u+s x`, run as root, left a root shell for every user of the machine
 *   (red team z, Z5). openat2, whose mode is behind a pointer the filter cannot read: ENOSYS (its
 *   callers fall back to openat);
 * - any other ABI than the machine's own (i386 `int 0x80` with its socketcall(), x32, arm32):
 *   the process is killed (SIGSYS), as its system call numbers are not the ones checked here.
 * Machines with no filter here (not x86_64 or aarch64) get no filter, and the sandbox says so in
 * its warning at every run's start.
 */
import { closeSync, openSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxSettings } from "./config";

// Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const AND_K = 0x54;
const RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const retErrno = (errno: number) => 0x00050000 | errno;
const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;
/** S_ISUID | S_ISGID: a mode that makes a file run with its owner's (or group's) rights. */
const SET_ID = 0o6000;

// Offsets in struct seccomp_data: nr, arch, then args[] (u64 each; the low half is first, little-endian).
const NR = 0;
const ARCH = 4;
const ARG0 = 16;
const ARG1 = 24;
const argAt = (index: number) => ARG0 + 8 * index;

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const AF_NETLINK = 16;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** socket()'s type without SOCK_NONBLOCK and SOCK_CLOEXEC (the kernel's SOCK_TYPE_MASK). */
const SOCK_TYPE_MASK = 0xf;

/** One machine's ABI: the audit arch seccomp reports, and its system call numbers. */
interface Abi {
  audit: number;
  socket: number;
  socketpair: number;
  /** io_uring's, the keyring's, perf's, eBPF's and userfaultfd's calls: refused (EPERM). */
  refused: number[];
  /** Numbers from this bit up are another ABI sharing the arch (x32 on x86_64). */
  foreignBit?: number;
  /** The calls that set a file's mode, each with the index of its mode argument. */
  modes: [nr: number, arg: number][];
  /** openat2: its mode is in a struct the filter cannot read. */
  openat2: number;
}

/** The ABIs with a filter, by `process.arch`. */
const ABIS: Record<string, Abi> = {
  x64: {
    audit: 0xc000003e,
    socket: 41,
    socketpair: 53,
    // io_uring_setup/enter/register, add_key, request_key, keyctl, perf_event_open, bpf, userfaultfd.
    refused: [425, 426, 427, 248, 249, 250, 298, 321, 323],
    foreignBit: 0x40000000,
    // chmod, fchmod, fchmodat, fchmodat2, open, openat, creat, mknod, mknodat.
    modes: [
      [90, 1],
      [91, 1],
      [268, 2],
      [452, 2],
      [2, 2],
      [257, 3],
      [85, 1],
      [133, 1],
      [259, 2],
    ],
    openat2: 437,
  },
  arm64: {
    audit: 0xc00000b7,
    socket: 198,
    socketpair: 199,
    refused: [425, 426, 427, 217, 218, 219, 241, 280, 282],
    // fchmod, fchmodat, fchmodat2, openat, mknodat (the generic table has no chmod, open, creat or mknod).
    modes: [
      [52, 1],
      [53, 2],
      [452, 2],
      [56, 3],
      [33, 2],
    ],
    openat2: 437,
  },
};

/** One instruction: `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`. */
export interface Insn {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** An instruction whose jumps name labels (undefined: the next instruction), or a label. */
type Line = { code: number; k: number; jt?: string; jf?: string } | { label: string };

const ret = (k: number): Line => ({ code: RET_K, k });
const load = (offset: number): Line => ({ code: LD_W_ABS, k: offset });
const ifEq = (k: number, jt?: string, jf?: string): Line => ({ code: JEQ_K, k, jt, jf });

/** Resolve labels into the forward offsets BPF jumps take (at most 255; the programs here are short). */
function assemble(lines: readonly Line[]): Insn[] {
  const where = new Map<string, number>();
  let count = 0;
  for (const line of lines) {
    if ("label" in line) where.set(line.label, count);
    else count++;
  }
  const out: Insn[] = [];
  for (const line of lines) {
    if ("label" in line) continue;
    const here = out.length;
    const offset = (label?: string) => {
      if (label === undefined) return 0;
      const target = where.get(label);
      if (target === undefined || target <= here || target - here - 1 > 255)
        throw new Error(`seccomp: bad jump to ${label} at ${here}`);
      return target - here - 1;
    };
    out.push({ code: line.code, k: line.k >>> 0, jt: offset(line.jt), jf: offset(line.jf) });
  }
  return out;
}

/**
 * The instructions of the filter for `abi`. With `unix` allowed (the user's allowAllUnixSockets),
 * AF_UNIX sockets and every socketpair are let through; the rest holds. The proxy's bridge needs
 * no Unix socket inside: it runs outside the filter (bridge.ts).
 */
export function filterProgram(abi: Abi, unix: "blocked" | "allowed" = "blocked"): Insn[] {
  const open = unix === "allowed";
  return assemble([
    load(ARCH),
    ifEq(abi.audit, undefined, "kill"),
    load(NR),
    ...(abi.foreignBit === undefined ? [] : [{ code: JGE_K, k: abi.foreignBit, jt: "kill" }]),
    ...abi.refused.map((nr) => ifEq(nr, "deny")),
    ifEq(abi.socket, "socket"),
    ifEq(abi.socketpair, open ? "allow" : "socketpair"),
    ...abi.modes.map(([nr, arg]) => ifEq(nr, `mode${arg}`)),
    ifEq(abi.openat2, "nosys"),
    ret(RET_ALLOW),
    // A mode argument (its low half: mode_t is 32 bits) with a set-ID bit is refused.
    ...[...new Set(abi.modes.map(([, arg]) => arg))].flatMap((arg): Line[] => [
      { label: `mode${arg}` },
      load(argAt(arg)),
      { code: AND_K, k: SET_ID },
      ifEq(0, "allow", "deny"),
    ]),
    { label: "nosys" },
    ret(retErrno(ENOSYS)),
    { label: "socket" },
    // The family is an int: the kernel reads the low half of the register only, as here.
    load(ARG0),
    ifEq(AF_INET, "allow"),
    ifEq(AF_INET6, "allow"),
    ifEq(AF_NETLINK, "allow"),
    ifEq(AF_UNIX, open ? "allow" : "deny"),
    ret(retErrno(EAFNOSUPPORT)),
    { label: "socketpair" },
    load(ARG0),
    ifEq(AF_UNIX, undefined, "deny"),
    load(ARG1),
    { code: AND_K, k: SOCK_TYPE_MASK },
    ifEq(SOCK_STREAM, "allow"),
    ifEq(SOCK_SEQPACKET, "allow"),
    { label: "deny" },
    ret(retErrno(EPERM)),
    { label: "allow" },
    ret(RET_ALLOW),
    { label: "kill" },
    ret(RET_KILL_PROCESS),
  ]);
}

/** The program as bwrap reads it: struct sock_filter entries, little-endian, 8 bytes each. */
export function encodeProgram(program: readonly Insn[]): Buffer {
  const out = Buffer.alloc(program.length * 8);
  program.forEach((insn, i) => {
    out.writeUInt16LE(insn.code, i * 8);
    out.writeUInt8(insn.jt, i * 8 + 2);
    out.writeUInt8(insn.jf, i * 8 + 3);
    out.writeUInt32LE(insn.k >>> 0, i * 8 + 4);
  });
  return out;
}

/** Does this machine have a filter (x86_64, aarch64)? */
export const hasSocketFilter = (arch: string = process.arch): boolean => ABIS[arch] !== undefined;

/** The filter for this machine (`process.arch`), or undefined where there is none. */
export function socketFilter(unix: "blocked" | "allowed", arch: string = process.arch): Buffer | undefined {
  const abi = ABIS[arch];
  return abi ? encodeProgram(filterProgram(abi, unix)) : undefined;
}

/**
 * The filters of one run, each written once to a file in the run's private folder, opened, and
 * unlinked at once: no path leads to it any more, so no sandboxed process (which may write
 * where that folder is) can change it; bwrap's launcher reads it through this process's open
 * descriptor (`/proc/<pid>/fd/<n>`).
 */
export class SocketFilters {
  readonly #dir: string;
  readonly #fds = new Map<string, number>();

  constructor(dir: string) {
    this.#dir = dir;
  }

  /** The path to read the filter from, or undefined on a machine with none. */
  path(unix: "blocked" | "allowed"): string | undefined {
    let fd = this.#fds.get(unix);
    if (fd === undefined) {
      const program = socketFilter(unix);
      if (!program) return undefined;
      const file = join(this.#dir, `seccomp-${unix}.bpf`);
      writeFileSync(file, program, { mode: 0o400, flag: "wx" });
      fd = openSync(file, "r");
      unlinkSync(file);
      this.#fds.set(unix, fd);
    }
    return `/proc/${process.pid}/fd/${fd}`;
  }

  close(): void {
    for (const fd of this.#fds.values()) closeSync(fd);
    this.#fds.clear();
  }
}

/** The descriptor bwrap reads the filter from (the launcher opens it there: pin.ts, bridge.ts). */
export const FILTER_FD = 9;

/**
 * What the run's warning says about Unix sockets, when sandboxed processes can make them or a
 * setting asks for what cannot be given; undefined when they are blocked as asked.
 */
export function unixSocketWarning(settings: SandboxSettings, arch: string = process.arch): string | undefined {
  if (settings.unixSockets === "allowed") return undefined;
  const notes: string[] = [];
  if (!ABIS[arch])
    notes.push(
      `sandboxed commands can make Unix sockets and so reach any host socket they can see (docker, ssh-agent): there is no seccomp filter for ${arch}`,
    );
  if (settings.unixSocketPaths.length > 0)
    notes.push(
      `network.allowUnixSockets (${settings.unixSocketPaths.join(", ")}) is not honoured on Linux, where a socket's path cannot be filtered: Unix sockets stay blocked; set network.allowAllUnixSockets: true to allow every one`,
    );
  return notes.length > 0 ? notes.join("; ") : undefined;
}
