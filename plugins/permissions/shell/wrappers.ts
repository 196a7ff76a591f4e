/**
 * Programs that run another command: where that command starts in their arguments, or which
 * option carries it as shell text. A deny rule must see through all of them (`flock x rm`,
 * `chroot / rm`, `su -c 'rm …'`), and an allow rule must cover what they run.
 */
import { hasOption, scanOptions, type OptionScan, type OptionSpec } from "./options";
import { charsetRisk, isHarmlessExport } from "./names";
import { literalWord, type ShellWord } from "./words";
import type { ShellAnalysis } from "./types";

/** How one wrapper is read. */
interface WrapperDef {
  /** `transparent`: only the wrapped command needs allowing; `privilege`: the wrapper needs it too. */
  kind: "transparent" | "privilege";
  options?: OptionSpec;
  /**
   * The options that take no value (`options` lists those that do), for a wrapper without a
   * program spec: one it has neither of may take a value, so the word after it may not be the
   * command (`unshare -w DIR cmd`).
   */
  flags?: { short?: string; long?: string[] };
  /** Operands before the command (timeout's duration, chroot's new root, flock's lock file). */
  skip?: number;
  /** Options (short letters / long names) whose value is shell text that is run. */
  text?: { short?: string; long?: string[] };
  /** Options after which nothing is run (`command -v`, `sudo -l`, `strace -p`). */
  none?: { short?: string; long?: string[] };
  /** Without a text option the operands are not a command (su user, script file). */
  textOnly?: boolean;
  /** Options may follow operands (GNU getopt permutes): look for the text option anywhere. */
  permute?: boolean;
  /** The operands are joined and run as shell text (sg group cmd args). */
  joinRest?: boolean;
}

