/**
 * The programs the engine claims to understand, each with every option it understands (arity
 * and effect) and what its operands are, in the notation of spec-format.ts. A program listed here
 * is judged word by word: an option or sub-command not in its spec leaves the command unproven
 * (ask), so an allow rule such as `Bash(git:*)` covers `git log --oneline` but not
 * `git log --frobnicate` or an alias. A program not listed is covered only by a rule that names
 * it, and its run-time operands are unknown paths (commands.ts).
 *
 * Options that run programs, load code or write where the engine cannot see are left out on
 * purpose (sort --compress-program, rg --pre, find -exec, git -c, tar --to-command, …): leaving
 * one out is the safe mistake. Every spec was written from the program's manual.
 */
import {
  compileSpec,
  emptyReading,
  type OptionEffect,
  type ProgramSpec,
  type ProgramSpecSource,
  type SpecReading,
} from "./spec-format";
import { literalWord, type ShellWord } from "./words";
import { SHELL_SET_OPTIONS } from "./names";
import { gitConfigRisk } from "./risky";
import { gitObjectPath } from "./reads";
import { modeOutcomes } from "./modes";

// Options shared by several programs.
const HELP = "--help --version";
const GREP = `-E -F -G -P -i -y -v -w -x -c -l -L -n -h -H -o -q -s -b -a -I -r -R -z -Z -U|--binary -T --color?= --colour?= -e=p --regexp=p -f=R --file=R -m= --max-count= -A= -B= -C= -# --after-context= --before-context= --context= --include= --exclude= --exclude-dir= --exclude-from=r --ignore-case --no-ignore-case --invert-match --word-regexp --line-regexp --count --files-with-matches --files-without-match --line-number --no-filename --with-filename --only-matching --quiet --silent --no-messages --byte-offset --text --binary-files= --label= --null --null-data --recursive --dereference-recursive --extended-regexp --fixed-strings --basic-regexp --perl-regexp --initial-tab --line-buffered ${HELP}`;
// No -c/--check: then the operands are lists of the files to read, which the command line does not
// name (\`md5sum -c sums\` hash-checks a Read-denied \`.env\` that sums lists): unproven, asked.
const SUMS = `-b -t -z --binary --text --tag --zero --quiet --status --strict -w --warn --ignore-missing ${HELP}`;
const GIT_DIFF =
  "-p -u --patch -s --no-patch -U= --unified= --raw --patch-with-raw --stat?= --numstat --shortstat --dirstat?= --summary --name-only --name-status --color?= --no-color --word-diff?= --color-words?= --no-renames -M?= --find-renames?= -C?= --find-copies?= -D --irreversible-delete -R --relative?= --no-relative -a --text -w --ignore-all-space -b --ignore-space-change --ignore-space-at-eol --ignore-blank-lines --ignore-cr-at-eol --minimal --patience --histogram --diff-algorithm= --diff-filter= --full-index --binary --abbrev?= -z --exit-code --quiet --no-ext-diff --no-textconv --src-prefix= --dst-prefix= --no-prefix --check --function-context -W --indent-heuristic --no-indent-heuristic --ignore-submodules?= --submodule?= -O=r --merge-base -S= -G= --pickaxe-all --pickaxe-regex --line-prefix=";
const GIT_LOG = `${GIT_DIFF} --oneline -# -n= --max-count= --skip= --since= --after= --until= --before= --author= --committer= --grep= --all-match --invert-grep -i --regexp-ignore-case -E --extended-regexp -F --fixed-strings --merges --no-merges --min-parents= --max-parents= --first-parent --all --branches?= --tags?= --remotes?= --glob= --exclude= --reverse --graph --decorate?= --no-decorate --source --pretty?= --format= --abbrev-commit --no-abbrev-commit --date= --relative-date --parents --children --left-right --cherry-pick --cherry-mark --topo-order --date-order --author-date-order --follow -L= --full-history --simplify-by-decoration --ancestry-path --boundary --no-walk?= --walk-reflogs -g --show-signature --notes?= --no-notes --encoding= --expand-tabs?= --no-expand-tabs --mailmap --use-mailmap --log-size --show-pulls -m --cc --dd --combined-all-paths --no-merges --count`;
const GIT_REMOTE_OPTS =
  "-q --quiet -v --verbose --progress --no-progress --dry-run -n --all --prune -p --no-prune --tags -t --no-tags -f|--force --depth= --deepen= --shallow-since= --unshallow --update-shallow --atomic --set-upstream -u --ipv4 -4 --ipv6 -6 --jobs= -j= --prefetch --append -a --keep -k --no-write-fetch-head --porcelain";

/**
 * git reads its path operands as pathspecs: patterns, not paths. Magic (`:(top)`, `:/`, `:!x`,
 * `:(icase)`), a glob character, or `--glob-pathspecs`/`--icase-pathspecs` make one match files
 * the text does not name (`git grep KEY -- ':(top)'` or `'*env'` reads `.env`): such a read is of
 * files only known at run time. Before `--`, `git grep`'s operands may be revisions, whose whole
 * tree is read (`git grep KEY HEAD`). `REV:PATH` in any sub-command names PATH as stored.
 */
function gitReads(words: readonly ShellWord[], reads: ShellWord[]): ShellWord[] {
  const sub = words.findIndex((w, k) => k > 0 && w.literal && !w.value.startsWith("-") && words[k - 1]?.value !== "-C");
  const grep = words[sub]?.value === "grep";
  const dashes = words.findIndex((w) => w.literal && w.value === "--");
  // `git grep KEY REV -- PATH` reads only PATH of REV: then the pathspecs after `--` are what is judged.
  const bounded = dashes !== -1 && dashes < words.length - 1;
  const patterns = words.some((w, k) => k < sub && /^--(glob|icase)-pathspecs$/.test(w.value));
  const judged = [...reads, ...printedContents(words, sub)].map((w) => {
    if (!w.literal) return w;
    const at = words.indexOf(w);
    if (grep && at !== -1 && !bounded && (dashes === -1 || at < dashes))
      return {
        ...w,
        literal: false,
        text: `${w.text} (a revision, whose files are only known at run time, or a path)`,
      };
    if (patterns || w.value.startsWith(":") || /[*?[]/.test(w.value))
      return { ...w, literal: false, text: `${w.text} (a pathspec, whose files are only known at run time)` };
    return w;
  });
  // git diff HEAD:.env, git grep KEY HEAD:, git archive HEAD:sub, git show :0:.env: the path part is read as stored.
  const stored = words.slice(sub + 1).flatMap((w) => {
    const path = w.literal ? gitObjectPath(w.value) : undefined;
    return path === undefined ? [] : [literalWord(path)];
  });
  return [...judged, ...stored, ...lineRangeFiles(words), ...batchObjects(words)];
}

// How a sub-command prints the contents of files from revisions, the index or the work tree:
// `default` unless an option limits it to names and counts, `asked` only with a patch option,
// `always` whatever its options.
const PRINTS_CONTENTS: Readonly<Record<string, "default" | "asked" | "always">> = {
  diff: "default",
  show: "default",
  log: "asked",
  whatchanged: "asked",
  reflog: "asked",
  stash: "asked",
  status: "asked",
  commit: "asked",
  "diff-tree": "asked",
  "diff-index": "asked",
  "diff-files": "asked",
  "format-patch": "always",
  "range-diff": "always",
};
// Options that print contents (`-p`, `-U3`, `--word-diff`, `status -v`), or tell them apart by a string (`-S`, `-G`).
const CONTENT_OPTION =
  /^(--patch|--patch-with-raw|--patch-with-stat|--cc|--dd|--remerge-diff|--full-diff|--check|--binary|--function-context|--word-diff|--color-words|--unified|--pickaxe-all|--pickaxe-regex|--find-object|--verbose|--text)(=|$)|^-[a-zA-Z]*[puUSGWLvcm]/;
const VERBOSE = /^(--verbose$|-[a-zA-Z]*v)/;
// Options that print only names, counts or object names.
const NO_CONTENT =
  /^(--stat|--numstat|--shortstat|--name-only|--name-status|--dirstat|--summary|--no-patch|--quiet|--raw|--compact-summary)(=|$)|^-s$/;

/**
 * git diff, git show, git log -p and their kin print the contents of every file a revision, the
 * index or the work tree holds, a file a Read deny rule names among them (`git add -A && git diff
 * --cached`, `git log -p` of a committed .env): files only known at run time, unless paths after
 * `--` bound them (then those paths are what is read).
 */
function printedContents(words: readonly ShellWord[], sub: number): ShellWord[] {
  const how = PRINTS_CONTENTS[words[sub]?.value ?? ""];
  if (!how) return [];
  const name = words[sub]!.value;
  const dashes = words.findIndex((w) => w.literal && w.value === "--");
  const options = words.slice(sub + 1, dashes === -1 ? undefined : dashes);
  if (options.some((w) => w.literal && w.value === "--no-index")) return [];
  // `-L RANGE:FILE` prints only those lines (lineRangeFiles judges FILE).
  if (options.some((w) => w.literal && /^-L/.test(w.value))) return [];
  // `git show REV:PATH`, `git diff REV:PATH FILE`: blobs and files, each judged by its path
  // (git diff takes a blob only against a blob or a file: `git diff HEAD:x HEAD` is refused).
  const operands = options.filter((w) => !w.literal || !w.value.startsWith("-"));
  const blobs = operands.filter((w) => w.literal && gitObjectPath(w.value) !== undefined).length;
  if (blobs > 0 && (blobs === operands.length || (name === "diff" && operands.length === 2))) return [];
  // `stash list` and `stash show` take log's options; `stash push -m x` prints nothing.
  if (name === "stash" && !options.some((w) => /^(list|show)$/.test(w.value))) return [];
  // status -v and commit -v print the staged changes; their other options are no patch options (`commit -m`).
  const test = name === "status" || name === "commit" ? VERBOSE : CONTENT_OPTION;
  const content = options.some((w) => !w.literal || test.test(w.value));
  const prints =
    how === "always" || content || (how === "default" && !options.some((w) => w.literal && NO_CONTENT.test(w.value)));
  if (!prints) return [];
  const paths = dashes === -1 ? [] : words.slice(dashes + 1);
  if (paths.length > 0) return [...paths];
  return [
    {
      ...literalWord("(the files of the revisions, index or work tree it prints)"),
      literal: false,
      text: `git ${name} (the contents of files only known at run time; name them after --)`,
    },
  ];
}

/**
 * git log -L RANGE:FILE prints FILE's lines through history (`-L1,1:.env`, `-L:funcname:.env`).
 * Where the range ends depends on its regexes (`-L'/a:b/,+1:.env'`): every text after a colon is
 * judged as the file, and a run-time value is an unknown read.
 */
function lineRangeFiles(words: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    const value =
      w.value === "-L" ? words[k + 1] : /^-L./.test(w.value) ? { ...w, value: w.value.slice(2) } : undefined;
    if (!value) continue;
    if (!value.literal) out.push({ ...value, literal: false });
    else
      for (let at = value.value.indexOf(":"); at !== -1; at = value.value.indexOf(":", at + 1))
        if (at + 1 < value.value.length) out.push(literalWord(value.value.slice(at + 1)));
  }
  return out;
}

/** git cat-file --batch and --batch-command print the objects stdin names (`echo HEAD:.env | git cat-file --batch`). */
function batchObjects(words: readonly ShellWord[]): ShellWord[] {
  return words.some((w) => /^--batch(-command)?(=|$)/.test(w.value) || w.value === "--batch-all-objects")
    ? [{ ...literalWord("(the objects named on stdin)"), literal: false }]
    : [];
}

/**
 * diff's --from-file and --to-file name an operand for every other one: a folder there is read as
 * a folder operand is (`diff --to-file=. d/.env` compares d/.env with ./.env and prints it).
 */
function diffFileOptions(words: readonly ShellWord[]): ShellWord[] {
  return words.flatMap((w, k) => {
    const m = /^--(from|to)-file(=?)(.*)$/.exec(w.value);
    if (!m) return [];
    if (m[2] === "=") return [{ ...w, value: m[3]! }];
    const next = words[k + 1];
    return next ? [next] : [];
  });
}

/**
 * `git checkout -b NAME` and `git switch -c NAME` without a start point make a branch at HEAD and
 * leave the work tree as it is; with one (or any other operand) they write it.
 */
function newBranchOnly(words: readonly ShellWord[], sub: string, create: RegExp): boolean {
  const rest = words.slice(words.findIndex((w) => w.value === sub) + 1);
  const at = rest.findIndex((w) => create.test(w.value));
  if (at === -1) return false;
  const value = rest[at]!.value.includes("=") ? at : at + 1;
  return rest.every((w, k) => k === at || k === value || (w.literal && w.value.startsWith("-")));
}

/** A read of the contents of an object git finds by a name the command line gives no path for. */
const objectRead = (w: ShellWord): ShellWord => ({
  ...w,
  literal: false,
  text: `${w.text} (an object of the repository, which may be any file's contents: name it REV:PATH)`,
});

/**
 * git cat-file prints the object each operand names. `REV:PATH` is judged by its PATH
 * (gitObjectPath); any other name (the blob id `git ls-tree` printed, a tag made to point at a
 * blob, `v1^{}`) may hold any file's contents, a Read-denied .env committed once among them, so
 * it is a file only known at run time unless the command asks only for the type, size or
 * existence (-t, -s, -e).
 */
function catFileObjects(words: readonly ShellWord[]): ShellWord[] {
  const rest = words.slice(words.findIndex((w) => w.value === "cat-file") + 1);
  const options = rest.filter((w) => w.literal && w.value.startsWith("-"));
  const metadataOnly =
    options.length > 0 &&
    options.every((w) => /^(-[tse]|--allow-unknown-type|--use-mailmap|--no-use-mailmap)$/.test(w.value));
  if (metadataOnly) return [];
  return rest
    .filter((w) => !w.literal || (!w.value.startsWith("-") && gitObjectPath(w.value) === undefined))
    .map(objectRead);
}

// The fields of a ref format (for-each-ref, branch, tag --format) that print names, dates and
// messages, never an object's stored bytes. Any other (`%(raw)`, `%(*raw)`, a field added by a
// later git) may print a blob a ref points at: a file only known at run time.
const REF_FIELDS = new Set(
  "refname objecttype objectsize objectname deltabase upstream push HEAD symref worktreepath creatordate creator tree parent numparent object type tag author authorname authoremail authordate committer committername committeremail committerdate tagger taggername taggeremail taggerdate subject body trailers contents signature describe if then else end align color rest ahead-behind is-base".split(
    " ",
  ),
);

/** The format of for-each-ref, branch and tag prints each ref's object through its fields: one that may print stored bytes is a read of an object. */
function refFormatObjects(words: readonly ShellWord[]): ShellWord[] {
  return words.flatMap((w, k) => {
    const format = /^--format=/.test(w.value)
      ? w.value.slice(9)
      : words[k - 1]?.value === "--format"
        ? w.value
        : undefined;
    if (format === undefined) return [];
    if (!w.literal) return [objectRead(w)];
    const fields = [...format.matchAll(/%\(\*?([^):]*)/g)].map((m) => m[1]!);
    return fields.every((f) => REF_FIELDS.has(f)) ? [] : [objectRead(w)];
  });
}

// Options of git's remote sub-commands that take their value as the next word.
const GIT_REMOTE_VALUE =
  /^(-j|-o|-b|-t|-m|--jobs|--depth|--deepen|--shallow-since|--shallow-exclude|--push-option|--server-option|--sort|--origin|--branch|--revision|--filter|--upload-pack|--receive-pack|--exec)$/;

