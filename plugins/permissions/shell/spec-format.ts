/**
 * The notation of program specs (specs.ts), and the reader that judges one command's words
 * against a spec. A spec lists every option the engine understands for a program, with its arity
 * and effect, and what each operand is. Reading a command, anything the spec does not list — an
 * option, a sub-command, an operand where none is expected, a run-time word that could be any of
 * these — makes the command unproven at that word: an allow rule covers it only if its own
 * literal text reaches past that word (the user named it).
 *
 * Options, space-separated:
 *   `-a`        a flag                       `--all`        a long flag
 *   `-n=`       takes a value (data)         `--format=`    takes a value, as `--format=x` or `--format x`
 *   `-o=w`      the value is an output file  `--color?=`    an optional value, only as `--color=x`
 *   `-f=r`      the value is a file read     `--arg==`      takes two values (jq)
 *   `-C=d`      the value is a folder that later relative paths are under
 *   `-e=p`      the value is the pattern or script, so the first operand is not one
 *   `-i?=W`     (sed -i) the file operands are written in place
 *   `-T=L`      the value is a file read that lists more files to read (tar -T, --files0-from)
 *   `-f=R`      the value is a file read that holds the pattern (grep -f), so the first operand is not one
 *   `-#`        a number as an option (`head -5`)
 * Operands, space-separated kinds; one may end in `*` (any number, also none):
 *   `data` a plain string · `read` a file read · `write` a file the program's job is to make,
 *   change or remove (touch, rm, mkdir) · `output` a file it writes its output to (uniq's second,
 *   tee's) · `dir` a folder read · `pattern` a pattern or script (dropped when an option gave one)
 *   · `command` the rest is a command that runs (a wrapper's; judged as a candidate of its own) ·
 *   `sub` a sub-command.
 *
 * An output file — an option's `=w` value in any spelling (`-o x`, `-ox`, `-uo x`, `--output=x`)
 * or an `output` operand — is an edit, judged as Write's would be (default mode asks, acceptEdits
 * allows one inside the project, Edit rules name it); a `write` operand must be inside the
 * permitted folders, and the rule that allows the program covers it.
 */
import type { ShellWord } from "./words";

/** The effect of an option's value. */
export type OptionEffect = "data" | "read" | "write" | "dir" | "pattern" | "inplace" | "patternfile" | "list";

/** One option, read from the notation. */
export interface OptionDef {
  /** Takes a value: 0 (flag), 1, 2; `optional` takes one only attached (`--color=auto`). */
  arity: 0 | 1 | 2;
  optional: boolean;
  effect: OptionEffect;
  /** The option's first spelling: `-r`, `-R` and `--recursive` written `-r|-R|--recursive` are all `-r`. */
  canonical: string;
}

/** The kinds of operands. */
export type OperandKind = "data" | "read" | "write" | "output" | "dir" | "pattern" | "command" | "sub";