const DEFS: Record<string, WrapperDef> = {
  env: {
    kind: "transparent",
    options: { short: "uCS", long: ["--unset", "--chdir", "--split-string"] },
    text: { short: "S", long: ["--split-string"] },
  },
  nice: { kind: "transparent", options: { short: "n", long: ["--adjustment"], numeric: true } },
  timeout: { kind: "transparent", options: { short: "sk", long: ["--signal", "--kill-after"] }, skip: 1 },
  nohup: { kind: "transparent" },
  command: { kind: "transparent", none: { short: "vV" } },
  builtin: { kind: "transparent" },
  exec: { kind: "transparent", options: { short: "a" }, flags: { short: "cl" } },
  time: { kind: "transparent", options: { short: "fo", long: ["--format", "--output"] } },
  stdbuf: { kind: "transparent", options: { short: "ioe", long: ["--input", "--output", "--error"] } },
  setsid: { kind: "transparent", flags: { short: "cfw", long: ["--ctty", "--fork", "--wait"] } },
  ionice: {
    kind: "transparent",
    options: { short: "cnpPu", long: ["--class", "--classdata", "--pid", "--pgid", "--uid"] },
    none: { short: "pPu", long: ["--pid", "--pgid", "--uid"] },
    flags: { short: "t", long: ["--ignore"] },
  },
  busybox: { kind: "transparent" },
  chrt: {
    kind: "transparent",
    options: { short: "TPD", long: ["--sched-runtime", "--sched-period", "--sched-deadline"] },
    skip: 1,
    none: { short: "pm", long: ["--pid", "--max"] },
    flags: {
      short: "abdfiorRv",
      long: [
        "--all-tasks",
        "--batch",
        "--deadline",
        "--fifo",
        "--idle",
        "--other",
        "--rr",
        "--reset-on-fork",
        "--verbose",
      ],
    },
  },
  taskset: {
    kind: "transparent",
    skip: 1,
    none: { short: "p", long: ["--pid"] },
    flags: { short: "ac", long: ["--all-tasks", "--cpu-list"] },
  },
  // flock stops at its lock file, but `flock FILE -c text` takes the text after it.
  flock: {
    kind: "transparent",
    options: { short: "wEc", long: ["--timeout", "--conflict-exit-code", "--command"] },
    skip: 1,
    text: { short: "c", long: ["--command"] },
    permute: true,
    flags: {
      short: "sxunoF",
      long: ["--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close", "--no-fork", "--verbose"],
    },
  },
  unshare: {
    kind: "transparent",
    options: {
      short: "SGwRl",
      long: [
        "--setuid",
        "--setgid",
        "--wd",
        "--root",
        "--load-interp",
        "--propagation",
        "--setgroups",
        "--map-user",
        "--map-group",
        "--map-users",
        "--map-groups",
        "--monotonic",
        "--boottime",
      ],
    },
    flags: {
      short: "mUipnuCTfrc",
      long: [
        "--mount",
        "--uts",
        "--ipc",
        "--net",
        "--pid",
        "--user",
        "--cgroup",
        "--time",
        "--fork",
        "--map-root-user",
        "--map-current-user",
        "--map-auto",
        "--mount-proc",
        "--kill-child",
        "--keep-caps",
      ],
    },
  },
  strace: { kind: "transparent", options: { short: "oeEpPsSuIabXUO" }, none: { short: "p" } },
  ltrace: { kind: "transparent", options: { short: "oeEpsuaAlnFx" }, none: { short: "p" } },
  caffeinate: { kind: "transparent", options: { short: "tw" } },
  unbuffer: { kind: "transparent", flags: { short: "p" } },
  proxychains: { kind: "transparent", options: { short: "f" }, flags: { short: "q" } },
  proxychains4: { kind: "transparent", options: { short: "f" }, flags: { short: "q" } },
  torsocks: { kind: "transparent", options: { short: "uaP" } },
  "dbus-run-session": { kind: "transparent" },
  firejail: { kind: "transparent" },
  script: {
    kind: "transparent",
    options: {
      short: "cEIOBTm",
      long: ["--command", "--echo", "--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format"],
    },
    text: { short: "c", long: ["--command"] },
    textOnly: true,
    permute: true,
  },
  sudo: {
    kind: "privilege",
    options: {
      short: "ugpCDrtTURh",
      long: [
        "--user",
        "--group",
        "--prompt",
        "--close-from",
        "--chdir",
        "--role",
        "--type",
        "--command-timeout",
        "--other-user",
        "--chroot",
        "--host",
      ],
    },
    none: { short: "elv", long: ["--edit", "--list", "--validate"] },
  },
  doas: { kind: "privilege", options: { short: "uC" } },
  pkexec: { kind: "privilege", options: { long: ["--user"] } },
  chroot: { kind: "privilege", options: { long: ["--userspec", "--groups"] }, skip: 1 },
  runuser: {
    kind: "privilege",
    options: {
      short: "ugGcsw",
      long: ["--user", "--group", "--supp-group", "--command", "--shell", "--whitelist-environment"],
    },
    text: { short: "c", long: ["--command"] },
    permute: true,
  },
  su: {
    kind: "privilege",
    options: { short: "cgGsw", long: ["--command", "--group", "--supp-group", "--shell", "--whitelist-environment"] },
    text: { short: "c", long: ["--command"] },
    textOnly: true,
    permute: true,
  },
  sg: { kind: "privilege", options: { short: "c" }, skip: 1, text: { short: "c" }, joinRest: true },
};

/** Is `program` a wrapper, and of which kind? */
export function wrapperKind(program: string): WrapperDef["kind"] | undefined {
  return DEFS[program]?.kind;
}

/**
 * Whether every option a wrapper without a program spec is given before its command is one it
 * lists (a flag, or one whose value it skips): an option it does not list may take the next word
 * as its value (`unshare -w ls rm …` runs rm in ./ls), so what it runs is not known.
 */