/**
 * The repositories a git command talks to: the first operand of push, fetch, pull, ls-remote
 * and clone, and the URL of `remote add NAME URL` (`named`: it stays in the configuration, for a
 * later `git push NAME`). A local one is another repository git runs in: `git push ./sub` starts
 * receive-pack in ./sub, which runs its core.alternateRefsCommand (subject.ts judges them on disk).
 */
export function gitRepositories(words: readonly ShellWord[]): { word: ShellWord; named: boolean }[] {
  const at = words.findIndex((w, k) => k > 0 && w.literal && !w.value.startsWith("-") && words[k - 1]?.value !== "-C");
  const sub = words[at]?.value;
  const operands = (from: number) =>
    words
      .slice(from)
      .filter(
        (w, k, all) =>
          !(w.literal && w.value.startsWith("-")) && !(all[k - 1]?.literal && GIT_REMOTE_VALUE.test(all[k - 1]!.value)),
      );
  if (sub === "push" || sub === "fetch" || sub === "pull" || sub === "ls-remote" || sub === "clone") {
    const repo = operands(at + 1)[0];
    // No repository: the branch's remote, from the configuration (subject.ts reads every remote there).
    return repo ? [{ word: repo, named: false }] : sub === "clone" ? [] : [{ word: literalWord(""), named: false }];
  }
  if (sub === "remote") {
    const rest = operands(at + 1);
    if (rest[0]?.value === "add" && rest[2]) return [{ word: rest[2], named: true }];
  }
  return [];
}

/**
 * The file `git config --global` or `--system` changes (`git config --global user.name x` writes
 * ~/.gitconfig, outside the project): the user's or the machine's, judged as a write there. A
 * read (`--get`, `--list`, one key alone) writes nothing; any other form may.
 */
function gitConfigFile(words: readonly ShellWord[]): ShellWord[] {
  const args = words.slice(words.findIndex((x) => x.value === "config") + 1);
  const global = args.some((a) => a.value === "--global");
  const system = args.some((a) => a.value === "--system");
  if (!global && !system) return [];
  const reads = /^--(get|get-all|get-regexp|get-urlmatch|get-color|get-colorbool|list)$|^-l$/;
  const operands = args.filter((a) => !a.value.startsWith("-")).map((a) => a.value);
  const verbs = /^(get|list|get-regexp|get-all|get-urlmatch|get-color|get-colorbool)$/;
  const reading =
    args.some((a) => reads.test(a.value)) ||
    verbs.test(operands[0] ?? "") ||
    (operands.length === 1 && !/^(set|unset)$/.test(operands[0]!) && !args.some((a) => !a.literal));
  if (reading) return [];
  return [
    ...(global ? [{ ...literalWord("~/.gitconfig"), tilde: true }] : []),
    ...(system ? [literalWord("/etc/gitconfig")] : []),
  ];
}

/**
 * The parts of the git folder `git init --bare [DIR]` makes (HEAD, objects, refs), in DIR or the `-C`
 * folder: an existing DIR keeps its config, so a folder holding a config written earlier becomes a
 * repository that runs it (`git init --bare sub && git -C sub fetch origin` ran sub's
 * remote.origin.uploadpack; red team zk, ZK1). Named as writes, they are judged with the command's
 * other writes (the parts of a root, a git folder made where git then runs). A word only known at
 * run time is given back as it is: where the repository goes is then not known.
 */
function bareInitParts(words: readonly ShellWord[]): ShellWord[] {
  const at = words.findIndex((w) => w.literal && w.value === "init");
  const args = words.slice(at + 1);
  if (!args.some((w) => w.literal && w.value === "--bare")) return [];
  const dynamic = words.find((w) => !w.literal);
  if (dynamic) return [dynamic];
  const valued = /^(-b|--initial-branch|--object-format|--ref-format|--template|--separate-git-dir)$/;
  let dir: string | undefined;
  for (let k = 0; k < args.length; k++) {
    const v = args[k]!.value;
    if (v === "--") {
      dir = args[k + 1]?.value;
      break;
    }
    if (valued.test(v)) k++;
    else if (!v.startsWith("-")) {
      dir = v;
      break;
    }
  }
  const folders = words
    .slice(1, at)
    .flatMap((w, k, all) => (w.value === "-C" && all[k + 1] ? [all[k + 1]!.value] : []));
  const base = [...folders, dir ?? "."].reduce((a, b) => (b.startsWith("/") ? b : `${a}/${b}`));
  return ["HEAD", "objects", "refs"].map((part) => ({
    ...literalWord(`${base}/${part}`),
    tilde: base.startsWith("~"),
  }));
}

/**
 * git commit without a message (-m, -F, -C, --no-edit), with -c (edit a reused message) or a
 * `--fixup=amend:`/`reword:`, and an annotated tag without -m or -F open the editor: core.editor,
 * VISUAL, EDITOR or vi, a program no word of the command names (the reason -e is left out).
 */
function editorOpened(words: readonly ShellWord[], sub: "commit" | "tag"): { at: number; why: string } | undefined {
  const at = words.findIndex((w) => w.value === sub);
  const rest = words.slice(at + 1).map((w) => w.value);
  const has = (re: RegExp) => rest.some((v) => re.test(v));
  if (sub === "tag") {
    const annotated = has(/^(--annotate|-[a-zA-Z]*a)$/);
    const message = has(/^(--message|--file)(=|$)|^-[a-zA-Z]*[mF]/);
    const listing = has(/^(-l|--list|-d|--delete)$/);
    return annotated && !message && !listing
      ? { at, why: "git tag -a without -m or -F opens the editor core.editor names" }
      : undefined;
  }
  if (has(/^--dry-run$/)) return undefined;
  const fixups = rest.flatMap((v, k) =>
    v === "--fixup" ? [rest[k + 1] ?? ""] : v.startsWith("--fixup=") ? [v.slice(8)] : [],
  );
  const reedit = has(/^(-c|--reedit-message)(=|$)|^-c./) || fixups.some((v) => /^(amend|reword):/.test(v));
  const message = has(/^(--message|--file|--reuse-message)(=|$)|^--no-edit$|^-[a-zA-Z]*[mFC]/) || fixups.length > 0;
  return reedit || !message
    ? { at, why: "git commit without -m, -F, -C or --no-edit opens the editor core.editor names" }
    : undefined;
}

/**
 * The pathspecs after `--` of a command that prints stored contents (`git log -p -- .`, `git show
 * REV -- src`, `git diff --cached -- .`) name every file the revisions
 * or the index hold below them: read to the bottom, as stored (ShellWord.stored). They were judged
 * as the folder itself, so `git log -p -- .` printed a committed .env under a Read deny rule.
 */
