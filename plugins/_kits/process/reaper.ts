/**
 * Process hygiene without the sandbox: every process a command starts ends with it, including
 * the ones that left its process group (`setsid`, `setsid -f`, a daemon that double-forks).
 *
 * A process group is not a boundary: any process may start a session of its own, and once its
 * parent exits it is adopted by init, out of reach. Linux's answer is a *child subreaper*
 * (`prctl(PR_SET_CHILD_SUBREAPER)`): orphans are adopted by the nearest ancestor that is one,
 * whatever their session or group. Node cannot call prctl, so a few lines of Perl (part of every
 * Debian and Ubuntu base system) stand between us and the shell:
 *
 *   1. become a subreaper, and ask for SIGTERM when this program dies (`PR_SET_PDEATHSIG`);
 *   2. fork the shell into a process group of its own and wait for it;
 *   3. when it exits, freeze the shell's group (SIGSTOP: no more forks, and each member is still
 *      seen alive, so it is named); on SIGTERM (the call was cut short, or this program died) kill
 *      it. Then kill and reap every child it has until it has none: each one killed hands its own
 *      children to the reaper, so the sweep reaches the whole tree. A zombie whose other threads
 *      still run is killed too; one whose /proc entry cannot be read is killed all the same;
 *   4. report on fd 3 what it killed, the shell's status, and `done` once the kernel says it has
 *      no child left (ECHILD) — never because it could not see any. A reader that died does not
 *      kill it mid-sweep (SIGPIPE is ignored; the command gets the default back).
 *
 * No process that descends from the command escapes this (only one that asked another,
 * unrelated process to start it — a scheduler or a running server). Where the helper cannot
 * run (not Linux, no Perl, an unknown CPU's syscall number), the process group is all there is,
 * and {@link ReaperReport.contained} is false so that nobody claims more.
 *
 * Inside the sandbox none of this is needed: bubblewrap's PID namespace ends every process in it.
 */
import { existsSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import type { Readable } from "node:stream";

// SYS_prctl per CPU (asm/unistd.h); PR_SET_CHILD_SUBREAPER is 36, PR_SET_PDEATHSIG 1.
const SYS_PRCTL: Partial<Record<NodeJS.Architecture, number>> = {
  x64: 157,
  arm64: 167,
  riscv64: 167,
  loong64: 167,
  arm: 172,
  ia32: 172,
  s390x: 172,
  ppc64: 171,
};

// Only builtins (no `use`): it starts in 2-3 ms. Environment variables that steer Perl itself
// (PERL5OPT, PERL5LIB, PERL_SIGNALS, …) reach the helper renamed, so they cannot change it, and
// are put back for the command.
const SCRIPT = String.raw`
my ($nr, $parent, @cmd) = @ARGV;
open(my $out, '>&=', 3) or exit 126;
fcntl($out, 2, 1);
$SIG{PIPE} = 'IGNORE';
sub report { syswrite($out, "$_[0]\n") }
my $sub = syscall($nr + 0, 36, 1, 0, 0, 0) == 0 ? 1 : 0;
syscall($nr + 0, 1, 15, 0, 0, 0);
my ($pid, $stop) = (0, 0);
$SIG{$_} = sub { $stop = 1; kill('KILL', -$pid) if $pid } for qw(TERM INT HUP);
report("reaper $sub");
open(my $children, '<', "/proc/$$/task/$$/children");
for my $k (keys %ENV) { $ENV{substr($k, 14)} = delete $ENV{$k} if index($k, "UBIQUITY_PERL_") == 0 }
$pid = fork();
if (!defined $pid) { report("error fork: $!"); exit 126 }
if ($pid == 0) { $SIG{$_} = 'DEFAULT' for qw(TERM INT HUP PIPE); setpgrp(0, 0); exec { $cmd[0] } @cmd; exit 127 }
setpgrp($pid, $pid);
report("shell $pid");
$stop = 1 if getppid() != $parent;
kill('KILL', -$pid) if $stop;
my $r;
do { $r = waitpid($pid, 0) } until $r == $pid || ($r == -1 && $! + 0 != 4);
my $status = $?;
kill($stop ? 'KILL' : 'STOP', -$pid);
my (%seen, $clean);
for my $round (0 .. 2000) {
  1 while waitpid(-1, 1) > 0;
  my @kids;
  if ($children) { my $b = ''; sysseek($children, 0, 0); 1 while sysread($children, $b, 65536, length $b) > 0; @kids = split ' ', $b }
  elsif (opendir(my $d, '/proc')) { for (readdir $d) { next unless /^\d+$/; open(my $f, '<', "/proc/$_/stat") or next; my $s = <$f> // ''; push @kids, $_ if (split ' ', substr($s, rindex($s, ')') + 2))[1] == $$ } }
  if (!@kids && waitpid(-1, 1) == -1 && $! + 0 == 10) { $clean = 1; last }
  for my $k (@kids) {
    my $s = '';
    if (open(my $f, '<', "/proc/$k/stat")) { $s = <$f> // '' }
    kill('KILL', $k);
    my @f = $s eq '' ? ('?') : split(' ', substr($s, rindex($s, ')') + 2));
    next if $f[0] =~ /[ZX]/ && ($f[17] // 0) <= 1;
    my $comm = $s eq '' ? '?' : substr($s, index($s, '(') + 1, rindex($s, ')') - index($s, '(') - 1);
    $comm =~ s/[^\x20-\x7e]/?/g;
    report("killed $k $comm") unless $seen{$k}++;
  }
  select(undef, undef, undef, 0.005);
}
kill('KILL', -$pid);
report($status & 127 ? "status signal " . ($status & 127) : "status exit " . ($status >> 8));
report($clean ? "done" : "incomplete");
exit($status & 127 ? 128 + ($status & 127) : $status >> 8);
`;

const PERL_RENAMED = "UBIQUITY_PERL_";

let perl: string | null | undefined;

/** Perl on the absolute entries of PATH (or /usr/bin/perl), cached; null when there is none. */
function findPerl(): string | null {
  if (perl !== undefined) return perl;
  const dirs = (process.env.PATH ?? "").split(":").filter((d) => isAbsolute(d));
  perl = ["/usr/bin", ...dirs].map((d) => join(d, "perl")).find((p) => existsSync(p)) ?? null;
  return perl;
}

/** Whether spawns can run under the reaper on this machine (Linux, Perl, a known CPU). */
export function reaperAvailable(): boolean {
  return (
    process.platform === "linux" &&
    SYS_PRCTL[process.arch] !== undefined &&
    findPerl() !== null &&
    process.env.UBIQUITY_NO_REAPER !== "1"
  );
}

/** A spawn: the program, its arguments and its environment. */
export interface ReapableSpawn {
  command: string;
  args: string[];
  env?: Record<string, string | undefined>;
}

/**
 * The spawn run under the reaper, or undefined where it cannot run. The caller spawns it
 * `detached`, with a fourth stdio entry `"pipe"` for the report ({@link readReaperReport}), and
 * ends it with {@link stopSpawn} (SIGTERM to the reaper, never SIGKILL to its group).
 */
export function underReaper<S extends ReapableSpawn>(spec: S): S | undefined {
  if (!reaperAvailable()) return undefined;
  const env: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(spec.env ?? process.env))
    env[name.startsWith("PERL") ? PERL_RENAMED + name : name] = value;
  return {
    ...spec,
    command: findPerl()!,
    args: ["-e", SCRIPT, "--", String(SYS_PRCTL[process.arch]), String(process.pid), spec.command, ...spec.args],
    env,
  };
}