/** A program spec as written in specs.ts. */
export interface ProgramSpecSource {
  options?: string;
  operands?: string;
  /** Options end at the first operand (POSIX, and every wrapper); otherwise GNU permutation. */
  posix?: boolean;
  /**
   * No option of the program writes, runs or loads anything (checked against its manual), so a
   * word only known at run time in an option's place is an unknown read at worst.
   */
  dynamicOk?: boolean;
  /** Sub-commands (for operands `sub`): each with its own spec; options before it are the program's. */
  sub?: Record<string, ProgramSpecSource>;
  /** A last check over the words: the first one it does not accept, and why. */
  check?: (words: readonly ShellWord[]) => { at: number; why: string } | undefined;
  /** A reader of its own, for a program whose arguments are not options and operands (find). */
  read?: (words: readonly ShellWord[]) => SpecReading;
  /** Files it reads that options name inside their values (curl's `-d @file`). */
  reads?: (words: readonly ShellWord[]) => ShellWord[];
  /**
   * The files it reads, as the program reads them, given the words and the files its options and
   * operands name (git's pathspecs are patterns, not paths). Applied once, to the whole command.
   */
  readsAs?: (words: readonly ShellWord[], reads: ShellWord[]) => ShellWord[];
  /** Its folders read to the bottom are a repository's stored files (git archive, git grep): ShellWord.stored. */
  stored?: boolean;
  /**
   * Folders (or files) it reads every file below, besides recursive read operands (git's pathspecs,
   * diff's --from-file); applied once, to the whole command's words as the program parses them.
   */
  readsBelow?: (words: readonly ShellWord[]) => ShellWord[];
  /** Files it writes besides its operands and option values (a backup `~/.bash` + `rc`, git config's file). */
  writes?: (words: readonly ShellWord[]) => ShellWord[];
  /** Why it installs code to run later, if it does (git config core.fsmonitor, npm config set script-shell). */
  persists?: (words: readonly ShellWord[]) => string | undefined;
  /**
   * Why it gives files a mode that lets other users write them (chmod o+w, mkdir -m 777, umask
   * 000, git init --shared): code installed to run later, asked as `persists` is, and a question the
   * sandbox would not hold (it lets commands change modes in the writable folders).
   */
  opensModes?: (words: readonly ShellWord[]) => string | undefined;
  /** It rewrites files of the work tree it does not name (git reset --hard, stash, checkout of a branch); true or decided by the words. */
  tree?: boolean | ((words: readonly ShellWord[]) => boolean);
  /**
   * It reads every file below its read operands, or below `.` when it has none (grep -r, rg, git
   * grep, git add); true, or decided by the words and this level's options in canonical form.
   */
  recursive?:
    | boolean
    | ((words: readonly ShellWord[], options: readonly string[], operands: readonly ShellWord[]) => boolean);
  /**
   * Options whose effect depends on the others, by canonical name (tar's -f is the archive -c
   * writes and -t reads), decided by this level's options in canonical form.
   */
  effects?: (options: readonly string[]) => Readonly<Record<string, OptionEffect>>;
  /** It creates links (a later path in the same command may lead anywhere). */
  links?: (words: readonly ShellWord[]) => boolean;
  /** As a sub-command: the words it stands for in canonical form (`npm test` is `npm run test`). */
  canonical?: string[];
  /** cp, mv, ln: which operands are sources and which the destination (where each source lands is judged on disk). */
  copies?: (words: readonly ShellWord[]) =>
    | {
        sources: ShellWord[];
        dest: ShellWord;
        intoFolder: boolean;
        recursive: boolean;
        parents?: boolean;
        /** With -b/--backup: the suffix of the backup kept of each file a source lands on (landing + suffix). */
        backup?: ShellWord;
        /** cp -p, -a, --preserve=mode: each copy gets its source's mode (red team ze, ZE2). */
        modes?: boolean;
      }
    | undefined;
  /** A lone `-` is an option (`env -` is `env -i`). */
  dashOption?: boolean;
  /** NAME=value operands before the command set its environment (env): each is checked by the wrapper reader. */
  assignments?: boolean;
  /** What reaching here means: a reason that leaves the command unproven unless named by a rule. */
  unproven?: string;
}

/** A spec with its notation read. */
export interface ProgramSpec {
  short: Map<string, OptionDef>;
  long: Map<string, OptionDef>;
  numeric: boolean;
  fixedBefore: OperandKind[];
  repeat: OperandKind | undefined;
  fixedAfter: OperandKind[];
  posix: boolean;
  dynamicOk: boolean;
  sub: Map<string, ProgramSpec> | undefined;
  check: ProgramSpecSource["check"];
  read: ProgramSpecSource["read"];
  links: ProgramSpecSource["links"];
  recursive: ProgramSpecSource["recursive"];
  stored: boolean;
  effects: ProgramSpecSource["effects"];
  extraReads: ProgramSpecSource["reads"];
  readsAs: ProgramSpecSource["readsAs"];
  readsBelow: ProgramSpecSource["readsBelow"];
  extraWrites: ProgramSpecSource["writes"];
  copies: ProgramSpecSource["copies"];
  persists: ProgramSpecSource["persists"];
  opensModes: ProgramSpecSource["opensModes"];
  tree: ProgramSpecSource["tree"];
  unproven: string | undefined;
  dashOption: boolean;
  assignments: boolean;
  /** Every option spelling, for tests and the differential generator. */
  optionNames: string[];
  /** A sub-command's canonical name (`run` for `run-script`). */
  canonicalName?: string;
  /** The words it stands for in canonical form (`npm test` is `npm run test`). */
  canonicalWords?: string[];
}