function gitStoredPaths(words: readonly ShellWord[]): ShellWord[] {
  const sub = words.findIndex((w, k) => k > 0 && w.literal && !w.value.startsWith("-") && words[k - 1]?.value !== "-C");
  const dashes = words.findIndex((w) => w.literal && w.value === "--");
  if (sub === -1 || (dashes === -1 && words[sub]!.value !== "grep")) return [];
  // git grep reads what a revision or the index stores below its pathspecs (after `--`; before
  // it they are revisions), or below `.`: without `--` a path operand is only known at run time
  // already (gitReads). git archive's folders are stored ones by its spec (`stored`).
  const printed =
    words[sub]!.value === "grep"
      ? dashes === -1
        ? [literalWord(".")]
        : words.slice(dashes + 1)
      : printedContents(words, sub);
  // Magic and globs are only known at run time already (gitReads).
  return printed
    .filter((w) => w.literal && !w.value.startsWith(":") && !/[*?[]/.test(w.value))
    .map((w) => ({ ...w, stored: true }));
}

const git: ProgramSpecSource = {
  readsAs: gitReads,
  readsBelow: gitStoredPaths,
  // Global options before the sub-command: -C moves to a folder; -c, --git-dir, --work-tree,
  // --exec-path and --config-env are left out (they name configuration or programs).
  options: `-C=d --no-pager -P --no-optional-locks --literal-pathspecs --glob-pathspecs --noglob-pathspecs --icase-pathspecs --no-replace-objects --no-lazy-fetch ${HELP} -v`,
  operands: "sub",
  sub: {
    status: {
      options:
        "-s --short -b --branch --show-stash --porcelain?= --long -v --verbose -u?= --untracked-files?= --ignore-submodules?= --ignored?= -z --column?= --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames?=",
      operands: "read*",
    },
    log: { options: GIT_LOG, operands: "data*" },
    show: { options: `${GIT_LOG}`, operands: "data*" },
    // Paths and revisions alike are read (`git diff --no-index ~/.ssh/id_rsa /dev/null` prints the key).
    diff: {
      options: `${GIT_DIFF} --cached --staged --no-index`,
      operands: "read*",
      recursive: (w) => w.some((x) => x.value === "--no-index"),
    },
    whatchanged: { options: GIT_LOG, operands: "data*" },
    shortlog: {
      options:
        "-n --numbered -s --summary -e --email -c --committer --all -w?= --format= --group= --since= --until= --no-merges --merges",
      operands: "data*",
    },
    // Staging reads every file it takes into the index, from where a commit and a push carry it:
    // every file below its pathspecs, or the whole work tree (`git add -A`, `-u`).
    add: {
      recursive: (_w, options) => !options.includes("-n") && !options.includes("--dry-run"),
      options:
        "-n --dry-run -v --verbose -f --force -u --update -A --all --no-all --ignore-removal --no-ignore-removal -N --intent-to-add --refresh --ignore-errors --ignore-missing --renormalize --no-warn-embedded-repo --chmod= --sparse",
      operands: "read*",
    },
    commit: {
      // -e/--edit, -S/--gpg-sign and -t/--template are left out: they run an editor or a signing program.
      options:
        "-m= --message= -a --all -F=r --file=r --amend --no-edit -q --quiet -v --verbose -s --signoff --no-signoff --allow-empty --allow-empty-message --author= --date= -n --no-verify --verify --fixup= --squash= -C= --reuse-message= --reset-author --dry-run --short --porcelain --long -z --null -u?= --untracked-files?= -i --include -o --only --cleanup= --no-post-rewrite --status --no-status --trailer= -c= --reedit-message= --no-gpg-sign",
      operands: "read*",
      check: (w) => editorOpened(w, "commit"),
      // -a stages every tracked file's changes; pathspecs commit every file below them.
      recursive: (_w, options, operands) => operands.length > 0 || options.includes("-a") || options.includes("--all"),
    },
    branch: {
      options:
        "-a --all -r --remotes -v -vv --verbose -l --list --show-current -d --delete -D -f --force -m --move -M -c --copy -C --contains= --no-contains= --merged?= --no-merged?= --sort= --format= --points-at= -u= --set-upstream-to= --unset-upstream -t --track?= --no-track --color?= --no-color --column?= --no-column -q --quiet --abbrev= --no-abbrev -i --ignore-case --create-reflog",
      operands: "data*",
      reads: refFormatObjects,
    },
    checkout: {
      tree: (w) => !newBranchOnly(w, "checkout", /^(-b|-B|--orphan)(=|$)/),
      options:
        "-b= -B= -f --force -q --quiet --detach -t --track?= --no-track --orphan= -l --merge -m --conflict= --ours --theirs --ignore-skip-worktree-bits --overwrite-ignore --no-overwrite-ignore --recurse-submodules?= --no-recurse-submodules --progress --no-progress --guess --no-guess",
      operands: "write*",
    },
    switch: {
      tree: (w) => !newBranchOnly(w, "switch", /^(-c|--create|-C|--force-create|--orphan)(=|$)/),
      options:
        "-c= --create= -C= --force-create= -d --detach -f --force --discard-changes -t --track?= --no-track --orphan= -m --merge --conflict= -q --quiet --progress --no-progress --guess --no-guess --ignore-other-worktrees",
      operands: "data*",
    },
    restore: {
      // --staged alone restores the index, not the work tree.
      tree: (w) => !w.some((x) => /^(-S|--staged)$/.test(x.value)) || w.some((x) => /^(-W|--worktree)$/.test(x.value)),
      options:
        "-s= --source= -S --staged -W --worktree --ours --theirs -m --merge --conflict= -q --quiet --progress --no-progress --ignore-unmerged --overlay --no-overlay",
      operands: "write*",
    },
    reset: {
      tree: (w) => w.some((x) => /^--(hard|merge|keep)$/.test(x.value)),
      options:
        "--soft --mixed --hard --merge --keep -q --quiet -N --no-refresh --refresh --recurse-submodules?= --no-recurse-submodules",
      operands: "data*",
    },
    stash: {
      tree: (w) => !w.some((x) => /^(list|show|create|store|drop|clear)$/.test(x.value)),
      // `git stash` alone is `git stash push`: both store the work tree's changes in a commit.
      recursive: (_w, _options, operands) => operands.length === 0,
      options: "",
      operands: "sub",
      sub: Object.fromEntries(
        ["list", "show", "push", "save", "pop", "apply", "drop", "clear", "branch", "create", "store"].map((s) => [
          s,
          {
            options: `-m= --message= -u --include-untracked -k --keep-index --no-keep-index -a --all -q --quiet --index -S --staged ${s === "list" || s === "show" ? GIT_LOG : ""}`,
            operands: s === "push" ? "read*" : "data*",
            ...(s === "push" || s === "save" || s === "create" ? { recursive: true } : {}),
          },
        ]),
      ),
    },
    fetch: { options: GIT_REMOTE_OPTS, operands: "data*" },
    pull: {
      tree: true,
      options: `${GIT_REMOTE_OPTS} --rebase?= --no-rebase --ff --no-ff --ff-only --squash --no-squash --commit --no-commit --edit --no-edit --stat --no-stat --autostash --no-autostash --allow-unrelated-histories --log?= --no-log --verify --no-verify`,
      operands: "data*",
    },
    push: {
      options: `${GIT_REMOTE_OPTS} --delete -d --mirror --follow-tags --no-follow-tags --force-with-lease?= --force-if-includes --no-force-with-lease --no-verify --verify --push-option= -o= --signed?= --no-signed`,
      operands: "data*",
    },
    merge: {
      tree: true,
      options:
        "--commit --no-commit --edit --no-edit --ff --no-ff --ff-only --log?= --no-log --signoff --no-signoff --stat --no-stat -n --squash --no-squash --verify --no-verify -m= -F=r --file=r --abort --quit --continue --allow-unrelated-histories --autostash --no-autostash -q --quiet -v --verbose --progress --no-progress",
      operands: "data*",
    },
    rebase: {
      tree: true,
      options:
        "--onto= --keep-base --continue --abort --quit --skip --autosquash --no-autosquash --autostash --no-autostash -q --quiet -v --verbose --stat -n --no-stat --no-verify --verify -f --force-rebase --fork-point --no-fork-point --ignore-whitespace --committer-date-is-author-date --ignore-date --reset-author-date --signoff --root --update-refs --no-update-refs --rebase-merges?= --no-rebase-merges --empty= --keep-empty --no-keep-empty --reapply-cherry-picks --no-reapply-cherry-picks --allow-empty-message --apply --merge -m --no-ff",
      operands: "data*",
    },
    "cherry-pick": {
      tree: true,
      options:
        "-n --no-commit -x -m= --mainline= --continue --abort --quit --skip --ff --allow-empty --allow-empty-message --keep-redundant-commits --signoff -s",
      operands: "data*",
    },
    revert: {
      tree: true,
      options: "-n --no-commit -m= --mainline= --continue --abort --quit --skip --no-edit --signoff -s",
      operands: "data*",
    },
    tag: {
      options:
        "-a --annotate -m= --message= -F=r --file=r -d --delete -l --list -n?= -f --force --sort= --contains= --no-contains= --merged?= --no-merged?= --points-at= --format= --column?= --no-column -i --ignore-case --create-reflog --no-sign",
      operands: "data*",
      check: (w) => editorOpened(w, "tag"),
      reads: refFormatObjects,
    },
    "rev-parse": {
      options:
        "--show-toplevel --show-prefix --show-cdup --git-dir --git-common-dir --absolute-git-dir --is-inside-work-tree --is-inside-git-dir --is-bare-repository --is-shallow-repository --abbrev-ref?= --short?= --verify -q --quiet --symbolic --symbolic-full-name --all --branches?= --tags?= --remotes?= --default= --revs-only --no-revs --flags --no-flags --sq --local-env-vars --show-superproject-working-tree --show-object-format?= --path-format= --since= --until= --parseopt --stop-at-non-option --keep-dashdash --sq-quote --disambiguate= --git-path=",
      operands: "data*",
    },
    "ls-files": {
      options:
        "-c --cached -d --deleted -m --modified -o --others -i --ignored -s --stage -u --unmerged -k --killed -z -t -v -f --full-name --recurse-submodules --error-unmatch --exclude= -x= --exclude-from=r -X=r --exclude-per-directory= --exclude-standard --directory --no-empty-directory --eol --deduplicate --abbrev?= --debug --format= --sparse",
      operands: "read*",
    },
    "ls-tree": {
      options:
        "-d -r -t -l --long -z --name-only --name-status --object-only --full-name --full-tree --abbrev?= --format=",
      operands: "data*",
    },
    "ls-remote": {
      options:
        "-h --heads -b --branches -t --tags --refs -q --quiet --exit-code --get-url --symref --sort= -o= --server-option=",
      operands: "data*",
    },
    remote: {
      options: "-v --verbose",
      operands: "sub",
      sub: {
        show: { options: "-n", operands: "data*" },
        "get-url": { options: "--push --all", operands: "data*" },
        add: { options: "-t= -m= -f --tags --no-tags --mirror?=", operands: "data*" },
        remove: { operands: "data*" },
        rm: { operands: "data*" },
        rename: { options: "--progress --no-progress", operands: "data*" },
        prune: { options: "-n --dry-run", operands: "data*" },
        update: { options: "-p --prune", operands: "data*" },
        "set-head": { options: "-a --auto -d --delete", operands: "data*" },
      },
    },
    blame: {
      options:
        "-b --root --show-stats -L= -l -t -S=r --reverse= --first-parent -p --porcelain --line-porcelain --incremental --encoding= --contents=r --date= --progress --no-progress -M?= -C?= --ignore-rev= --ignore-revs-file=r --color-lines --color-by-age -h -c --score-debug -f --show-name -n --show-number -s -e --show-email -w --abbrev=",
      operands: "read*",
    },
    describe: {
      options:
        "--dirty?= --broken?= --all --tags --contains --abbrev= --candidates= --exact-match --debug --long --match= --exclude= --always --first-parent",
      operands: "data*",
    },
    mv: {
      options: "-f --force -k -n --dry-run -v --verbose --sparse",
      operands: "write*",
      copies: (w) => copyOperands([literalWord("mv"), ...w.slice(w.findIndex((x) => x.value === "mv") + 1)]),
    },
    rm: { options: "-f --force -n --dry-run -r --cached --ignore-unmatch --sparse -q --quiet", operands: "write*" },
    clean: {
      tree: true,
      options: "-d -f --force -i? -n --dry-run -q --quiet -e= --exclude= -x -X",
      operands: "write*",
    },
    init: {
      links: () => true,
      writes: bareInitParts,
      options: "-q --quiet --bare --object-format= --ref-format= -b= --initial-branch= --shared?=",
      operands: "write*",
      opensModes: gitInitShared,
    },
    clone: {
      links: () => true,
      writes: cloneTarget,
      options:
        "-l --local --no-hardlinks -s --shared --dissociate -q --quiet -v --verbose --progress --no-checkout -n --bare --mirror -o= --origin= -b= --branch= --revision= --depth= --shallow-since= --shallow-exclude= --single-branch --no-single-branch --no-tags --tags --filter= --also-filter-submodules --sparse --reject-shallow --no-reject-shallow",
      operands: "data write*",
    },
    config: {
      persists: (w) => gitConfigRisk(w.slice(w.findIndex((x) => x.value === "config") + 1).map((x) => x.value)),
      writes: gitConfigFile,
      options:
        "--global --system --local --worktree --get --get-all --get-regexp --get-urlmatch --get-color --get-colorbool -l --list --show-origin --show-scope --name-only --type= --bool --int --bool-or-int --path --expiry-date --default= -z --null --includes --no-includes",
      operands: "data*",
    },
    grep: {
      options: `${GREP.replace(" -f=R --file=R", "").replace(" -r -R", "")} --cached --untracked --no-index --no-exclude-standard --exclude-standard --recurse-submodules --max-depth= --all-match --and --or --not --threads= --break --heading --full-name --show-function -p --function-context -W`,
      operands: "pattern read*",
      recursive: true,
    },
    "show-ref": {
      options:
        "--head --heads --branches --tags -d --dereference -s --hash?= --verify --abbrev?= -q --quiet --exclude-existing?= --exists",
      operands: "data*",
    },
    "for-each-ref": {
      options:
        "--count= --sort= --format= --points-at= --merged?= --no-merged?= --contains= --no-contains= --exclude= --ignore-case --omit-empty --shell --perl --python --tcl --color?=",
      operands: "data*",
      reads: refFormatObjects,
    },
    "cat-file": {
      options:
        "-t -s -e -p --textconv? --filters? --batch?= --batch-check?= --batch-command?= --batch-all-objects --buffer --unordered --follow-symlinks --allow-unknown-type -Z --use-mailmap --no-use-mailmap",
      operands: "data*",
      reads: catFileObjects,
    },
    "merge-base": { options: "-a --all --octopus --independent --is-ancestor --fork-point", operands: "data*" },
    "rev-list": {
      options: `${GIT_LOG} --objects --objects-edge --count --not --quiet --disk-usage?= --header --timestamp --bisect --in-commit-order`,
      operands: "data*",
    },
    reflog: { options: `${GIT_LOG}`, operands: "data*" },
    "count-objects": { options: "-v --verbose -H --human-readable", operands: "" },
    version: { options: "--build-options", operands: "" },
    "check-ignore": { options: "-q --quiet -v --verbose -n --non-matching --no-index -z --stdin", operands: "read*" },
    "check-attr": { options: "-a --all --cached --stdin -z --source=", operands: "data*" },
    "name-rev": {
      options: "--tags --refs= --exclude= --all --annotate-stdin --name-only --no-undefined --always",
      operands: "data*",
    },
    "range-diff": {
      options: `${GIT_DIFF} --creation-factor= --no-dual-color --left-only --right-only`,
      operands: "data*",
    },
    "format-patch": {
      options: `${GIT_DIFF} -o=w --output-directory=w --stdout -n --numbered -N --no-numbered --start-number= --cover-letter --no-cover-letter -v= --reroll-count= --subject-prefix= --rfc?= --signoff -s --thread?= --no-thread --base= --zero-commit -# --suffix= -k --keep-subject --no-binary --from?= --to= --cc= --in-reply-to= --quiet --progress`,
      operands: "data*",
      check: formatPatchSuffix,
      writes: formatPatchFiles,
    },
    archive: {
      options:
        "--format= -l --list -v --verbose --prefix= -o=w --output=w --worktree-attributes --add-file=r -# --mtime=",
      // git archive TREE PATH…: the paths are what goes into the archive, read as stored, folders
      // whole (the whole tree when none is named).
      operands: "data read*",
      recursive: true,
      stored: true,
    },
    bisect: {
      operands: "sub",
      // `bisect run` is left out: it runs a program.
      sub: Object.fromEntries(
        [
          "start",
          "bad",
          "good",
          "new",
          "old",
          "terms",
          "skip",
          "reset",
          "visualize",
          "view",
          "replay",
          "log",
          "help",
        ].map((s) => [
          s,
          {
            options: "--term-old= --term-new= --term-bad= --term-good= --no-checkout --first-parent",
            operands: "data*",
            tree: !/^(terms|visualize|view|log|help)$/.test(s),
          },
        ]),
      ),
    },
    notes: { operands: "sub", sub: { list: { operands: "data*" }, show: { operands: "data*" } } },
    help: { options: "-a --all -g --guides --config -v --verbose", operands: "data*" },
    "symbolic-ref": { options: "-q --quiet --short --no-recurse", operands: "data*" },
    // --stdin-paths is left out: the files it reads arrive on stdin.
    "hash-object": { options: "-t= -w --stdin --literally --no-filters --path=", operands: "read*" },
    "diff-tree": { options: `${GIT_DIFF} -r -t --root --stdin -m -c --cc --always --no-commit-id`, operands: "data*" },
    "diff-index": { options: `${GIT_DIFF} --cached -m`, operands: "data*" },
    "diff-files": { options: `${GIT_DIFF} -q -0 -1 -2 -3 --base --ours --theirs -c --cc`, operands: "data*" },
    worktree: { operands: "sub", sub: { list: { options: "--porcelain -v --verbose --expire= -z", operands: "" } } },
    submodule: {
      options: "--quiet -q",
      operands: "sub",
      sub: {
        status: { options: "--cached --recursive", operands: "data*" },
        summary: { options: "--cached --files -n= --summary-limit=", operands: "data*" },
      },
    },
    gc: {
      options: "--aggressive --auto --quiet --prune?= --no-prune --keep-largest-pack --cruft --no-cruft",
      operands: "",
    },
    // --lost-found is left out: it writes a copy of each dangling object (a .env staged once, then
    // unstaged) into .git/lost-found/, where a later `cat` reads it by a name no rule gives.
    fsck: {
      options:
        "--unreachable --dangling --no-dangling --root --tags --cache --no-reflogs --full --no-full --connectivity-only --strict --verbose --name-objects --no-progress --progress",
      operands: "data*",
    },
    "update-index": {
      options:
        "--add --remove --refresh --really-refresh -q --ignore-missing --assume-unchanged --no-assume-unchanged --skip-worktree --no-skip-worktree --chmod=",
      operands: "read*",
    },
    "verify-commit": { options: "-v --verbose --raw", operands: "data*" },
    "verify-tag": { options: "-v --verbose --raw --format=", operands: "data*" },
    cherry: { options: "-v --abbrev?=", operands: "data*" },
    "show-branch": {
      options:
        "-r --remotes -a --all --current --topo-order --date-order --sparse --more= --list --merge-base --independent --no-name --sha1-name --topics -g --reflog?= --color?= --no-color",
      operands: "data*",
    },
    var: { options: "-l", operands: "data*" },
    // `maintenance run` runs git's own tasks; register/start install a scheduler entry.
    maintenance: {
      options: "--task= --auto --schedule= --quiet --scheduler=",
      operands: "data*",
      // unregister removes the repository from maintenance.repo in ~/.gitconfig.
      writes: (w) => (w.some((x) => x.value === "unregister") ? [{ ...literalWord("~/.gitconfig"), tilde: true }] : []),
      persists: (w) =>
        w.some((x) => /^(register|start)$/.test(x.value))
          ? "git maintenance register schedules git to run in this repository later"
          : undefined,
    },
  },
};

// go: the flags shared by build, test, run, vet, install; -exec, -toolexec, -vettool, -overlay and
// -modfile are left out (they name programs or swap files), as are -ldflags and -gcflags' values
// that are not data (they are data, but -ldflags=-extld=… names a linker: left out too).
const GO_BUILD =
  "-v -x -n -a -race -msan -asan -cover -covermode= -coverpkg= -coverprofile=w -count= -run= -skip= -bench= -benchtime= -benchmem -timeout= -short -failfast -json -p= -parallel= -tags= -trimpath -mod= -buildvcs= -o=w -buildmode= -cpu= -shuffle= -fullpath -list= -outputdir=w -work -modcacherw -pgo=";
const go: ProgramSpecSource = {
  options: HELP,
  operands: "sub",
  sub: {
    // go build writes the package's program into the folder unless -o names it.
    build: { options: GO_BUILD, operands: "data*", tree: (w) => !w.some((x) => /^-o(=|$)/.test(x.value)) },
    test: { options: GO_BUILD, operands: "data*" },
    vet: { options: `${GO_BUILD} -printfuncs= -composites= -all`, operands: "data*" },
    run: { options: GO_BUILD, operands: "data*" },
    install: {
      options: GO_BUILD,
      operands: "data*",
      unproven: "go install writes a program into GOBIN (~/go/bin), outside the project, where it may run later",
    },
    // go fmt rewrites the packages' files in place (-n only prints the commands).
    fmt: { options: "-n -x -mod=", operands: "data*", tree: (w) => !w.some((x) => x.value === "-n") },
    list: {
      options: `${GO_BUILD} -m -f= -e -deps -export -find -compiled -test -u -versions -retracted -reuse=`,
      operands: "data*",
    },
    version: { options: "-m -v -json", operands: "data*" },
    env: { options: "-json -changed", operands: "data*" },
    doc: { options: "-all -c -cmd -short -src -u", operands: "data*" },
    mod: {
      operands: "sub",
      sub: {
        // tidy and vendor rewrite go.mod, go.sum and vendor/, files no word names.
        tidy: { options: "-v -e -go= -compat= -x", operands: "", tree: true },
        download: { options: "-json -x -reuse=", operands: "data*" },
        verify: { operands: "" },
        graph: { options: "-go= -x", operands: "" },
        why: { options: "-m -vendor", operands: "data*" },
        vendor: { options: "-v -e -o=w", operands: "", tree: true },
      },
    },
    get: { options: "-d -t -u -v -x -tool", operands: "data*", tree: true },
    // go clean removes built files of the packages; -i, -cache, -modcache, -testcache and -fuzzcache remove files outside the project.
    clean: {
      options: "-i -n -r -x -cache -testcache -modcache -fuzzcache",
      operands: "data*",
      tree: true,
      check: (w) => {
        const at = w.findIndex((x) => /^-(i|cache|testcache|modcache|fuzzcache)$/.test(x.value));
        return at === -1 ? undefined : { at, why: `go clean ${w[at]!.value} removes files outside the project` };
      },
    },
  },
};

// cargo: --config (sets a runner or a wrapper), --manifest-path and -Z are left out.
const CARGO =
  "-q --quiet -v --verbose -vv --color= --frozen --locked --offline --release -r --profile= --features= -F= --all-features --no-default-features --target= --target-dir=w -j= --jobs= --keep-going -p= --package= --workspace --all --exclude= --lib --bins --bin= --examples --example= --tests --test= --benches --bench= --all-targets --message-format= --timings?= --no-fail-fast --no-run --doc --ignore-rust-version --future-incompat-report";
const cargo: ProgramSpecSource = {
  options: `${HELP} -V -q --quiet -v --verbose --color= --frozen --locked --offline`,
  operands: "sub",
  sub: {
    "build|b": { options: CARGO, operands: "" },
    "check|c": { options: CARGO, operands: "" },
    "test|t": { options: CARGO, operands: "data*" },
    bench: { options: CARGO, operands: "data*" },
    "run|r": { options: CARGO, operands: "data*" },
    doc: { options: `${CARGO} --open --no-deps --document-private-items`, operands: "" },
    // clippy --fix and fmt (without --check) rewrite the crate's files; update rewrites Cargo.lock; clean removes target/.
    clippy: {
      options: `${CARGO} --fix --allow-dirty --allow-staged --no-deps`,
      operands: "data*",
      tree: (w) => w.some((x) => x.value === "--fix"),
    },
    fmt: {
      options: "--all --check -p= --package= -v -q --message-format=",
      operands: "data*",
      tree: (w) => !w.some((x) => x.value === "--check"),
    },
    clean: {
      options: "-p= --package= --release --target= --target-dir=w --doc -n --dry-run -q -v",
      operands: "",
      tree: (w) => !w.some((x) => /^(-n|--dry-run)$/.test(x.value)),
    },
    tree: {
      options:
        "-p= --package= --workspace -e= --edges= -i= --invert= --depth= --prefix= --no-dedupe -d --duplicates --features= --all-features --no-default-features --target= -q -v",
      operands: "",
    },
    metadata: {
      options: "--format-version= --no-deps --features= --all-features --no-default-features -q -v",
      operands: "",
    },
    update: {
      options: "-p= --package= --aggressive --precise= -w --workspace --dry-run -q -v --recursive",
      operands: "data*",
      tree: (w) => !w.some((x) => x.value === "--dry-run"),
    },
    fetch: { options: "--target= -q -v", operands: "" },
    version: { options: "-v", operands: "" },
  },
};

// pytest: -p (loads a plugin module), -c/--config-file, --rootdir, --confcutdir, --pyargs and
// --import-mode are left out, and so are -o/--override-ini (`-o addopts='-p evil'` and
// `-o pythonpath=…` load code as -p does); what it runs is the project's tests (risky.ts marks it
// project code). A -W filter naming a warning class by module (`error::evil.Bad`) imports that module.
const pytest: ProgramSpecSource = {
  check: (w) => {
    for (let at = 1; at < w.length; at++) {
      const v = w[at]!.value;
      const filter =
        v === "-W" || v === "--pythonwarnings" ? w[at + 1]?.value : /^-W./.test(v) ? v.slice(2) : undefined;
      if (filter !== undefined && (filter.split(":")[2] ?? "").includes("."))
        return { at, why: `pytest -W ${filter} imports the module of the warning class it names` };
    }
    return undefined;
  },
  options: `-q --quiet -v --verbose -vv -x --exitfirst --maxfail= -k= -m= -s --capture= -l --showlocals --tb= -r= --lf --last-failed --ff --failed-first --nf --new-first --sw --stepwise --co --collect-only --durations= --durations-min= --disable-warnings -W= --strict-markers --no-header --no-summary --color= --junitxml=w --junit-xml=w --cov= --cov-report= --cov-branch --cov-fail-under= --runxfail --deselect= --ignore= --ignore-glob= -n= --numprocesses= --timeout= --log-level= --log-cli-level= --doctest-modules --basetemp=w --full-trace --setup-show --fixtures --markers -V ${HELP}`,
  operands: "data*",
  writes: covReports,
};

// A package manager's sub-commands that run no package code (its own, reading the registry or the tree).
const pmReads = (extra = "") => ({
  options: `--json --long -l --parseable -p --depth= --all -a --global -g --prod --production --dev --omit= --include= --workspace= -w= --workspaces --include-workspace-root --silent -s --loglevel= ${extra}`,
  operands: "data*",
});
// Sub-commands that run the project's scripts or code: named by a rule, never by `Bash(npm:*)` alone (risky.ts marks them).
const pmRuns = {
  options:
    "--if-present --ignore-scripts --silent -s --workspace= -w= --workspaces --include-workspace-root --prefix=d --loglevel= --foreground-scripts --no-color --color= -ws",
  operands: "data*",
};
const npm: ProgramSpecSource = {
  options: `--prefix=d --silent -s --loglevel= -w= --workspace= --workspaces -ws --no-color ${HELP} -v`,
  operands: "sub",
  sub: {
    "test|t|tst": { ...pmRuns, canonical: ["run", "test"] },
    "config|c": { options: "--location= --global -g --json --long -l", operands: "data*", persists: npmConfigPersists },
    pkg: {
      options: "--json --workspace= -w= --workspaces",
      operands: "data*",
      writes: (w) => (w.some((x) => /^(set|delete|fix)$/.test(x.value)) ? [literalWord("package.json")] : []),
    },
    start: { ...pmRuns, canonical: ["run", "start"] },
    stop: { ...pmRuns, canonical: ["run", "stop"] },
    restart: { ...pmRuns, canonical: ["run", "restart", "stop", "start"] },
    version: { ...pmRuns, writes: () => [literalWord("package.json")] },
    "run|run-script|rum|urn": pmRuns,
    view: pmReads(),
    info: pmReads(),
    show: pmReads(),
    v: pmReads(),
    ls: pmReads(),
    list: pmReads(),
    ll: pmReads(),
    la: pmReads(),
    outdated: pmReads(),
    search: pmReads(),
    why: pmReads(),
    explain: pmReads(),
    root: pmReads(),
    prefix: pmReads(),
    bin: pmReads(),
    whoami: pmReads(),
    ping: pmReads(),
    doctor: pmReads(),
    audit: {
      ...pmReads("--audit-level= --omit="),
      check: (w) => {
        const at = w.findIndex((x) => x.value === "fix");
        return at === -1 ? undefined : { at, why: "npm audit fix installs packages, which runs their scripts" };
      },
    },
    help: pmReads(),
    "--version": pmReads(),
  },
};

const read = (options = "") => ({ options: `${options} ${HELP}`, operands: "read*", dynamicOk: true });
// Programs with options the spec leaves out that write or run (sort -o/--compress-program, tree -o, file -C): a run-time word may be one.
const nodyn = (options = "") => ({ options: `${options} ${HELP}`, operands: "read*" });
const data = (options = "") => ({ options: `${options} ${HELP}`, operands: "data*", dynamicOk: true });

const SOURCES: Record<string, ProgramSpecSource> = {
  // ── Printing and inspecting ──
  echo: { options: "-n -e -E", operands: "data*", dynamicOk: true, posix: true },
  printf: { options: "", operands: "data*", posix: true }, // -v is left out: it assigns a variable (and evaluates a subscript)
  true: { operands: "data*", dynamicOk: true },
  false: { operands: "data*", dynamicOk: true },
  ":": { operands: "data*", dynamicOk: true },
  pwd: { options: "-L -P", operands: "" },
  whoami: { options: HELP, operands: "" },
  id: {
    options: `-u -g -G -n -r -z --user --group --groups --name --real --zero ${HELP}`,
    operands: "data*",
    dynamicOk: true,
  },
  uname: {
    options: `-a -s -n -r -v -m -p -i -o --all --kernel-name --nodename --kernel-release --kernel-version --machine --processor --hardware-platform --operating-system ${HELP}`,
    operands: "",
  },
  hostname: { options: "-f -s -d -i -I --fqdn --short --domain --ip-address --all-ip-addresses", operands: "" },
  // date's one operand is a format only when it starts with `+`; any other (`date 0101000020`,
  // POSIX's MMDDhhmm[[CC]YY]) sets the system clock, as -s does (red team z, Z1).
  date: {
    options: `-u --utc --universal -R --rfc-email -I?= --iso-8601?= --rfc-3339= -d= --date= -r=r --reference=r ${HELP}`,
    operands: "data*",
    check: dateSetsClock,
  },
  sleep: data(),
  seq: data("-s= -w -f= --separator= --equal-width --format="),
  nproc: { options: `--all --ignore= ${HELP}`, operands: "" },
  basename: data("-a -s= -z --multiple --suffix= --zero"),
  dirname: data("-z --zero"),
  realpath: read(
    "-e -m -L -P -q -s -z --canonicalize-existing --canonicalize-missing --logical --physical --quiet --strip --no-symlinks --zero --relative-to=r --relative-base=r",
  ),
  readlink: read(
    "-f -e -m -n -q -s -v -z --canonicalize --canonicalize-existing --canonicalize-missing --no-newline --quiet --silent --verbose --zero",
  ),
  which: data("-a -s"),
  type: { options: "-a -f -p -P -t", operands: "data*", dynamicOk: true },
  printenv: data("-0 --null"),
  tty: { options: `-s --silent --quiet ${HELP}`, operands: "" },
  test: { operands: "data*", dynamicOk: true },
  // Shell builtins that only set the shell's own state (cd's folder is followed by the analysis).
  cd: { options: "-L -P -e -@", operands: "data", posix: true },
  // set: -a and -k (export every assignment) are left out, and -o takes only the options listed.
  set: {
    options: "-b -e -f -h -m -n -t -u -v -x -B -C -E -H -P -T -o=",
    operands: "data*",
    posix: true,
    check: setOptions,
  },
  shift: { operands: "data", posix: true },
  exit: { operands: "data", posix: true },
  return: { operands: "data", posix: true },
  wait: { options: "-n -f", operands: "data*", posix: true },
  read: { options: "-r -s -e -a= -d= -n= -N= -p= -t= -u= -i=", operands: "data*", posix: true },
  // umask: a mask without the others' or group's write bit makes every file written after it
  // writable to them (red team zb, ZB6).
  umask: { options: "-p -S", operands: "data", posix: true, opensModes: umaskOpens },
  // ── Reading files ──
  cat: read(
    "-A -b -e -E -n -s -t -T -u -v --show-all --number-nonblank --show-ends --number --squeeze-blank --show-tabs --show-nonprinting",
  ),
  tac: read("-b -r -s= --before --regex --separator="),
  nl: read(
    "-b= -d= -f= -h= -i= -l= -n= -p -s= -v= -w= --body-numbering= --section-delimiter= --footer-numbering= --header-numbering= --line-increment= --join-blank-lines= --number-format= --no-renumber --number-separator= --starting-line-number= --number-width=",
  ),
  head: read("-c= -n= -q -v -z -# --bytes= --lines= --quiet --silent --verbose --zero-terminated"),
  tail: read(
    "-c= -n= -f -F -q -v -z -s= -# --bytes= --lines= --follow?= --retry --pid= --quiet --silent --verbose --zero-terminated --sleep-interval= --max-unchanged-stats=",
  ),
  wc: read("-c -m -l -L -w --bytes --chars --lines --max-line-length --words --total= --files0-from=L"),
  cut: read(
    "-b= -c= -d= -f= -n -s -z --bytes= --characters= --delimiter= --fields= --complement --only-delimited --output-delimiter= --zero-terminated",
  ),
  tr: {
    options: `-c -C -d -s -t --complement --delete --squeeze-repeats --truncate-set1 ${HELP}`,
    operands: "data*",
    dynamicOk: true,
  },
  rev: read(""),
  fold: read("-b -s -w= --bytes --spaces --width="),
  fmt: read(
    "-c -p= -s -t -u -w= -g= --crown-margin --prefix= --split-only --tagged-paragraph --uniform-spacing --width= --goal=",
  ),
  expand: read("-i -t= --initial --tabs="),
  unexpand: read("-a -t= --all --first-only --tabs="),
  paste: read("-d= -s -z --delimiters= --serial --zero-terminated"),
  column: read(
    "-t -s= -o= -c= -x -n -e -J -N= -R= -H= -l= -L -r= -W= --table --separator= --output-separator= --output-width= --fillrows --json --table-columns= --table-right= --table-hide= --keep-empty-lines",
  ),
  join: read(
    "-a= -e= -i -j= -o= -t= -v= -1= -2= --check-order --nocheck-order --header --ignore-case --zero-terminated -z",
  ),
  comm: read("-1 -2 -3 -i --check-order --nocheck-order --output-delimiter= --total -z --zero-terminated"),
  od: read(
    "-A= -j= -N= -S= -t= -v -w?= -a -b -c -d -f -i -l -o -s -x --address-radix= --endian= --skip-bytes= --read-bytes= --strings?= --format= --output-duplicates --width?= --traditional",
  ),
  hexdump: read("-b -c -C -d -o -x -e= -n= -s= -v -L?= --canonical --length= --skip= --no-squeezing"),
  // strings (binutils) reads `@FILE` as more arguments: a response file the engine does not see.
  strings: {
    ...read(
      "-a --all -d --data -f --print-file-name -n= --bytes= -t= --radix= -e= --encoding= -w --include-all-whitespace -s= --output-separator=",
    ),
    check: responseFiles,
  },
  file: nodyn(
    "-b -i -L -h -z -Z -k -s -E -N -0 -p -r --brief --mime --mime-type --mime-encoding --dereference --no-dereference --uncompress --uncompress-noreport --keep-going --special-files --print0 --preserve-date --raw --no-pad --exclude= -e= -F= --separator= --extension --apple",
  ),
  stat: read("-L -f -c= -t --dereference --file-system --format= --printf= --terse --cached="),
  du: read(
    "-a -b -c -h -H -k -L -l -m -P -s -S -x -0 -d= -B= -t= --all --apparent-size --block-size= --bytes --total --dereference-args --dereference --no-dereference --human-readable --si --count-links --max-depth= --summarize --separate-dirs --one-file-system --threshold= --time?= --time-style= --exclude= --exclude-from=r -X=r --inodes --null --files0-from=L",
  ),
  df: read(
    "-a -B= -h -H -i -k -l -P -T -t= -x= --all --block-size= --human-readable --si --inodes --local --portability --print-type --type= --exclude-type= --output?= --total --sync --no-sync",
  ),
  ls: read(
    "-a -A -b -B -c -C -d -f -F -g -G -h -H -i -k -l -L -m -n -N -o -p -q -Q -r -R -s -S -t -u -U -v -x -X -Z -1 -I= -T= -w= --all --almost-all --author --escape --block-size= --ignore-backups --color?= --classify?= --file-type --format= --full-time --group-directories-first --no-group --human-readable --si --dereference-command-line --dereference-command-line-symlink-to-dir --hide= --hyperlink?= --indicator-style= --inode --ignore= --kibibytes --dereference --numeric-uid-gid --literal --hide-control-chars --show-control-chars --quote-name --quoting-style= --reverse --recursive --size --sort= --time= --time-style= --tabsize= --width= --context --zero --directory",
  ),
  // tree: -o writes its output; -R (with -L) writes 00Tree.html into every folder at the last level, wherever it lists (`tree -R -L 1 ~`).
  tree: nodyn(
    "-a -d -l -f -x -L= -P= -I= --gitignore --ignore-case --matchdirs --prune --filelimit= --noreport -i -q -N -Q -p -u -g -s -h --si --du -D --timefmt= -F --inodes --device -v -t -c -U -r --dirsfirst --filesfirst --sort= -n -C -J -X --charset= --fromfile",
  ),
  diff: {
    ...read(
      "-q -s -c -C= -u -U= -e -n -y -W= -l -t -T -i -E -Z -b -w -B -I= -a -r -N -x= -X=r -S= -p -F= -d --brief --report-identical-files --context?= --unified?= --ed --normal --side-by-side --width= --left-column --suppress-common-lines --expand-tabs --initial-tab --ignore-case --ignore-tab-expansion --ignore-trailing-space --ignore-space-change --ignore-all-space --ignore-blank-lines --ignore-matching-lines= --text --strip-trailing-cr --recursive --new-file --unidirectional-new-file --exclude= --exclude-from=r --starting-file= --show-c-function --show-function-line= --label= --minimal --speed-large-files --color?= --no-dereference --from-file=r --to-file=r --tabsize= --suppress-blank-empty --horizon-lines= --strip-trailing-cr",
    ),
    // A folder operand is read file by file even without -r (`diff -N . src` prints every file of
    // `.` that src lacks): folders are read whole.
    recursive: true,
    readsBelow: diffFileOptions,
  },
  cmp: read("-b -i= -l -n= -s --print-bytes --ignore-initial= --verbose --bytes= --quiet --silent"),
  md5sum: read(SUMS),
  sha1sum: read(SUMS),
  sha224sum: read(SUMS),
  sha256sum: read(SUMS),
  sha384sum: read(SUMS),
  sha512sum: read(SUMS),
  b2sum: read(`${SUMS} -l= --length=`),
  cksum: read("-a= --algorithm= --base64 --raw --tag --untagged -l= --length= --debug"), // no -c: see SUMS
  base64: read("-d --decode -i --ignore-garbage -w= --wrap="),
  grep: { options: GREP, operands: "pattern read*", dynamicOk: true, recursive: grepRecursive },
  egrep: { options: GREP, operands: "pattern read*", dynamicOk: true, recursive: grepRecursive },
  fgrep: { options: GREP, operands: "pattern read*", dynamicOk: true, recursive: grepRecursive },
  // rg: --pre, --pre-glob and --search-zip (-z) are left out (they run programs: -z runs the
  // gzip, xz, … found on PATH; red team j, J5).
  rg: {
    options: `-e=p --regexp=p -f=R --file=R -i --ignore-case -s --case-sensitive -S --smart-case -w --word-regexp -x --line-regexp -v --invert-match -F --fixed-strings -P --pcre2 -U --multiline --multiline-dotall -n --line-number -N --no-line-number -H --with-filename -I --no-filename -c --count --count-matches -l --files-with-matches --files-without-match -o --only-matching -q --quiet -A= -B= -C= --after-context= --before-context= --context= -m= --max-count= -g= --glob= --iglob= -t= --type= -T= --type-not= --type-list --hidden -. --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-global --no-ignore-parent --no-ignore-exclude --no-ignore-files --ignore-file=r -u --unrestricted -L --follow --files --json --vimgrep --column --no-heading --heading --color= --colors= -p --pretty -r= --replace= -M= --max-columns= --max-columns-preview --max-depth= -d= --max-filesize= --sort= --sortr= --stats --trim -a --text --null -0 --null-data --no-messages --passthru -j= --threads= --no-config --debug --one-file-system --byte-offset -b --crlf --encoding= -E= --engine= --field-match-separator= --path-separator= --binary --no-binary --glob-case-insensitive --include-zero --line-buffered --block-buffered --mmap --no-mmap -h --help -V --version`,
    operands: "pattern read*",
    dynamicOk: false,
    recursive: true,
  },
  jq: {
    options: `-r --raw-output -j --join-output -a --ascii-output -c --compact-output -s --slurp -n --null-input -e --exit-status -S --sort-keys -C --color-output -M --monochrome-output --tab --indent= --arg== --argjson== --slurpfile==r --rawfile==r --args --jsonargs -R --raw-input --seq --stream --stream-errors --raw-output0 -f=R --from-file=R ${HELP}`,
    operands: "pattern read*",
    reads: jqReads,
  },
  sort: nodyn(
    "-b -d -f -g -i -M -h -n -R -r -V -c -C -m -s -u -z -k= -t= -S= -T= --ignore-leading-blanks --dictionary-order --ignore-case --general-numeric-sort --ignore-nonprinting --month-sort --human-numeric-sort --numeric-sort --random-sort --reverse --version-sort --sort= --check?= --merge --key= --field-separator= --buffer-size= --temporary-directory= --stable --unique --zero-terminated --parallel= --debug -o=w --output=w --random-source=r --files0-from=L",
  ),
  uniq: {
    options: `-c -d -D -f= -i -s= -u -w= -z --count --repeated --all-repeated?= --skip-fields= --group?= --ignore-case --skip-chars= --unique --zero-terminated --check-chars= ${HELP}`,
    operands: "read output",
  },
  // sed: -f/--file and -s are left out; -i makes the file operands writes; scripts are read by sed.ts (risky.ts).
  sed: {
    options: `-n --quiet --silent -e=p --expression=p -E -r --regexp-extended -i?=W --in-place?=W -l= --line-length= -s --separate -u --unbuffered -z --null-data --posix --debug --sandbox --follow-symlinks -b --binary ${HELP}`,
    operands: "pattern read*",
    reads: scriptReads,
    writes: sedBackups,
  },
  // awk: -f, -E, -i, -l and --load are left out; programs are read by awk.ts (risky.ts).
  awk: { options: `-F= -v= --field-separator= --assign= ${HELP}`, operands: "pattern read*", reads: scriptReads },
  // find: tests and actions that only read; -exec, -ok, -delete, -fprint and -fls are left out.
  find: { options: "", operands: "read*", read: readFind },
  // ── Writing files ──
  touch: {
    options: `-a -c -m -h -d= -r=r -t= --no-create --date= --no-dereference --reference=r --time= ${HELP}`,
    operands: "write*",
  },
  mkdir: {
    options: `-p -v -m= --parents --verbose --mode= ${HELP}`,
    operands: "write*",
    opensModes: (w) => othersMayWrite(w, optionWord(w, /^(-m|--mode)$/, /^(?:-m|--mode=)(.+)$/), MKDIR_BASE),
  },
  rmdir: { options: `-p -v --ignore-fail-on-non-empty --parents --verbose ${HELP}`, operands: "write*" },
  rm: {
    options: `-f|--force -i -I -r|-R|--recursive -d|--dir -v|--verbose --interactive?= --one-file-system --preserve-root?= --no-preserve-root ${HELP}`,
    operands: "write*",
  },
  cp: {
    options: `-a -b -d -f -i -H -l -L -n -P -p -R -r -s -u -v -x -T -t=w --archive --backup?= --force --interactive --link --dereference --no-clobber --no-dereference --preserve?= --no-preserve= --parents --recursive --reflink?= --remove-destination --sparse= --strip-trailing-slashes --symbolic-link --suffix= -S= --target-directory=w --no-target-directory --update?= --verbose --one-file-system --attributes-only --copy-contents ${HELP}`,
    operands: "read* write",
    // A copy may carry links along (-a, -d, -P, -R copy a link as a link; -l, -s make them).
    links: (words) =>
      words.some(
        (w, k) =>
          k > 0 &&
          (/^-[a-zA-Z]*[adlsPRr]/.test(w.value) ||
            /^--(archive|link|symbolic-link|no-dereference|recursive)$/.test(w.value)),
      ),
    writes: (words) => [...backupWrites(words), ...hardLinkSources(words)],
    copies: copyOperands,
  },
  mv: {
    options: `-b -f -i -n -u -v -T -t=w --backup?= --force --interactive --no-clobber --strip-trailing-slashes --suffix= -S= --target-directory=w --no-target-directory --update?= --verbose --exchange --no-copy ${HELP}`,
    operands: "write* write",
    links: () => true,
    writes: backupWrites,
    copies: copyOperands,
  },
  ln: {
    options: `-b -d -F -f -i -L -n -P -r -s -T -t=w -v --backup?= --directory --force --interactive --logical --no-dereference --physical --relative --symbolic --suffix= -S= --target-directory=w --no-target-directory --verbose ${HELP}`,
    operands: "read* write",
    links: () => true,
    writes: (words) => [...backupWrites(words), ...hardLinkSources(words)],
    copies: copyOperands,
  },
  // With --reference there is no mode: every operand is a file changed.
  chmod: {
    options: `-c -f -v -R --changes --silent --quiet --verbose --no-preserve-root --preserve-root --reference=r --recursive ${HELP}`,
    operands: "data write*",
    writes: (w) => (w.some((x) => /^--ref/.test(x.value)) ? w.slice(1).filter((x) => !x.value.startsWith("-")) : []),
    persists: chmodSetsId,
    opensModes: (w) => othersMayWrite(w, chmodMode(w), CHMOD_BASE),
  },
  tee: { options: `-a -i -p --append --ignore-interrupts --output-error?= ${HELP}`, operands: "output*" },
  // ── Running other commands (their command is a candidate of its own) ──
  env: {
    options: `-i --ignore-environment -0 --null -u= --unset= -C=d --chdir=d -v --debug --ignore-signal?= --default-signal?= --block-signal?= --list-signal-handling ${HELP}`,
    operands: "command",
    posix: true,
    dashOption: true,
    assignments: true,
  },
  nice: { options: `-n= --adjustment= -# ${HELP}`, operands: "command", posix: true },
  timeout: {
    options: `-f --foreground -k= --kill-after= -p --preserve-status -s= --signal= -v --verbose ${HELP}`,
    operands: "data command",
    posix: true,
  },
  nohup: { options: HELP, operands: "command", posix: true },
  time: { options: "-p", operands: "command", posix: true },
  stdbuf: { options: `-i= -o= -e= --input= --output= --error= ${HELP}`, operands: "command", posix: true },
  xargs: {
    options: `-0 --null -a=r --arg-file=r -d= --delimiter= -E= -e?= --eof?= -I= -i?= --replace?= -L= -l?= --max-lines?= -n= --max-args= -P= --max-procs= -r --no-run-if-empty -s= --max-chars= -t --verbose -x --exit -o --open-tty --show-limits ${HELP}`,
    operands: "command",
    posix: true,
  },
  command: { options: "-p -v -V", operands: "command", posix: true },
  // ── Builds and tests: the sub-commands that only read; running the project's code is risky.ts's to mark ──
  git,
  npm,
  go,
  cargo,
  pytest,
  // ── Network and archives: every option that writes a file says so; -K/--config, --libcurl, -e/--execute are left out ──
  curl: {
    options: `-s --silent -S --show-error -L --location --location-trusted -f --fail --fail-with-body --fail-early -I --head -i --include -v --verbose -k --insecure -X= --request= -H= --header= -d= --data= --data-raw= --data-binary= --data-urlencode= --data-ascii= --json= -F= --form= --form-string= -G --get -o=w --output=w -O --remote-name --remote-name-all -J --remote-header-name --output-dir=w --create-dirs --no-clobber -u= --user= -A= --user-agent= -e= --referer= -b= --cookie= -c=w --cookie-jar=w -D=w --dump-header=w --trace=w --trace-ascii=w --stderr=w -T=r --upload-file=r -m= --max-time= --connect-timeout= --retry= --retry-delay= --retry-max-time= --retry-all-errors --retry-connrefused --compressed -x= --proxy= --noproxy= -w= --write-out= -r= --range= -C= --continue-at= --http1.0 --http1.1 --http2 --http3 -0 -4 -6 --ipv4 --ipv6 --progress-bar -N --no-buffer --max-redirs= --limit-rate= --max-filesize= --tlsv1.2 --tlsv1.3 --cacert=r --capath=r --cert=r -E=r --key=r --url= -n --netrc --netrc-optional --oauth2-bearer= --unix-socket=r --resolve= --connect-to= -Z --parallel --parallel-max= -q --disable -z= --time-cond= -R --remote-time --raw --path-as-is -g --globoff -Y= -y= -l --list-only -a --append -B --use-ascii --ssl-reqd --proto= --proto-redir= -M --manual ${HELP} -V`,
    operands: "data*",
    reads: curlFiles,
    writes: (words) => [...curlNames(words), ...curlOutputsInDir(words), ...curlWriteOut(words)],
  },
  wget: {
    options: `-q --quiet -v --verbose -nv --no-verbose -O=w --output-document=w -o=w --output-file=w -a=w --append-output=w -P=w --directory-prefix=w -nd --no-directories -x --force-directories -nH --no-host-directories --cut-dirs= -c --continue -N --timestamping -nc --no-clobber -t= --tries= -T= --timeout= --connect-timeout= --read-timeout= -w= --wait= --limit-rate= -U= --user-agent= --header= --post-data= --post-file=r --body-data= --body-file=r --method= --user= --password= --no-check-certificate --ca-certificate=r --certificate=r --private-key=r -S --server-response --spider -r --recursive -l= --level= -np --no-parent -k --convert-links -p --page-requisites -A= --accept= -R= --reject= -D= --domains= -H --span-hosts -m --mirror -i=r --input-file=r -b --background -4 -6 --inet4-only --inet6-only --max-redirect= --content-disposition --trust-server-names --show-progress --progress= -nc ${HELP} -V`,
    operands: "data*",
    writes: wgetNames,
  },
  // tar: the archive (-f) and where it extracts (-C) are named; --to-command, -I/--use-compress-program, -F, --checkpoint-action are left out.
  tar: {
    options: `-c --create -x --extract --get -t --list -r --append -u --update -A --catenate --concatenate -d --diff --compare --delete -f=w --file=w --force-local -C=d --directory=d -v --verbose -z --gzip --gunzip --ungzip -j --bzip2 -J --xz --lzma --zstd -a --auto-compress -p --preserve-permissions --same-permissions --no-same-owner --no-same-permissions --same-owner --numeric-owner --owner= --group= --mode= --mtime= -h --dereference -k --keep-old-files --skip-old-files --overwrite --remove-files -m --touch -O --to-stdout --strip-components= --exclude= --exclude-from=r -X=r --exclude-vcs --exclude-vcs-ignores --wildcards --no-wildcards --anchored --no-anchored -T=L --files-from=L --null -P --absolute-names --sort= --transform= --xform= --one-file-system -S --sparse -W --verify --totals?= --warning= --no-recursion --recursion -b= --blocking-factor= -B --read-full-records -i --ignore-zeros --format= -H= -V= --label= --occurrence?= ${HELP}`,
    operands: "read*",
    // tar -c reads every file below a folder it is given (and -h follows links out of it).
    recursive: true,
    effects: tarArchive,
    check: tarCheck,
    writes: tarRemoved,
  },
  make: {
    check: makeVariables,
    options: `-B --always-make -C=d --directory=d -d --debug?= -e --environment-overrides -i --ignore-errors -I=d --include-dir=d -j?= --jobs?= -k --keep-going -S --no-keep-going --stop -l?= --load-average?= -n --just-print --dry-run --recon -q --question -r --no-builtin-rules -R --no-builtin-variables -s --silent --quiet --no-silent -w --print-directory --no-print-directory -W=r --what-if=r --assume-new=r -o=r --old-file=r --assume-old=r -O?= --output-sync?= --trace ${HELP}`,
    operands: "data*",
  },
};

// find's expression: each primary with the number of words it takes. Only primaries that test
// or print to stdout; -exec, -execdir, -ok, -okdir, -delete, -fprint*, -fls are left out.
const FIND_PRIMARIES: Record<string, number> = {
  "-name": 1,
  "-iname": 1,
  "-path": 1,
  "-ipath": 1,
  "-wholename": 1,
  "-iwholename": 1,
  "-regex": 1,
  "-iregex": 1,
  "-lname": 1,
  "-ilname": 1,
  "-type": 1,
  "-xtype": 1,
  "-size": 1,
  "-perm": 1,
  "-user": 1,
  "-group": 1,
  "-uid": 1,
  "-gid": 1,
  "-links": 1,
  "-inum": 1,
  "-samefile": 1,
  "-mtime": 1,
  "-mmin": 1,
  "-atime": 1,
  "-amin": 1,
  "-ctime": 1,
  "-cmin": 1,
  "-newer": 1,
  "-anewer": 1,
  "-cnewer": 1,
  "-used": 1,
  "-fstype": 1,
  "-maxdepth": 1,
  "-mindepth": 1,
  "-regextype": 1,
  "-printf": 1,
  "-newermt": 1,
  "-newerct": 1,
  "-newerat": 1,
  "-newermm": 1,
  "-context": 1,
  "-print": 0,
  "-print0": 0,
  "-ls": 0,
  "-prune": 0,
  "-quit": 0,
  "-true": 0,
  "-false": 0,
  "-empty": 0,
  "-executable": 0,
  "-readable": 0,
  "-writable": 0,
  "-nouser": 0,
  "-nogroup": 0,
  "-depth": 0,
  "-d": 0,
  "-xdev": 0,
  "-mount": 0,
  "-follow": 0,
  "-daystart": 0,
  "-noleaf": 0,
  "-ignore_readdir_race": 0,
  "-noignore_readdir_race": 0,
  "-warn": 0,
  "-nowarn": 0,
  "-not": 0,
  "!": 0,
  "-a": 0,
  "-and": 0,
  "-o": 0,
  "-or": 0,
  "(": 0,
  ")": 0,
  ",": 0,
  "-help": 0,
  "--help": 0,
  "-version": 0,
  "--version": 0,
};

/** find [-H|-L|-P] [-D x] [-Olevel] [paths…] [expression]: paths are reads, every primary must be known. */
function readFind(words: readonly ShellWord[]): SpecReading {
  const reading = emptyReading("find");
  let i = 1;
  for (; i < words.length && words[i]!.literal && /^-([HLP]|O\d*)$/.test(words[i]!.value); i++);
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) {
      reading.unproven ??= {
        at: i,
        why: `the argument ${w.text} of find is only known at run time, and could be an action that runs or deletes`,
      };
      continue;
    }
    if (/^[-(!),]/.test(w.value)) break;
    reading.reads.push(w);
  }
  for (; i < words.length; i++) {
    const w = words[i]!;
    const arity = w.literal ? FIND_PRIMARIES[w.value] : undefined;
    if (arity === undefined) {
      reading.unproven ??= {
        at: i,
        why: w.literal
          ? `find ${w.value} is not a test or action the engine knows (it may run, delete or write)`
          : `the argument ${w.text} of find is only known at run time`,
      };
      break;
    }
    if (w.value === "-samefile" || w.value === "-newer" || w.value === "-anewer" || w.value === "-cnewer")
      reading.reads.push(words[i + 1] ?? w);
    if (arity > 0 && !words[i + 1]?.literal && !["-name", "-iname", "-path", "-ipath"].includes(w.value)) {
      reading.unproven ??= { at: i + 1, why: `the value of find ${w.value} is only known at run time` };
    }
    i += arity;
  }
  return reading;
}