/** What the reaper did. */
export interface ReaperReport {
  /** True when the reaper ran as a subreaper and confirmed that no process of the command is left. */
  contained: boolean;
  /** The processes it killed after the command's shell ended (or was stopped), in order. */
  killed: { pid: number; command: string }[];
  /** The shell's pid, which leads its own process group (known as soon as it started). */
  shell?: number;
  /** True once the reaper said it finished (`done` or `incomplete`): false means it was killed. */
  finished: boolean;
  /** The shell's own ending (the reaper's exit mirrors it; this is exact). */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

const SIGNAL_NAMES: Record<number, NodeJS.Signals> = {
  1: "SIGHUP",
  2: "SIGINT",
  3: "SIGQUIT",
  6: "SIGABRT",
  9: "SIGKILL",
  13: "SIGPIPE",
  14: "SIGALRM",
  15: "SIGTERM",
};

/** The reaper's report as it comes in on fd 3: what it said so far, and all of it once it closes. */
export function readReaperReport(stream: Readable): { now(): ReaperReport; done: Promise<ReaperReport> } {
  let text = "";
  stream.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  const done = new Promise<ReaperReport>((resolve) => {
    const end = () => resolve(parseReaperReport(text));
    stream.once("close", end).once("error", end);
  });
  return { now: () => parseReaperReport(text), done };
}

/**
 * Parse the reaper's report lines (exported for tests). Containment is claimed only for the
 * report the reaper writes: one `reaper 1`, one `status`, and `done` once, as its last line.
 * Anything else (a line written after `done`, a second one) means someone else wrote on fd 3.
 */
export function parseReaperReport(text: string): ReaperReport {
  const report: ReaperReport = { contained: false, finished: false, killed: [], exitCode: null, signal: null };
  let subreaper = false;
  const count: Record<string, number> = {};
  const lines = text.split("\n").filter((line) => line !== "");
  for (const line of lines) {
    const [word, a, ...rest] = line.split(" ");
    count[word!] = (count[word!] ?? 0) + 1;
    // The reaper writes these two first (before the command runs); a later copy is forged (a
    // process of the same user can copy the channel with pidfd_getfd) and is ignored.
    if (word === "reaper") {
      if (count.reaper === 1) subreaper = a === "1";
    } else if (word === "shell") report.shell ??= Number(a);
    else if (word === "killed") report.killed.push({ pid: Number(a), command: rest.join(" ") });
    else if (word === "status" && a === "exit") report.exitCode = Number(rest[0]);
    else if (word === "status" && a === "signal")
      report.signal = SIGNAL_NAMES[Number(rest[0])] ?? (`SIG${rest[0]}` as NodeJS.Signals);
    else if (word === "done" || word === "incomplete") report.finished = true;
  }
  report.contained =
    subreaper &&
    lines.at(-1) === "done" &&
    count.done === 1 &&
    count.reaper === 1 &&
    count.status === 1 &&
    !count.incomplete;
  return report;
}

/**
 * End a spawn for good. Under the reaper: SIGTERM to the reaper alone (after SIGCONT, in case
 * the command stopped it), which kills the whole tree and reports it (a SIGKILL to its group would
 * kill the reaper first and free the rest). Otherwise: SIGKILL to the process group.
 */
export function stopSpawn(pid: number, reaper: boolean): void {
  const send = (target: number, signal: NodeJS.Signals) => {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  };
  if (!reaper) {
    send(-pid, "SIGKILL");
    return;
  }
  send(pid, "SIGCONT");
  send(pid, "SIGTERM");
}

/** How the model reads the processes the reaper killed: "sleep (pid 12), node (pid 40)". */
export function describeKilled(killed: ReaperReport["killed"], max = 8): string {
  const named = killed.slice(0, max).map((k) => `${k.command} (pid ${k.pid})`);
  return killed.length > max ? `${named.join(", ")} and ${killed.length - max} more` : named.join(", ");
}