const EFFECTS: Record<string, OptionEffect> = {
  "": "data",
  r: "read",
  w: "write",
  d: "dir",
  p: "pattern",
  W: "inplace",
  R: "patternfile",
  L: "list",
};

/** Read the notation of one spec (and its sub-commands). Throws on a malformed one: specs are code. */
export function compileSpec(source: ProgramSpecSource, name: string): ProgramSpec {
  const short = new Map<string, OptionDef>();
  const long = new Map<string, OptionDef>();
  let numeric = false;
  const optionNames: string[] = [];
  for (const token of (source.options ?? "").split(/\s+/).filter(Boolean)) {
    if (token === "-#") {
      numeric = true;
      continue;
    }
    // `-r|-R|--recursive`: spellings of one option, the first its canonical name.
    const spellings = token.split("|");
    const last = spellings.pop()!;
    const m = /^(--?[A-Za-z0-9][A-Za-z0-9.-]*|-[^-\s=?])(\?)?(==?)?([rwdpWRL]?)$/.exec(last);
    if (!m || spellings.some((x) => !/^(--?[A-Za-z0-9][A-Za-z0-9.-]*|-[^-\s=?])$/.test(x)))
      throw new Error(`spec of ${name}: cannot read the option ${JSON.stringify(token)}`);
    const [, lastSpelling, optional, equals, effect] = m;
    const all = [...spellings, lastSpelling!];
    const def: OptionDef = {
      arity: equals === "==" ? 2 : equals === "=" ? 1 : 0,
      optional: optional === "?",
      effect: EFFECTS[effect ?? ""]!,
      canonical: all[0]!,
    };
    if (def.optional && def.arity === 0) def.arity = 1;
    for (const spelling of all) {
      (spelling.startsWith("--") ? long : short).set(spelling, def);
      optionNames.push(spelling);
    }
  }
  const kinds = (source.operands ?? "").split(/\s+/).filter(Boolean);
  const fixedBefore: OperandKind[] = [];
  const fixedAfter: OperandKind[] = [];
  let repeat: OperandKind | undefined;
  for (const k of kinds) {
    const kind = k.replace(/\*$/, "") as OperandKind;
    if (!["data", "read", "write", "output", "dir", "pattern", "command", "sub"].includes(kind))
      throw new Error(`spec of ${name}: unknown operand kind ${k}`);
    if (k.endsWith("*")) repeat = kind;
    else (repeat === undefined ? fixedBefore : fixedAfter).push(kind);
  }
  // `run|run-script|rum|urn`: names of one sub-command, the first its canonical name.
  const sub = source.sub
    ? new Map(
        Object.entries(source.sub).flatMap(([k, v]) => {
          const names = k.split("|");
          const compiled = {
            ...compileSpec(v, `${name} ${names[0]}`),
            canonicalName: names[0]!,
            ...(v.canonical ? { canonicalWords: v.canonical } : {}),
          };
          return names.map((n) => [n, compiled] as const);
        }),
      )
    : undefined;
  return {
    short,
    long,
    numeric,
    fixedBefore,
    repeat,
    fixedAfter,
    posix: source.posix ?? false,
    dynamicOk: source.dynamicOk ?? false,
    sub,
    check: source.check,
    read: source.read,
    links: source.links,
    recursive: source.recursive,
    stored: source.stored ?? false,
    effects: source.effects,
    extraReads: source.reads,
    readsAs: source.readsAs,
    readsBelow: source.readsBelow,
    extraWrites: source.writes,
    copies: source.copies,
    persists: source.persists,
    opensModes: source.opensModes,
    tree: source.tree,
    unproven: source.unproven,
    dashOption: source.dashOption ?? false,
    assignments: source.assignments ?? false,
    optionNames,
  };
}