/** grep -r/-R/--recursive/-d recurse reads every file below a folder operand (and `.` without one). */
function grepRecursive(words: readonly ShellWord[]): boolean {
  return words.some(
    (w, k) =>
      k > 0 &&
      w.literal &&
      (/^-[a-zA-Z]*[rR]/.test(w.value) ||
        /^--(rec|deref|directories=rec|directories=recurse)/.test(w.value) ||
        /^-d(rec|recurse)?$/.test(w.value)),
  );
}

/** Files curl sends: `-d @file`, `--data-binary @file`, `-F name=@file` or `<file`, `--json @file`. */
function curlUploads(words: readonly ShellWord[]): ShellWord[] {
  const out: ShellWord[] = [];
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    const eq = v.indexOf("=");
    const long = /^--(data|data-binary|data-ascii|data-urlencode|json|form|upload-file)$/.test(v)
      ? words[k + 1]
      : /^--(data|data-binary|data-ascii|data-urlencode|json|form)=/.test(v)
        ? { ...words[k]!, value: v.slice(eq + 1) }
        : undefined;
    const short = /^-[dF]$/.test(v)
      ? words[k + 1]
      : /^-[dF]./.test(v)
        ? { ...words[k]!, value: v.slice(2) }
        : undefined;
    const value = long ?? short;
    if (!value) continue;
    const file = /(?:^|=)[@<](.+)$/.exec(value.value)?.[1];
    if (file) out.push({ ...value, value: file.replace(/;.*$/, ""), text: file });
    else if (!value.literal) out.push(value);
  }
  return out;
}