export function wrapperOptionsKnown(program: string, words: readonly ShellWord[]): boolean {
  const def = DEFS[program];
  if (!def) return false;
  const spec = def.options ?? {};
  const scan = scanOptions(words, 1, spec);
  const knownLong = [...(def.flags?.long ?? []), ...(spec.long ?? [])];
  const knownShort = `${def.flags?.short ?? ""}${spec.short ?? ""}`;
  for (let k = 0; k < scan.seen.length; k++) {
    const v = scan.seen[k]!.value;
    if (v === "--") continue;
    if (v.startsWith("--")) {
      const name = v.split("=")[0]!;
      if (!knownLong.includes(name)) return false;
      if (!v.includes("=") && spec.long?.includes(name)) k++;
      continue;
    }
    for (let i = 1; i < v.length; i++) {
      if (!knownShort.includes(v[i]!)) return false;
      if (spec.short?.includes(v[i]!)) {
        if (i === v.length - 1) k++;
        break;
      }
    }
  }
  return true;
}

/** What a wrapper runs: words of a command, or shell text to parse again. */
export interface Unwrapped {
  words: ShellWord[];
  text?: ShellWord;
}

/** The names `env -u NAME` (`-uNAME`, `--unset=NAME`, `--unset NAME`) removes, among its option words. */
function envUnsets(seen: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  for (let k = 0; k < seen.length; k++) {
    const w = seen[k]!;
    const long = /^--unset(=?)(.*)$/.exec(w.value);
    if (long) {
      if (long[1] === "=") out.push({ ...w, value: long[2]!, text: long[2]! });
      else if (seen[k + 1]) out.push(seen[++k]!);
      continue;
    }
    const at = /^-[^-]/.test(w.value) ? w.value.indexOf("u") : -1;
    if (at === -1) continue;
    const rest = w.value.slice(at + 1);
    if (rest) out.push({ ...w, value: rest, text: rest });
    else if (seen[k + 1]) out.push(seen[++k]!);
  }
  return out;
}

/** Why a scan could not tell where a program's operands start: an option only known at run time, or an abbreviation. */
export function optionUnplaced(program: string, scan: OptionScan): string {
  return scan.abbreviated
    ? `${program} ${scan.abbreviated.text} may be the start of a long option that takes the next word as its value (getopt takes any unambiguous prefix)`
    : `an option of ${program} is only known at run time`;
}

/** Read a wrapper's arguments. Problems (dynamic options, dangerous env) are reported into `out`. */
export function unwrap(program: string, words: ShellWord[], out: ShellAnalysis): Unwrapped {
  const def = DEFS[program]!;
  const spec = def.options ?? {};
  const scan = scanOptions(words, 1, spec);
  if (scan.dynamic) out.hidden.push(`${optionUnplaced(program, scan)}, so what it runs cannot be told`);
  if (def.none && hasOption(scan, def.none.long ?? [], def.none.short ?? "", spec)) return { words: [] };
  if (def.text && hasOption(scan, def.text.long ?? [], def.text.short ?? "", spec))
    return { words: [], text: textValue(scan.seen, def.text) };
  if (def.text && def.permute) {
    // Options after the operands: the text option may be anywhere (for flock, right after its file).
    const rest = program === "flock" ? words.slice(scan.index + 1, scan.index + 3) : words.slice(scan.index);
    const text = textValue(rest, def.text);
    if (text) return { words: [], text };
  }
  if (def.textOnly) return { words: [] };
  let i = scan.index + (def.skip ?? 0);
  if (program === "env") {
    // `env -u LC_CTYPE bash -c …`: the shell then reads its text in LANG's character set (red team zg, ZG1).
    for (const name of envUnsets(scan.seen)) {
      const risk = charsetRisk(name.value, undefined);
      if (!name.literal || risk)
        out.unsafe.push(
          `env -u ${name.text} ${risk ? risk.replace(/^it sets [A-Z_]+ to a locale only known at run time/, "removes a locale variable") : "removes a variable only known at run time"}`,
        );
    }
    // `env -` is `env -i`; more options may follow it.
    while (i < words.length && words[i]!.literal && words[i]!.value === "-") {
      const more = scanOptions(words, i + 1, spec);
      if (more.dynamic) out.hidden.push(`${optionUnplaced(program, more)}, so what it runs cannot be told`);
      i = more.index;
    }
    // NAME=value words before the command set its environment.
    for (; i < words.length && words[i]!.literal && /^[^=]+=/.test(words[i]!.value); i++) {
      const variable = words[i]!.value.split("=")[0]!;
      if (!isHarmlessExport(variable, words[i]!.value.slice(variable.length + 1))) {
        out.unsafe.push(
          `env passes ${variable} to the program, and ${variable} is not a variable the engine knows to be harmless to it`,
        );
        out.exportsUnknown.push(variable);
      }
    }
  } else if (program === "time" && words[0]!.text === "time") {
    // The keyword `time` times a whole pipeline, assignments included: `time X=1 cmd`.
    for (; i < words.length && words[i]!.literal && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!.value); i++) {
      const variable = words[i]!.value.split("=")[0]!;
      if (!isHarmlessExport(variable, words[i]!.value.slice(variable.length + 1))) {
        out.unsafe.push(
          `it passes ${variable} to the programs it runs, and ${variable} is not a variable the engine knows to be harmless to them`,
        );
        out.exportsUnknown.push(variable);
      }
    }
  }
  if (program === "time") {
    for (let k = 0; k < scan.seen.length; k++) {
      const v = scan.seen[k]!.value;
      if (v === "-o" || v === "--output")
        out.writes.push({ word: scan.seen[k + 1] ?? literalWord(""), kind: "output" });
      else if (v.startsWith("--output=")) out.writes.push({ word: literalWord(v.slice(9)), kind: "output" });
    }
  }
  const rest = words.slice(i);
  if (program === "exec") {
    const name = renamedArgv0(scan.seen, rest[0]);
    if (name)
      out.unsafe.push(
        `exec runs the program under the name ${name}, and a program may do another thing under another name (git-NAME runs git's NAME, busybox and multi-call programs pick their applet by it)`,
      );
  }
  if (def.joinRest) return { words: [], ...(rest.length > 0 ? { text: joinWords(rest) } : {}) };
  return { words: rest };
}