/** What reading a command against its spec found. */
export interface SpecReading {
  /** The first word not understood (index into the words) and why; absent when every word is. */
  unproven?: { at: number; why: string };
  reads: ShellWord[];
  /** Files its operands make, change or remove (must be inside the permitted folders). */
  writes: ShellWord[];
  /** Its output files: option values of effect `w` and `output` operands (edits, as Write's). */
  outputs: ShellWord[];
  /** Folders later relative paths are under (`git -C dir`, `env -C dir`, `make -C dir`). */
  dirs: ShellWord[];
  /** Where a wrapped command starts (operand kind `command`), if any. */
  commandAt?: number;
  /** It creates links. */
  links: boolean;
  /** Its read operands are folders read to the bottom (`.` when it names none). */
  recursive: boolean;
  /** Those folders are a repository's stored files, not the disk's. */
  stored?: boolean;
  /** The read operands of the level reached (not option values: `grep -r -f pats` reads `.`). */
  readOperands: ShellWord[];
  /** What it reads every file below besides those (the spec's readsBelow). */
  below: ShellWord[];
  /**
   * The command in canonical form, for deny and ask rules: the program, its sub-commands by their
   * canonical names, then the sub-command's options (clusters split, abbreviations and aliases
   * resolved) and operands; options before a sub-command (`git -C x`) are left out.
   */
  canonical: string[];
  /** How many leading words of `canonical` are the program and its sub-commands. */
  subDepth: number;
  /** It rewrites files of the work tree it does not name. */
  tree?: boolean;
  /** Files written by the reached sub-command's own rule (its `writes`), and why it installs code to run later. */
  leafWrites?: ShellWord[];
  persists?: string;
  opensModes?: string;
  /** A copy into a place (see ProgramSpecSource.copies). */
  copy?: {
    sources: ShellWord[];
    dest: ShellWord;
    intoFolder: boolean;
    recursive: boolean;
    parents?: boolean;
    backup?: ShellWord;
    modes?: boolean;
  };
}

/** Judge `words` (program first) against `spec`. */
export function readBySpec(spec: ProgramSpec, words: readonly ShellWord[], name: string): SpecReading {
  const reading: SpecReading = spec.read ? spec.read(words) : emptyReading(name);
  if (!spec.read) readInto(spec, words, 1, name, reading);
  else reading.canonical = [name, ...words.slice(1).map((w) => w.value)];
  if (spec.readsAs) reading.reads = spec.readsAs(words, reading.reads);
  // As the program parses them (clusters split, long options by their full name), as `reads` gets them.
  if (spec.readsBelow) reading.below.push(...spec.readsBelow(optionWords(spec, words, 1).words));

  return reading;
}

/** A reading that found nothing yet, of the program (or reader) `name`. */
export function emptyReading(name: string): SpecReading {
  return {
    reads: [],
    writes: [],
    outputs: [],
    dirs: [],
    links: false,
    recursive: false,
    readOperands: [],
    below: [],
    canonical: [name],
    subDepth: 1,
  };
}

function fail(reading: SpecReading, at: number, why: string) {
  reading.unproven ??= { at, why };
}

/** One level of a command being read (the program, or a sub-command reached): where the reading is and what it found. */
interface LevelScan {
  spec: ProgramSpec;
  words: readonly ShellWord[];
  name: string;
  reading: SpecReading;
  /** The index of the word being read. */
  i: number;
  /** After `--` (or a POSIX program's first operand): every word is an operand. */
  ended: boolean;
  operands: { word: ShellWord; at: number }[];
  /** This level's options in canonical form (with their values). */
  local: string[];
  patternGiven: boolean;
  inplace: boolean;
}