/**
 * The archive (-f) is written by -c, -r, -u, -A and --delete, and read by -t, -x and -d (an
 * output file only when written); with no mode given, tar refuses to run.
 */
function tarArchive(options: readonly string[]): Record<string, OptionEffect> {
  const writes = options.some((o) =>
    ["-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete"].includes(o),
  );
  const effect: OptionEffect = writes ? "write" : "read";
  return { "-f": effect, "--file": effect };
}

/**
 * tar -x writes whatever files (and links) the archive names, which cannot be known before it
 * runs; an old-style first word (`tar xzf a.tgz`) is a cluster of options the reader does not take.
 */
function tarCheck(words: readonly ShellWord[]): { at: number; why: string } | undefined {
  const first = words[1];
  if (first?.literal && !first.value.startsWith("-") && /^[ctxruAdvzjJaphkmOPSWfC]+$/.test(first.value)) {
    return {
      at: 1,
      why: `tar ${first.value}: old-style options without a dash, which the engine does not read (write them as -${first.value})`,
    };
  }
  const remote = tarRemoteArchive(words);
  if (remote !== undefined)
    return {
      at: remote,
      why: `tar -f ${words[remote]!.text}: an archive named HOST:FILE is opened on HOST through a remote shell (rsh), unless --force-local`,
    };
  const at = words.findIndex(
    (w, k) =>
      k > 0 &&
      w.literal &&
      ((/^-[a-zA-Z]*x/.test(w.value) && !w.value.startsWith("--")) || w.value === "--extract" || w.value === "--get"),
  );
  return at === -1
    ? undefined
    : { at, why: "tar -x writes the files and links the archive names, which are not known before it runs" };
}