/**
 * The name `exec -a NAME` (or `-l`, a dash before the name) gives the program instead of the word
 * it is run by, or undefined when it keeps that word (red team zi, ZI1): `exec -a git-apply git
 * status` runs `git apply status`, not the `git status` a rule names.
 */
function renamedArgv0(seen: readonly ShellWord[], program: ShellWord | undefined): string | undefined {
  for (let k = 0; k < seen.length; k++) {
    const v = seen[k]!.value;
    if (v === "--" || !/^-[^-]/.test(v)) continue;
    for (let i = 1; i < v.length; i++) {
      if (v[i] === "l") return `-${program?.text ?? ""} (a login name)`;
      if (v[i] !== "a") continue;
      const name = i < v.length - 1 ? literalWord(v.slice(i + 1)) : seen[k + 1];
      if (!name?.literal || !program?.literal || name.value !== program.value) return name?.text ?? "(none)";
      break;
    }
  }
  return undefined;
}

/** The value of the option that carries shell text (`-c text`, `--command=text`). */
function textValue(seen: ShellWord[], text: NonNullable<WrapperDef["text"]>): ShellWord | undefined {
  for (let k = 0; k < seen.length; k++) {
    const v = seen[k]!.value;
    const long = text.long?.find((l) => v === l || v.startsWith(`${l}=`));
    if (long) return v === long ? seen[k + 1] : literalWord(v.slice(long.length + 1));
    if (/^-[^-]/.test(v) && [...(text.short ?? "")].some((c) => v.endsWith(c))) return seen[k + 1];
    if (/^-[^-]/.test(v) && [...(text.short ?? "")].some((c) => v.includes(c)))
      return { ...seen[k]!, value: v.slice(v.search(new RegExp(`[${text.short}]`)) + 1) };
  }
  return undefined;
}

/** Several words that are joined with spaces and parsed again: literal only if all are. */
export function joinWords(words: ShellWord[]): ShellWord | undefined {
  if (words.length === 0) return undefined;
  const dynamic = words.find((w) => !w.literal);
  return dynamic ?? literalWord(words.map((w) => w.value).join(" "));
}