function readInto(
  declared: ProgramSpec,
  words: readonly ShellWord[],
  start: number,
  name: string,
  reading: SpecReading,
): void {
  const spec = withEffects(declared, words, start, name);
  if (spec.unproven) fail(reading, start - 1, spec.unproven);
  // The spec's own rules read the words as the program parses them (red team m, M1): `curl -sw@.env`
  // is `-s -w @.env`, `--write-o` is `--write-out`. A rule that looked for `-w` at a word's start
  // missed every cluster and abbreviation the generic reading below accepts.
  const parsed = optionWords(spec, words, start);
  const own = parsed.words;
  const checked = spec.check?.(own);
  if (checked) fail(reading, parsed.origin[checked.at] ?? checked.at, checked.why);
  // What this level (the program, or a sub-command reached) does besides its options and operands.
  if (spec.tree && (typeof spec.tree === "function" ? spec.tree(own) : true)) reading.tree = true;
  if (spec.links?.(own)) reading.links = true;
  if (spec.extraWrites) reading.writes.push(...spec.extraWrites(own));
  reading.opensModes ??= spec.opensModes?.(own);
  reading.persists ??= spec.persists?.(own) ?? reading.opensModes;
  reading.copy ??= spec.copies?.(own);
  const scan = scanLevel(spec, words, start, name, reading);
  const { operands } = scan;
  if (spec.sub) {
    const first = operands[0];
    if (!first) {
      setRecursive(spec, scan);
      return;
    }
    if (!first.word.literal) {
      fail(reading, first.at, `the sub-command of ${name} (${first.word.text}) is only known at run time`);
      return;
    }
    const sub = spec.sub.get(first.word.value);
    if (!sub) {
      fail(reading, first.at, `${name} ${first.word.value} is not a sub-command the engine knows`);
      return;
    }
    const words_ = sub.canonicalWords ?? [sub.canonicalName ?? first.word.value];
    reading.canonical.push(words_[0]!);
    reading.subDepth = reading.canonical.length;
    // `npm test` is `npm run test`: the words after the first stand as the sub-command's operands.
    reading.canonical.push(...words_.slice(1));
    readInto(sub, words, first.at + 1, `${name} ${first.word.value}`, reading);
    return;
  }
  setRecursive(spec, scan);
  if (spec.extraReads) reading.reads.push(...spec.extraReads(own));
  reading.canonical.push(...scan.local, ...operands.map((o) => o.word.value));
  assignOperands(spec, operands, scan.patternGiven, scan.inplace, name, reading, words);
}

function setRecursive(spec: ProgramSpec, scan: LevelScan): void {
  const { recursive } = spec;
  if (recursive)
    scan.reading.recursive =
      typeof recursive === "function"
        ? recursive(
            scan.words,
            scan.local,
            scan.operands.map((o) => o.word),
          )
        : true;
  if (recursive && spec.stored) scan.reading.stored = true;
}

/** Read one level's options and operands from `start`, into `reading`. */
function scanLevel(
  spec: ProgramSpec,
  words: readonly ShellWord[],
  start: number,
  name: string,
  reading: SpecReading,
): LevelScan {
  const scan: LevelScan = {
    spec,
    words,
    name,
    reading,
    i: start,
    ended: false,
    operands: [],
    local: [],
    patternGiven: false,
    inplace: false,
  };
  for (; scan.i < words.length; scan.i++) if (readWord(scan) === "stop") break;
  return scan;
}

/**
 * The spec with the effects its `effects` rule gives for these words: the level's options are
 * read once on a scratch reading to learn which are given, then the real reading uses the result.
 * A word only known at run time may be any option: the declared effects stand (and the reading is
 * unproven, so every word is judged as a path that may be read or written).
 */
function withEffects(spec: ProgramSpec, words: readonly ShellWord[], start: number, name: string): ProgramSpec {
  if (!spec.effects || words.slice(start).some((w) => !w.literal)) return spec;
  const given = scanLevel({ ...spec, sub: undefined }, words, start, name, emptyReading(name)).local;
  const effects = spec.effects(given);
  const swap = (map: ReadonlyMap<string, OptionDef>) =>
    new Map([...map].map(([k, def]) => [k, { ...def, effect: effects[def.canonical] ?? def.effect }] as const));
  return { ...spec, short: swap(spec.short), long: swap(spec.long), effects: undefined };
}