/**
 * The word holding tar's archive when it names a remote one: GNU tar runs `rsh HOST /usr/sbin/rmt`
 * for an archive with a colon before any slash (`-f host:x`, `-cf user@host:x`), a program and
 * the network where the text shows a local file. Short options are read as getopt reads a
 * cluster (`-cvf A`, `-fA`, `-Cf` is -C with the value f). --force-local keeps it a file.
 */
function tarRemoteArchive(words: readonly ShellWord[]): number | undefined {
  if (words.some((w) => w.value === "--force-local")) return undefined;
  const remote = (v: string) => /^[^/]*:/.test(v);
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v === "--") break;
    if (v === "--file" && remote(words[k + 1]?.value ?? "")) return k + 1;
    if (v.startsWith("--file=") && remote(v.slice(7))) return k;
    if (!/^-[^-]/.test(v)) continue;
    for (let i = 1; i < v.length; i++) {
      if (!"bCfFgHIKLNTVX".includes(v[i]!)) continue;
      const attached = v.slice(i + 1);
      if (v[i] === "f" && remote(attached === "" ? (words[k + 1]?.value ?? "") : attached))
        return attached === "" ? k + 1 : k;
      if (attached === "") k++;
      break;
    }
  }
  return undefined;
}

/** `set -o NAME` / `+o NAME` with a name that only sets shell behaviour (not allexport, keyword, onecmd, posix). */
function setOptions(words: readonly ShellWord[]): { at: number; why: string } | undefined {
  for (let k = 1; k < words.length - 1; k++) {
    if (/^[-+][a-zA-Z]*o$/.test(words[k]!.value) && !SHELL_SET_OPTIONS.has(words[k + 1]!.value))
      return { at: k + 1, why: `set -o ${words[k + 1]!.text} is not a shell option the engine knows` };
  }
  return undefined;
}

/**
 * Files a sed or awk script reads itself (sed's `r`/`R`, awk's `getline < file`): not named as
 * operands, so they are unknown reads (a Read deny rule cannot be shown not to apply). awk opens
 * the files ARGV holds when its main loop starts, and the program may set them
 * (`BEGIN { ARGV[1] = ".env"; ARGC = 2 } { print }` prints .env): any ARGV or ARGC counts.
 */