/** Read the word at `scan.i` (an operand, `--`, or options, which may take the next words); "stop" where this level's words end. */
function readWord(scan: LevelScan): "stop" | undefined {
  const { spec, reading, name, operands } = scan;
  const i = scan.i;
  const word = scan.words[i]!;
  if (scan.ended) {
    operands.push({ word, at: i });
    return;
  }
  if (!word.literal) {
    // A run-time word could be any option (a glob could match a file named `-rf`).
    if (!spec.dynamicOk)
      fail(
        reading,
        i,
        `the argument ${word.text} of ${name} is only known at run time, and could be an option the engine does not know`,
      );
    operands.push({ word, at: i });
    if (spec.posix || kindAt(spec, operands.length) === "command") scan.ended = true;
    return;
  }
  const v = word.value;
  if (v === "--") {
    scan.ended = true;
    return;
  }
  if (v === "-" && spec.dashOption) return;
  if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) return;
  if (v === "-" || !v.startsWith("-")) {
    operands.push({ word, at: i });
    if (spec.sub && operands.length === 1) return "stop";
    // A wrapper's command starts here: its options are its own.
    if (kindAt(spec, operands.length - 1) === "command") return "stop";
    if (spec.posix) scan.ended = true;
    return;
  }
  if (v.startsWith("--")) readLongOption(scan, word);
  else readShortOptions(scan, word);
}

/** Record what option `def` with `value` does: what it reads, writes, or changes about the operands. */
function applyEffect(scan: LevelScan, def: OptionDef, value: ShellWord): void {
  const { reading } = scan;
  scan.local.push(def.canonical);
  if (def.arity > 0 && value.value !== def.canonical) scan.local.push(value.value);
  // `-` as a file to read is stdin: what it names is not known (`--files0-from=-`, `-T -`).
  const stdin = (def.effect === "read" || def.effect === "patternfile") && value.literal && value.value === "-";
  if (stdin) reading.reads.push({ ...value, literal: false, text: `${value.text} (files named on stdin)` });
  else if (def.effect === "read" || def.effect === "patternfile") reading.reads.push(value);
  if (def.effect === "patternfile") scan.patternGiven = true;
  // A list of files to read: the list is read, and so is every file it names (not known here).
  if (def.effect === "list")
    reading.reads.push(value, { ...value, literal: false, text: `(the files ${value.text} lists)` });
  if (def.effect === "read" || def.effect === "patternfile") {
    // nothing more
  } else if (def.effect === "write") reading.outputs.push(value);
  else if (def.effect === "dir") reading.dirs.push(value);
  else if (def.effect === "pattern") scan.patternGiven = true;
  if (def.effect === "inplace") scan.inplace = true;
}

/** A `--long` option (`--key=value`, or its values in the next words). */
function readLongOption(scan: LevelScan, word: ShellWord): void {
  const { spec, reading, name, words } = scan;
  const v = word.value;
  const eq = v.indexOf("=");
  const written = eq === -1 ? v : v.slice(0, eq);
  // getopt_long (and git's and npm's parsers) take any unambiguous prefix of a long option.
  const key = spec.long.has(written) ? written : uniquePrefix(spec.long, written);
  const def = key === undefined ? undefined : spec.long.get(key);
  if (!def || key === undefined) {
    fail(reading, scan.i, `${name} ${written} is not an option the engine knows`);
    return;
  }
  if (def.arity === 0 && eq !== -1) fail(reading, scan.i, `${name} ${key} takes no value`);
  if (def.arity === 0) {
    applyEffect(scan, def, word);
    return;
  }
  if (eq !== -1) {
    applyEffect(scan, def, { ...word, value: v.slice(eq + 1), text: v.slice(eq + 1) });
    return;
  }
  if (def.optional) {
    applyEffect(scan, { ...def, arity: 0, effect: def.effect === "inplace" ? "inplace" : "data" }, word);
    return;
  }
  for (let k = 0; k < def.arity; k++) {
    const value = words[++scan.i];
    if (!value) {
      fail(reading, scan.i, `${name} ${key} needs a value`);
      break;
    }
    if (!value.literal && def.effect !== "data" && def.effect !== "pattern")
      fail(reading, scan.i, `the value of ${name} ${key} (${value.text}) is only known at run time`);
    if (k === def.arity - 1) applyEffect(scan, def, value);
  }
}

/** Short options, clustered: each letter a flag, until one that takes a value (the rest of the word, or the next word). */
function readShortOptions(scan: LevelScan, word: ShellWord): void {
  const { spec, reading, name, words } = scan;
  const v = word.value;
  if (spec.numeric && /^-[0-9]+$/.test(v)) return;
  // A program's own multi-letter short option (wget -nv, find-style): the whole word.
  const whole = v.length > 2 ? spec.short.get(v) : undefined;
  if (whole) {
    if (whole.arity === 0) applyEffect(scan, whole, word);
    else {
      const value = words[++scan.i];
      if (value) applyEffect(scan, whole, value);
      else fail(reading, scan.i, `${name} ${v} needs a value`);
    }
    return;
  }
  for (let k = 1; k < v.length; k++) {
    const letter = `-${v[k]}`;
    const def = spec.short.get(letter);
    if (!def) {
      fail(reading, scan.i, `${name} ${letter} is not an option the engine knows`);
      break;
    }
    if (def.arity === 0) {
      applyEffect(scan, def, word);
      continue;
    }
    const rest = v.slice(k + 1);
    if (rest !== "") {
      applyEffect(scan, def, { ...word, value: rest, text: rest });
    } else if (def.optional) {
      applyEffect(scan, def, word);
    } else {
      const value = words[++scan.i];
      if (!value) fail(reading, scan.i, `${name} ${letter} needs a value`);
      else {
        if (!value.literal && def.effect !== "data" && def.effect !== "pattern")
          fail(reading, scan.i, `the value of ${name} ${letter} (${value.text}) is only known at run time`);
        applyEffect(scan, def, value);
      }
    }
    break;
  }
}

/**
 * `words` with this level's options (from `start`) split as the program's parser splits them: each
 * letter of a short-option cluster a word of its own (`-sw@x` is `-s -w @x`; an optional value stays
 * attached, `-i.bak`), a long option by its full spelling (`--write-o=x` is `--write-out=x`), and the
 * values an option takes copied as they are. Operands, words after `--`, a sub-command's or a wrapped
 * command's words, run-time words and options the spec does not know are copied as written.
 * `origin[k]` is the index in `words` that word k comes from.
 */
export function optionWords(
  spec: ProgramSpec,
  words: readonly ShellWord[],
  start: number,
): { words: ShellWord[]; origin: number[] } {
  const out: ShellWord[] = [];
  const origin: number[] = [];
  const push = (word: ShellWord, from: number) => {
    out.push(word);
    origin.push(from);
  };
  const as = (word: ShellWord, value: string): ShellWord => ({ ...word, value, text: value });
  for (let i = 0; i < Math.min(start, words.length); i++) push(words[i]!, i);
  let operands = 0;
  let ended = false;
  for (let i = start; i < words.length; i++) {
    const word = words[i]!;
    const v = word.value;
    if (ended || !word.literal || v === "-" || !v.startsWith("-") || v === "--") {
      push(word, i);
      if (v === "--" && word.literal) ended = true;
      else if (!ended && (!word.literal || v === "-" || !v.startsWith("-"))) {
        operands++;
        // A sub-command's or a wrapped command's words are read at their own level; a POSIX
        // program's options end at its first operand.
        if (spec.sub || spec.posix || kindAt(spec, operands - 1) === "command") ended = true;
      }
      continue;
    }
    // The values an option takes as the next words: copied as they are.
    const values = (def: OptionDef, given = 0) => {
      for (let k = given; k < def.arity && i + 1 < words.length; k++) push(words[++i]!, i);
    };
    if (v.startsWith("--")) {
      const eq = v.indexOf("=");
      const written = eq === -1 ? v : v.slice(0, eq);
      const key = spec.long.has(written) ? written : uniquePrefix(spec.long, written);
      const def = key === undefined ? undefined : spec.long.get(key);
      if (!def || key === undefined) {
        push(word, i);
        continue;
      }
      push(as(word, eq === -1 ? key : `${key}${v.slice(eq)}`), i);
      if (eq === -1 && def.arity > 0 && !def.optional) values(def);
      continue;
    }
    const whole = v.length > 2 ? spec.short.get(v) : undefined;
    if ((spec.numeric && /^-[0-9]+$/.test(v)) || whole) {
      push(word, i);
      if (whole && whole.arity > 0) values(whole);
      continue;
    }
    for (let k = 1; k < v.length; k++) {
      const letter = `-${v[k]}`;
      const def = spec.short.get(letter);
      if (!def) {
        push(as(word, `-${v.slice(k)}`), i);
        break;
      }
      const rest = v.slice(k + 1);
      if (def.arity === 0) {
        push(as(word, letter), i);
        continue;
      }
      if (def.optional) push(as(word, `${letter}${rest}`), i);
      else {
        push(as(word, letter), i);
        if (rest !== "") push(as(word, rest), i);
        values(def, rest === "" ? 0 : 1);
      }
      break;
    }
  }
  return { words: out, origin };
}