function scriptReads(words: readonly ShellWord[]): ShellWord[] {
  const text = words
    .slice(1)
    .map((w) => w.value)
    .join("\n");
  const sed = words[0]?.value === "sed" && /(^|[;\n{}/0-9$!]|\s)\s*[rR]\s*\S/.test(text);
  const awk = words[0]?.value !== "sed" && /getline|\bclose\s*\(|@include|\bRS\b.*FILENAME|\bARG[VC]\b/.test(text);
  return sed || awk ? [{ value: "", literal: false, text: "(a file its script reads)", tilde: false }] : [];
}

/**
 * jq's `import "m" as $d;` reads the data file m.json and `import`/`include` read module files
 * (found beside the program, in ~/.jq or a search path): files no operand names
 * (`jq -n 'import "secrets" as $s; $s'` prints ./secrets.json). A program jq reads from a file
 * (-f) may hold one too.
 */
function jqReads(words: readonly ShellWord[]): ShellWord[] {
  // A run-time word may be the program, unless it is a --arg/--argjson name or value.
  const named = (k: number) => [1, 2].some((back) => /^--(arg|argjson)$/.test(words[k - back]?.value ?? ""));
  const unknown = words.some(
    (w, k) =>
      k > 0 &&
      ((!w.literal && !named(k)) ||
        /\b(import|include)\b/.test(w.value) ||
        /^(-f|--from-file)(=|$)/.test(w.value) ||
        (/^-[a-zA-Z]+$/.test(w.value) && w.value.includes("f"))),
  );
  return unknown
    ? [{ value: "", literal: false, text: "(a module or data file its program imports)", tilde: false }]
    : [];
}

/**
 * git format-patch's output: without --stdout, a file per commit in the folder -o names (the
 * working folder by default) under a name it makes of the commit's subject and the suffix
 * (`0001-fix-typo.patch`). The folder is no file: what is judged is a file in it (red team zn, ZN3:
 * `-o .venv/lib/python3.11/site-packages` was judged as writing that folder, and
 * `--suffix=.pth` made a .pth file whose `import` line, the commit's message, ran at every start).
 */
function formatPatchOutput(words: readonly ShellWord[]): {
  dir?: ShellWord;
  suffix?: { word: ShellWord; at: number };
  stdout: boolean;
} {
  const out: ReturnType<typeof formatPatchOutput> = { stdout: false };
  for (let k = words.findIndex((w) => w.value === "format-patch") + 1; k > 0 && k < words.length; k++) {
    const w = words[k]!;
    if (w.value === "--") break;
    if (w.value === "--stdout") out.stdout = true;
    else if (w.value === "-o" || w.value === "--output-directory") out.dir = words[++k];
    else if (w.value.startsWith("--output-directory=")) out.dir = { ...w, value: w.value.slice(19) };
    else if (w.value === "--suffix") out.suffix = { word: words[k + 1] ?? literalWord(""), at: k++ };
    else if (w.value.startsWith("--suffix=")) out.suffix = { word: { ...w, value: w.value.slice(9) }, at: k };
  }
  return out;
}

/** A suffix other than git's own gives the files a name that ends as the caller likes (`.pth`, or none, so the subject ends it). */
function formatPatchSuffix(words: readonly ShellWord[]): { at: number; why: string } | undefined {
  const { suffix, stdout } = formatPatchOutput(words);
  if (stdout || !suffix || (suffix.word.literal && /^\.(patch|diff)$/.test(suffix.word.value))) return undefined;
  return {
    at: suffix.at,
    why: `git format-patch names its files after the commits' subjects and ends them with ${suffix.word.text || "nothing"}, which may make a file that runs code later (a .pth)`,
  };
}

/** The file git format-patch writes in its folder, judged as such (a name ending in .patch; the suffix is formatPatchSuffix's). */
function formatPatchFiles(words: readonly ShellWord[]): ShellWord[] {
  const { dir, stdout } = formatPatchOutput(words);
  if (stdout) return [];
  if (!dir) return [literalWord("0001-subject.patch")];
  // A folder only known at run time is an output already (-o=w), which the engine cannot judge.
  if (!dir.literal) return [];
  const value = `${dir.value.replace(/\/+$/, "")}/0001-subject.patch`;
  return [{ ...dir, value, text: value }];
}

/** `npm config set|delete|edit …` changes how npm runs scripts (script-shell, ignore-scripts) and where it fetches from. */
function npmConfigPersists(words: readonly ShellWord[]): string | undefined {
  const at = words.findIndex((w, k) => k > 0 && (w.value === "config" || w.value === "c"));
  const verb = words.slice(at + 1).find((w) => !w.value.startsWith("-"));
  return verb && !/^(get|list|ls)$/.test(verb.value)
    ? `npm config ${verb.value} changes how npm runs scripts and where it fetches packages`
    : undefined;
}

/**
 * With -b/--backup, cp, mv and ln keep the file they replace under its name plus a suffix
 * (`~/.bash` + `--suffix=rc` is `~/.bashrc`): that name is written too.
 */
/**
 * A hard link (`ln` without -s, `cp -l`) gives its source a second name: a write to the new name
 * is a write to the source (`ln .git/config cfg`, then `echo … >> cfg`), so the sources are
 * judged as written. Only a literal -s/--symbolic makes an ln link symbolic (then the link is
 * resolved where it is written to); anything else is judged as a hard link.
 */
function hardLinkSources(words: readonly ShellWord[]): ShellWord[] {
  const values = words.slice(1);
  const flag = (short: string, long: RegExp) =>
    values.some((w) => w.literal && (long.test(w.value) || (/^-[a-zA-Z]+$/.test(w.value) && w.value.includes(short))));
  const hard = words[0]!.value === "ln" ? !flag("s", /^--sym/) : flag("l", /^--li/);
  return hard ? (copyOperands(words)?.sources ?? []) : [];
}

function backupWrites(words: readonly ShellWord[]): ShellWord[] {
  const suffix = backupSuffix(words);
  const dest = copyWords(words).operands.at(-1);
  if (suffix === undefined || dest === undefined) return [];
  const value = `${dest.value}${suffix.value}`;
  return [{ ...dest, value, text: `${dest.text}${suffix.text}`, literal: dest.literal && suffix.literal }];
}

/**
 * The suffix cp, mv and ln add to the name of a file they replace with -b/--backup or -S/--suffix
 * (`~` unless -S/--suffix names one), or undefined without a backup. The backup is kept where the
 * file was replaced: beside each place a source lands (subject.ts), not beside the destination.
 * A suffix only known at run time (`-S "$x"`) is a word that is not literal: every backup name
 * made with it is then only known at run time too (red team zd, ZD7).
 */
function backupSuffix(words: readonly ShellWord[]): ShellWord | undefined {
  const { options } = copyWords(words);
  // -S/--suffix alone makes a backup too (GNU coreutils 9: `cp -S .json x package` keeps
  // package.json; red team zd, ZD5).
  if (!options.some((o) => /^(-b|-S|--backup|--suffix)$/.test(o.name))) return undefined;
  let suffix = literalWord("~");
  for (const o of options) if ((o.name === "-S" || o.name === "--suffix") && o.value) suffix = o.value;
  return suffix;
}

/** git clone URL with no folder writes a folder named after the URL (`…/.husky` makes `.husky`). */
function cloneTarget(words: readonly ShellWord[]): ShellWord[] {
  const at = words.findIndex((w) => w.value === "clone");
  const operands = words
    .slice(at + 1)
    .filter(
      (w, k, all) =>
        !w.value.startsWith("-") &&
        !/^-(o|b|c|u|-origin|-branch|-depth|-reference|-separate-git-dir|-template|-config|-filter|-shallow-since|-shallow-exclude|-revision|-jobs)$/.test(
          all[k - 1]?.value ?? "",
        ),
    );
  if (operands.length !== 1) return [];
  const url = operands[0]!;
  if (!url.literal) return [{ ...url, literal: false }];
  const name =
    url.value
      .replace(/\/+$/, "")
      .replace(/\.git$/, "")
      .split(/[/:]/)
      .pop() ?? "";
  return name === "" ? [{ ...url, literal: false }] : [literalWord(name)];
}

/** Files named by a URL's last segment where curl -O and wget (without -O) write; unknown where the server names it. */
function downloadNames(
  words: readonly ShellWord[],
  options: { remote: boolean; dir?: string; decoded?: boolean },
): ShellWord[] {
  const urls = words.slice(1).filter((w) => /^[a-z]+:\/\//i.test(w.value) || !w.literal);
  return urls.map((url) => {
    if (!url.literal) return { ...url, literal: false };
    // wget decodes the name's %XX (`/%2enpmrc` is written as .npmrc) and keeps the query in it
    // (red team n, N6): what it names the file is only known when it runs.
    if (options.decoded && /[%?]/.test(url.value.replace(/#.*$/, "").replace(/^[a-z]+:\/\/[^/]*/i, "")))
      return { ...url, literal: false, text: `${url.text} (a name wget decodes)` };
    const name =
      url.value
        .replace(/[?#].*$/, "")
        .replace(/^[a-z]+:\/\/[^/]*/i, "")
        .split("/")
        .pop() ?? "";
    const path = options.dir ? `${options.dir.replace(/\/+$/, "")}/${name}` : name;
    return name === "" ? literalWord(options.dir ?? ".") : { ...literalWord(path), tilde: path.startsWith("~/") };
  });
}

function optionValue(words: readonly ShellWord[], short: string[], long: string[]): string | undefined {
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    const l = long.find((name) => v === name || v.startsWith(`${name}=`));
    if (l) return v === l ? words[k + 1]?.value : v.slice(l.length + 1);
    if (short.includes(v)) return words[k + 1]?.value;
    const attached = short.find((o) => v.startsWith(o) && v.length > o.length && !v.startsWith("--"));
    if (attached) return v.slice(attached.length);
  }
  return undefined;
}

/**
 * curl's --output-dir holds -o's files too, not only -O's: `-o vitest --output-dir node_modules/.bin`
 * writes node_modules/.bin/vitest (curl joins the two, whatever -o gives; `-o -` is the output). The
 * file in the folder is the one written (red team zn, ZN4), as format-patch's is (ZN3).
 */
function curlOutputsInDir(words: readonly ShellWord[]): ShellWord[] {
  const dir = optionValue(words, [], ["--output-dir"]);
  if (dir === undefined) return [];
  const out: ShellWord[] = [];
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    const file =
      w.value === "-o" || w.value === "--output"
        ? words[k + 1]
        : w.value.startsWith("--output=")
          ? { ...w, value: w.value.slice(9) }
          : undefined;
    if (!file || (file.literal && file.value === "-")) continue;
    const path = `${dir.replace(/\/+$/, "")}/${file.value}`;
    out.push(
      file.literal ? { ...literalWord(path), tilde: path.startsWith("~/") } : { ...literalWord(path), literal: false },
    );
  }
  return out;
}

/** curl -O/--remote-name(-all) writes the URL's last segment (into --output-dir); -J lets the server name it. */
function curlNames(words: readonly ShellWord[]): ShellWord[] {
  // curl expands {a,b} and [a-z] in a URL (unless -g): `-O 'URL/{.npmrc,x}'` writes .npmrc, and
  // `-o '#1'` names the output after the part matched (red team n, N7). Either is a name only
  // known when it runs.
  const globbed = !words.some((w) => /^(-g|--globoff)$/.test(w.value));
  const glob = (w: ShellWord) => globbed && !w.value.startsWith("-") && /[{[]/.test(w.value);
  const matched = words.some(
    (w, k) =>
      /#[0-9]/.test(w.value) && (/^(-o|--output)$/.test(words[k - 1]?.value ?? "") || w.value.startsWith("--output=")),
  );
  const unknown = { ...literalWord("(a name curl makes from a URL glob)"), literal: false };
  if (matched && words.some(glob)) return [unknown];
  if (!words.some((w) => /^(-[a-zA-Z]*O[a-zA-Z]*|--remote-name|--remote-name-all)$/.test(w.value))) return [];
  if (words.some((w) => /^(-[a-zA-Z]*J[a-zA-Z]*|--remote-header-name)$/.test(w.value)))
    return [{ ...literalWord("(a name the server sends)"), literal: false }];
  if (words.some(glob)) return [unknown];
  // Every operand is a URL to curl, with or without a scheme (`curl -O host/.npmrc`): a word that
  // is no URL only adds a name judged in vain.
  const bare = words
    .slice(1)
    .filter((w) => w.literal && !w.value.startsWith("-") && !/^[a-z]+:\/\//i.test(w.value) && w.value.includes("/"))
    .map((w) => {
      const name =
        w.value
          .replace(/[?#].*$/, "")
          .split("/")
          .pop() ?? "";
      const dir = optionValue(words, [], ["--output-dir"]);
      const path = name === "" ? (dir ?? ".") : dir ? `${dir.replace(/\/+$/, "")}/${name}` : name;
      return { ...literalWord(path), tilde: path.startsWith("~/") };
    });
  return [...downloadNames(words, { remote: true, dir: optionValue(words, [], ["--output-dir"]) }), ...bare];
}

/**
 * curl -w's `%output{FILE}` (curl 8.3 on) sends the rest of the -w output to FILE (`%output{>>F}`
 * appends), and `-w @FILE` takes the format from a file that may hold one: a write the text does
 * not name. Any word holding `%output{` counts, whatever option carries it.
 */
function curlWriteOut(words: readonly ShellWord[]): ShellWord[] {
  const fromFile = words.some(
    (w, k) =>
      (/^(-w|--write-out)$/.test(words[k - 1]?.value ?? "") && w.value.startsWith("@")) ||
      /^(-w|--write-out=)@/.test(w.value),
  );
  if (!fromFile && !words.some((w) => w.value.includes("%output{"))) return [];
  return [{ ...literalWord("(the file a -w %output{…} names)"), literal: false }];
}

/** wget without -O writes the URL's last segment (into -P); -x, -r, --content-disposition and --trust-server-names name it otherwise. */
function wgetNames(words: readonly ShellWord[]): ShellWord[] {
  if (words.some((w) => /^(-[a-zA-Z]*O|--output-document)/.test(w.value) || w.value === "--spider")) return [];
  if (
    words.some((w) =>
      /^(-x|--force-directories|-r|--recursive|-m|--mirror|--content-disposition|--trust-server-names|-p|--page-requisites|-i|--input-file)/.test(
        w.value,
      ),
    )
  ) {
    return [{ ...literalWord("(names the server or the links decide)"), literal: false }];
  }
  return downloadNames(words, { remote: true, decoded: true, dir: optionValue(words, ["-P"], ["--directory-prefix"]) });
}

/** What curl reads besides -d @f/-T: `-w @file`, `-H @file`, `--data-urlencode name@file`, `-b file`, and file: URLs (`file:///p`, `file:/p`, globbed). */
function curlFiles(words: readonly ShellWord[]): ShellWord[] {
  const out = curlUploads(words);
  // Only a -g or --globoff of its own turns globbing off (in a cluster, a letter may be an option's value).
  const globbed = !words.some((w) => /^(-g|--globoff)$/.test(w.value));
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    const v = w.value;
    const value = (short: string, long: string) =>
      v === short || v === long
        ? words[k + 1]
        : v.startsWith(`${long}=`)
          ? { ...w, value: v.slice(long.length + 1) }
          : v.startsWith(short) && v.length > 2 && !v.startsWith("--")
            ? { ...w, value: v.slice(2) }
            : undefined;
    for (const [short, long] of [
      ["-w", "--write-out"],
      ["-H", "--header"],
    ] as const) {
      const x = value(short, long);
      if (x?.value.startsWith("@")) out.push({ ...x, value: x.value.slice(1) });
    }
    // -T '{.env,x}', -T '.e[n-n]v': curl globs the upload's file names too (unless -g).
    const upload = value("-T", "--upload-file");
    if (upload && globbed && /[{[]/.test(upload.value))
      out.push({ ...upload, literal: false, text: `${upload.text} (a glob curl expands)` });
    const cookie = value("-b", "--cookie");
    if (cookie && !cookie.value.includes("=")) out.push(cookie);
    const urlencoded =
      v === "--data-urlencode"
        ? words[k + 1]
        : v.startsWith("--data-urlencode=")
          ? { ...w, value: v.slice(17) }
          : undefined;
    if (urlencoded && /^[^=]*@/.test(urlencoded.value))
      out.push({ ...urlencoded, value: urlencoded.value.slice(urlencoded.value.indexOf("@") + 1) });
    const url = v.startsWith("--url=") ? v.slice(6) : v === "--url" ? words[k + 1]?.value : v;
    if (url && (/^file:/i.test(url) || (globbed && /^[^:/]*[{[][^:/]*:/.test(url)))) {
      // file:/p and file:p are file URLs too; a {…} or […] glob in the scheme may spell file.
      let path: string | undefined;
      try {
        path = /^file:/i.test(url) ? decodeURIComponent(url.replace(/^file:(\/\/[^/]*)?/i, "")) || "/" : undefined;
      } catch {
        path = undefined;
      }
      // curl expands {a,b} and [a-z] in a URL (unless -g): the files are only known when it runs.
      if (path !== undefined && globbed && /[{[]/.test(path)) path = undefined;
      out.push(path === undefined ? { ...w, literal: false } : { ...w, value: path });
    }
  }
  return out;
}

/** sed -i SUFFIX keeps a backup: file+SUFFIX, or SUFFIX with `*` standing for the name (anywhere, with a `/`). */
function sedBackups(words: readonly ShellWord[]): ShellWord[] {
  let suffix: string | undefined;
  for (const w of words.slice(1)) {
    const v = w.value;
    if (/^-[a-zA-Z]*i./.test(v) && !v.startsWith("--")) suffix = v.slice(v.indexOf("i") + 1);
    else if (v.startsWith("--in-place=") || /^--in-?p?l?a?c?e?=/.test(v)) suffix = v.slice(v.indexOf("=") + 1);
  }
  if (suffix === undefined || suffix === "") return [];
  if (suffix.includes("*") || suffix.includes("/"))
    return [{ ...literalWord(`(a backup named by ${suffix})`), literal: false }];
  const files = words.slice(2).filter((w) => !w.value.startsWith("-"));
  return files.map((f) => ({ ...f, value: `${f.value}${suffix}`, text: `${f.text}${suffix}` }));
}

/** tar --remove-files deletes what it archives. */
function tarRemoved(words: readonly ShellWord[]): ShellWord[] {
  if (!words.some((w) => /^--rem/.test(w.value))) return [];
  return words.filter(
    (w, k) =>
      k > 0 &&
      !w.value.startsWith("-") &&
      !/^(-[a-zA-Z]*[fCT]|--file|--directory|--files-from)$/.test(words[k - 1]!.value),
  );
}

/** pytest --cov-report=TYPE:PATH writes PATH. */
function covReports(words: readonly ShellWord[]): ShellWord[] {
  return words.flatMap((w, k) => {
    const v = w.value.startsWith("--cov-report=")
      ? w.value.slice(13)
      : w.value === "--cov-report"
        ? (words[k + 1]?.value ?? "")
        : "";
    const colon = v.indexOf(":");
    return colon === -1 ? [] : [{ ...w, value: v.slice(colon + 1), text: v.slice(colon + 1) }];
  });
}

/**
 * cp/mv/ln SOURCE… DEST, or -t DEST SOURCE…: where each source lands is judged on disk (subject.ts).
 * Read from the words as optionWords left them (clusters split, long options spelled out, a value
 * the next word), the way the program parses them (red team zd, ZD4): `--` ends the options (`cp --
 * x -e` copies into a folder `-e`), an option with an optional value (`--backup`) never takes the
 * next word, and a word an option takes as its value (`-S -t`) is no option.
 */
function copyOperands(words: readonly ShellWord[]):
  | {
      sources: ShellWord[];
      dest: ShellWord;
      intoFolder: boolean;
      recursive: boolean;
      parents?: boolean;
      backup?: ShellWord;
      modes?: boolean;
    }
  | undefined {
  const program = words[0]!.value.split("/").pop()!;
  const suffix = backupSuffix(words);
  const { options, operands } = copyWords(words);
  const backup = {
    ...(suffix === undefined ? {} : { backup: suffix }),
    ...(program === "cp" && keepsModes(options) ? { modes: true } : {}),
  };
  const target = options.findLast((o) => o.name === "-t" || o.name === "--target-directory")?.value;
  // cp --parents copies a/b/c into DEST/a/b/c (red team n: judged as DEST/c, `.husky/pre-commit` landed unasked).
  const parents = program === "cp" && options.some((o) => o.name === "--parents");
  const recursive =
    program === "mv" ||
    options.some((o) => (/^-[a-zA-Z]*[rRa]/.test(o.name) && !o.name.startsWith("--")) || /^--(rec|arch)/.test(o.name));
  if (target !== undefined) return { sources: operands, dest: target, intoFolder: true, recursive, parents, ...backup };
  if (operands.length < 2) return undefined;
  return { sources: operands.slice(0, -1), dest: operands.at(-1)!, intoFolder: parents, recursive, parents, ...backup };
}

/**
 * Does cp give each copy its source's mode (-p, -a, --preserve with mode or all, the last of them
 * and --no-preserve deciding), not one the umask filters? Its sources' modes are judged then (red
 * team ze, ZE2).
 */
function keepsModes(options: readonly { name: string; value?: ShellWord }[]): boolean {
  let keeps = false;
  const namesMode = (value: ShellWord | undefined) =>
    value === undefined || !value.literal || value.value.split(",").some((a) => a === "mode" || a === "all");
  for (const o of options) {
    if (o.name === "-p" || o.name === "-a" || o.name === "--archive") keeps = true;
    else if (o.name === "--preserve" && namesMode(o.value)) keeps = true;
    // Only a literal list turns it off: `--no-preserve="$x"` may name anything.
    else if (o.name === "--no-preserve" && o.value?.literal === true && namesMode(o.value)) keeps = false;
  }
  return keeps;
}

/**
 * cp's, mv's and ln's words (as optionWords left them: clusters split, long options spelled out, a
 * value the next word) read the way the program parses them (red team zd, ZD4): `--` ends the
 * options, only an option the spec gives a required value takes the next word (`--backup`'s is
 * optional, given after `=`), and a word taken as a value is no option (`-S -t`).
 */
function copyWords(words: readonly ShellWord[]): {
  options: { name: string; value?: ShellWord }[];
  operands: ShellWord[];
} {
  const valued = requiredValues(words[0]!.value.split("/").pop()!);
  const options: { name: string; value?: ShellWord }[] = [];
  const operands: ShellWord[] = [];
  let ended = false;
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (ended || !w.literal || w.value === "-" || !w.value.startsWith("-")) operands.push(w);
    else if (w.value === "--") ended = true;
    else {
      const eq = w.value.startsWith("--") ? w.value.indexOf("=") : -1;
      const name = eq === -1 ? w.value : w.value.slice(0, eq);
      const attached = w.value.slice(eq + 1);
      const value =
        eq !== -1
          ? { ...literalWord(attached), tilde: attached.startsWith("~/") }
          : valued.has(name)
            ? words[++k]
            : undefined;
      options.push(value ? { name, value } : { name });
    }
  }
  return { options, operands };
}

/** The options of `program`'s spec that take a value they need (`-t=w`, `--suffix=`; not `--backup?=`). */
function requiredValues(program: string): Set<string> {
  const options = SOURCES[program]?.options ?? "";
  const names = options
    .split(/\s+/)
    .flatMap((token) => token.split("|"))
    .filter((token) => /^-[^=?]*=/.test(token))
    .map((token) => token.slice(0, token.indexOf("=")));
  return new Set(names);
}

/**
 * `@FILE` to a binutils program is a response file: its text is read as more arguments (options
 * and files the engine does not see), and a failing one is printed (`strings @.env` prints
 * "'SECRET=…': No such file").
 */
function responseFiles(words: readonly ShellWord[]): { at: number; why: string } | undefined {
  const at = words.findIndex((w, k) => k > 0 && w.value.startsWith("@"));
  return at === -1
    ? undefined
    : { at, why: `${words[0]!.value} reads ${words[at]!.text} as a response file of more arguments` };
}

/**
 * A mode with the set-user-ID or set-group-ID bit (`u+s`, `+s`, `4755`, `2755`), one only known
 * at run time, or another file's (`--reference`, which may be /usr/bin/passwd's): the file then
 * runs with its owner's rights for whoever starts it — a shell copied into the project and
 * `chmod u+s`, run as root, is a root shell for every user of the machine (red team z, Z5). Code
 * installed to run later, as a git hook is: it asks in every mode, whatever rule names chmod.
 */
function chmodSetsId(words: readonly ShellWord[]): string | undefined {
  const why = (what: string) =>
    `chmod ${what}, which makes the file run with its owner's rights for whoever starts it (set-user-ID or set-group-ID)`;
  const reference = words.find((w) => /^--reference(=|$)/.test(w.value));
  if (reference) return why(`${reference.text} copies another file's mode, set-ID bits included`);
  const mode = chmodModeWord(words);
  if (!mode) return undefined;
  if (!mode.literal) return why(`${mode.text} sets a mode only known at run time`);
  // Judged on the mode chmod computes (red team ze, ZE1): `+4000` and `=4755` set the bit as `u+s` does.
  const outcomes = modeOutcomes(mode.value, CHMOD_BASE);
  if (outcomes === undefined) return why(`${mode.text} is a mode the engine does not read, which may set a set-ID bit`);
  return outcomes.some((m) => (m & 0o6000) !== 0) ? why(`${mode.text} sets a set-ID bit`) : undefined;
}

/**
 * The mode a file is taken to have before chmod changes it: the owner's bits all set (a class
 * copied from the owner's, `o=u`, carries write), no write for the others and no set-ID bit, so
 * that a mode giving them is seen. mkdir starts from a=rwx (MKDIR_BASE), as GNU's does.
 */
const CHMOD_BASE = 0o755;
const MKDIR_BASE = 0o777;

/** chmod's mode word: its first word that is no option (undefined with --reference: chmodSetsId judges that). */
function chmodMode(words: readonly ShellWord[]): ShellWord | undefined {
  if (words.some((w) => /^--reference(=|$)/.test(w.value))) return undefined;
  return chmodModeWord(words);
}

/** The first word chmod reads as its mode: one that is no option, or a mode that starts with `-` (`-w`, `-x,o+w`), as GNU's. */
function chmodModeWord(words: readonly ShellWord[]): ShellWord | undefined {
  return words.slice(1).find((w) => !(w.literal && w.value.startsWith("-")) || /^-[rwxXstugoa,+=0-7]/.test(w.value));
}

/** The value word of an option matched by `spaced` (its value the next word) or `joined` (in the word, group 1). */
function optionWord(words: readonly ShellWord[], spaced: RegExp, joined: RegExp): ShellWord | undefined {
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (w.literal && spaced.test(w.value)) return words[k + 1];
    const m = w.literal ? joined.exec(w.value) : null;
    if (m) return { ...w, value: m[1]! };
  }
  return undefined;
}

/**
 * Does a umask's symbolic form (bash's `umask u=rwx,g=rx`, which names what is allowed) give the
 * group or others write? A clause with no `ugoa` before it counts. chmod's and mkdir's modes are
 * computed instead (modes.ts).
 */
function grantsOthersWrite(mode: string): boolean {
  if (/^[0-7]+$/.test(mode)) return (Number.parseInt(mode, 8) & 0o022) !== 0;
  return mode.split(",").some((clause) => {
    const m = /^([ugoa]*)(.*)$/.exec(clause)!;
    const who = m[1]!;
    const others = who === "" || /[goa]/.test(who);
    // Each `+perms` or `=perms` (or a copy of another class's bits: `o=u`) that names w.
    return others && /[+=][^-+=]*(w|[ugo])/.test(m[2]!);
  });
}

/**
 * A mode that gives the group or others write (`chmod -R o+w .`, `chmod 666 x`, `mkdir -m 777 d`),
 * or one only known at run time: any user of the machine (a shared CI runner's jobs, a web
 * server's user) may then change the files, a script or a git config the user runs later among
 * them, or add new ones to a folder (red team zb, ZB6). Code installed to run later, as a set-ID
 * bit is (chmodSetsId): it asks, whatever rule names the program.
 */
function othersMayWrite(words: readonly ShellWord[], mode: ShellWord | undefined, base: number): string | undefined {
  if (!mode) return undefined;
  const program = words[0]!.value;
  if (!mode.literal) return `${program} sets a mode only known at run time, which may let other users write the files`;
  // Red team ze (ZE1): the mode the program computes, not the letters written. A symbolic mkdir
  // mode changes a=rwx (`mkdir -m u+x d` makes 0777), and an octal number may follow the operator
  // (`chmod +666`, `=777`); a word GNU would refuse is not read here, so it asks too.
  const outcomes = modeOutcomes(mode.value, base);
  if (outcomes === undefined)
    return `${program} ${mode.text} is a mode the engine does not read, which may let other users write the files`;
  return outcomes.some((m) => (m & 0o022) !== 0)
    ? `${program} ${mode.text} lets other users of the machine write the files, which may be code that runs later`
    : undefined;
}

/**
 * Programs the engine has no spec for that make files with a mode option (red team zg, ZG2), and
 * the mode it changes: GNU install applies its mode to nothing with no umask (`-m +w` is 0222),
 * mkfifo and mknod to a=rw. Their short options that take a value (in the rest of the cluster or
 * the next word); `--m`, `--mo`, `--mod` spell `--mode` to getopt_long.
 */
const MODE_TAKERS: Readonly<Record<string, { base: number; valued: string }>> = {
  install: { base: 0, valued: "gmoSt" },
  mkfifo: { base: 0o666, valued: "m" },
  mknod: { base: 0o666, valued: "m" },
};

/**
 * Programs that change a file's access control list, and the options under which they only remove
 * entries or list them (red team zg, ZG5): `setfacl -m o::rw`, `setfacl -R -m u:www-data:rwx .`, a
 * default ACL (`setfacl -d -m o::rwx .`: every file made there later) and `chacl` grant other users
 * write as `chmod o+w` does, by a road that names no mode.
 */
const ACL_SETTERS: Readonly<Record<string, RegExp | undefined>> = {
  // -b and -k remove every extended or default entry; -R, -L, -P, -d, --test change nothing granted.
  // -x and -X remove entries but compute the mask again, which may raise what a named user gets.
  setfacl: /^(?:-[bkRLPd]+|--(?:remove-all|remove-default|recursive|logical|physical|test|default))$/,
  // -R, -D, -B remove; -l lists; -r recurses.
  chacl: /^-[rRDBl]+$/,
  nfs4_setfacl: undefined,
  nfs4_editfacl: undefined,
  setrichacl: undefined,
};

/** Why an ACL program's call may grant other users access (a write among it), if it may. */
function aclGrants(program: string, words: readonly ShellWord[]): string | undefined {
  if (!(program in ACL_SETTERS)) return undefined;
  const why = `${program} changes a file's access control list, which may let other users of the machine write it (as chmod o+w), which may be code that runs later`;
  const harmless = ACL_SETTERS[program];
  if (!harmless) return why;
  const options: ShellWord[] = [];
  for (const w of words.slice(1)) {
    if (w.literal && w.value === "--") break;
    // A run-time word may be `-m`: what it grants is only known then.
    if (!w.literal) return why;
    if (w.value.startsWith("-")) options.push(w);
  }
  if (program === "chacl") return options.some((w) => /[RDBl]/.test(w.value)) ? undefined : why;
  // setfacl: every option one that removes or changes nothing granted (-m, -M, --set, --set-file, --restore grant).
  return options.every((w) => harmless.test(w.value)) && options.some((w) => /^(-[a-zA-Z]*[bk]|--remove)/.test(w.value))
    ? undefined
    : why;
}

/** The words a MODE_TAKERS program reads as its mode (every -m/--mode; the last one counts, each is judged). */
function modeOptionWords(words: readonly ShellWord[], valued: string): ShellWord[] {
  const out: ShellWord[] = [];
  for (let k = 1; k < words.length; k++) {
    const w = words[k]!;
    if (!w.literal) {
      // A run-time word may be `-m777`: its mode is only known then.
      out.push(w);
      continue;
    }
    if (w.value === "--") break;
    const long = /^--m(?:o(?:d(?:e)?)?)?(=|$)(.*)$/.exec(w.value);
    if (long) {
      out.push(long[1] === "=" ? { ...w, value: long[2]! } : (words[k + 1] ?? w));
      if (long[1] !== "=") k++;
      continue;
    }
    if (!/^-[^-]/.test(w.value)) continue;
    for (let i = 1; i < w.value.length; i++) {
      const c = w.value[i]!;
      if (!valued.includes(c)) continue;
      const rest = w.value.slice(i + 1);
      const value = rest === "" ? words[++k] : { ...w, value: rest };
      if (c === "m") out.push(value ?? w);
      break;
    }
  }
  return out;
}

/**
 * Why a program without a spec that takes a mode (install, mkfifo, mknod) makes a file other users
 * may write, or a set-ID program (`install -m 4755 /bin/sh ./sh`): what ZB6 and Z5 ask of chmod and
 * mkdir, whatever rule names the program, judged on the mode GNU computes. `opens` is also a
 * question the sandbox does not hold (ZE5); a set-ID bit is its seccomp filter's.
 */
export function unspecifiedModes(
  program: string,
  words: readonly ShellWord[],
): { opens?: string; setsId?: string } | undefined {
  const acl = aclGrants(program, words);
  if (acl) return { opens: acl };
  const taker = MODE_TAKERS[program];
  if (!taker) return undefined;
  for (const mode of modeOptionWords(words, taker.valued)) {
    if (!mode.literal)
      return {
        opens: `${program} sets a mode only known at run time (${mode.text}), which may let other users write the files`,
        setsId: `${program} sets a mode only known at run time (${mode.text}), which may set a set-ID bit`,
      };
    const outcomes = modeOutcomes(mode.value, taker.base);
    if (outcomes === undefined)
      return {
        opens: `${program} ${mode.text} is a mode the engine does not read, which may let other users write the files`,
      };
    const opens = outcomes.some((m) => (m & 0o022) !== 0)
      ? `${program} ${mode.text} lets other users of the machine write the files, which may be code that runs later`
      : undefined;
    const setsId = outcomes.some((m) => (m & 0o6000) !== 0)
      ? `${program} ${mode.text} sets a set-ID bit, which makes the file run with its owner's rights for whoever starts it`
      : undefined;
    if (opens || setsId) return { opens, setsId };
  }
  return undefined;
}

/**
 * `git init --shared` (and `=group`, `true`, `all`, `world`, `everybody`, an octal mode giving the
 * group or others write): git makes the repository's folders, hooks and config group- or
 * world-writable — on an existing repository too — and records core.sharedRepository, so every
 * file git writes later stays so: another user may then set core.fsmonitor or add a hook (red team
 * ze, ZE2). Only `umask` and its false spellings keep the owner's modes.
 */
function gitInitShared(words: readonly ShellWord[]): string | undefined {
  const shared = words.find((w) => /^--shared(=|$)/.test(w.value));
  if (!shared) return undefined;
  const why = `git init ${shared.text} lets other users of the machine write the repository's config and hooks, which run code later`;
  if (!shared.literal) return why;
  const value = shared.value.includes("=") ? shared.value.slice(shared.value.indexOf("=") + 1).toLowerCase() : "group";
  if (/^(umask|false|no|off)$/.test(value)) return undefined;
  if (/^0[0-7]+$/.test(value) && (Number.parseInt(value, 8) & 0o022) === 0) return undefined;
  return why;
}

/** `umask MASK` without the group's or others' write bit (`umask 000`, `umask 002`, `umask u=rwx,g=rwx,o=rwx`). */
function umaskOpens(words: readonly ShellWord[]): string | undefined {
  const mask = words.slice(1).find((w) => !(w.literal && w.value.startsWith("-")));
  if (!mask) return undefined;
  if (!mask.literal)
    return `umask ${mask.text} sets a mask only known at run time, which may let other users write every file written after it`;
  const v = mask.value;
  // A numeric mask blocks what it holds; a symbolic one (as `umask -S` prints) allows what it names.
  const opens = /^[0-7]+$/.test(v) ? (Number.parseInt(v, 8) & 0o022) !== 0o022 : grantsOthersWrite(v);
  return opens
    ? `umask ${mask.text} lets other users of the machine write every file written after it, which may be code that runs later`
    : undefined;
}

// date's options that take the next word as their value (after optionWords: `-d x`, `--date x`).
const DATE_VALUES = new Set(["-d", "--date", "-r", "--reference", "--rfc-3339"]);

/**
 * An operand of date that is not a literal `+FORMAT` is a time to set the clock to (`date
 * 0101000020`, `date "$t"`): run as root (a container's usual user) it sets the system clock,
 * which no rule naming date lets a command change. Judged on the words as date parses them.
 */
function dateSetsClock(words: readonly ShellWord[]): { at: number; why: string } | undefined {
  let ended = false;
  for (let at = 1; at < words.length; at++) {
    const w = words[at]!;
    if (!ended && w.literal && w.value === "--") ended = true;
    else if (!ended && w.literal && w.value.startsWith("-") && w.value !== "-") {
      if (DATE_VALUES.has(w.value)) at++;
    } else if (!w.literal || !w.value.startsWith("+"))
      return { at, why: `date ${w.text} sets the system clock (an operand not starting with + is a time to set)` };
  }
  return undefined;
}

/** make VAR=value overrides a makefile variable, and a variable can name a program (SHELL, CC, MAKE). */
function makeVariables(words: readonly ShellWord[]): { at: number; why: string } | undefined {
  const at = words.findIndex((w, k) => k > 0 && (!w.literal || /^[^-][^=]*=/.test(w.value)));
  if (at === -1) return undefined;
  return {
    at,
    why: `make ${words[at]!.text} sets a makefile variable, which can name the program make runs (SHELL, CC, …)`,
  };
}

/** Other names of a program with a spec: the same spec. */
const ALIASES: Readonly<Record<string, string>> = { gmake: "make" };

/**
 * Specs compiled so far. A spec is compiled when a command first names its program: compiling
 * all ~200 when the analysis loaded took ~12 ms and 7.5 MB of allocation at a run's first Bash
 * command, which names a few. `programSpecs()` compiles them all (the tests check every one).
 */
const compiled = new Map<string, ProgramSpec>();

/** The spec of `program` (its base name), if the engine claims to understand it. */
export function specOf(program: string): ProgramSpec | undefined {
  const name = Object.hasOwn(ALIASES, program) ? ALIASES[program]! : program;
  if (!Object.hasOwn(SOURCES, name)) return undefined;
  let spec = compiled.get(name);
  if (!spec) compiled.set(name, (spec = compileSpec(SOURCES[name]!, name)));
  return spec;
}

/** Every spec, compiled, by program name (aliases included). */
export function programSpecs(): ReadonlyMap<string, ProgramSpec> {
  return new Map([...Object.keys(SOURCES), ...Object.keys(ALIASES)].map((name) => [name, specOf(name)!]));
}