/** The one long option `written` abbreviates, if exactly one starts with it. */
function uniquePrefix(long: ReadonlyMap<string, OptionDef>, written: string): string | undefined {
  if (written.length < 3) return undefined;
  let found: string | undefined;
  for (const key of long.keys()) {
    if (!key.startsWith(written)) continue;
    if (found !== undefined) return undefined;
    found = key;
  }
  return found;
}

/** The kind of the operand at `index` as far as the fixed leading kinds tell (undefined past them). */
function kindAt(spec: ProgramSpec, index: number): OperandKind | undefined {
  return index < spec.fixedBefore.length ? spec.fixedBefore[index] : spec.repeat;
}

function assignOperands(
  spec: ProgramSpec,
  operands: { word: ShellWord; at: number }[],
  patternGiven: boolean,
  inplace: boolean,
  name: string,
  reading: SpecReading,
  words: readonly ShellWord[],
): void {
  let before = [...spec.fixedBefore];
  if (patternGiven && before[0] === "pattern") before = before.slice(1);
  const commandIndex = before.indexOf("command");
  if (commandIndex !== -1 || spec.repeat === "command") {
    const at = commandIndex !== -1 ? commandIndex : before.length;
    const leading = operands.slice(0, at);
    for (let k = 0; k < leading.length; k++) judgeOperand(before[k]!, leading[k]!, inplace, name, reading);
    const command = operands[at];
    if (command) reading.commandAt = command.at;
    return;
  }
  // A run-time word may stand for any number of operands: positions after it are not known.
  const dynamic = operands.findIndex((o) => !o.word.literal && !isQuotedWhole(o.word));
  const kindsUsed = new Set([...before, ...spec.fixedAfter, ...(spec.repeat ? [spec.repeat] : [])]);
  if (dynamic !== -1 && kindsUsed.size > 1) {
    fail(
      reading,
      operands[dynamic]!.at,
      `the argument ${operands[dynamic]!.word.text} of ${name} is only known at run time, so which operand is which cannot be told`,
    );
  }
  const n = operands.length;
  const after = spec.fixedAfter;
  const fixed = before.length + after.length;
  if (!spec.repeat && n > fixed) {
    fail(
      reading,
      operands[fixed]!.at,
      `${name} takes ${fixed === 0 ? "no operands" : `at most ${fixed} operand${fixed === 1 ? "" : "s"}`} the engine knows of`,
    );
  }
  for (let k = 0; k < n; k++) {
    const o = operands[k]!;
    let kind: OperandKind | undefined;
    if (k < before.length && (spec.repeat || k < fixed)) kind = before[k];
    else if (k >= n - after.length && k >= before.length) kind = after[k - (n - after.length)];
    else kind = spec.repeat;
    if (kind) judgeOperand(kind, o, inplace, name, reading);
  }
  void words;
}

/** `"$x"`: one word whatever it holds (no splitting, no globbing). */
function isQuotedWhole(word: ShellWord): boolean {
  return /^"[^"]*"$/.test(word.text);
}

function judgeOperand(
  kind: OperandKind,
  o: { word: ShellWord; at: number },
  inplace: boolean,
  _name: string,
  reading: SpecReading,
) {
  const effective = inplace && kind === "read" ? "write" : kind;
  if (effective === "read" || effective === "dir") {
    reading.reads.push(o.word);
    reading.readOperands.push(o.word);
  } else if (effective === "write") reading.writes.push(o.word);
  else if (effective === "output") reading.outputs.push(o.word);
}
