/**
 * Programs that carry a command language of their own, reached from their command line (red team
 * zw): sqlite3's dot-commands and CLI functions, dc's and m4's shell escapes, ssh's configuration
 * keywords, socat's addresses, netcat's -e/-c, lldb's commands, openssl's engines. A rule naming
 * one (`Bash(sqlite3:*)`) covers what it does with the data it is given, not a program it is told
 * to run: each check here reads the program's options as its own parser does and finds every form
 * it does not know to be plain; those leave the command unproven (risky.ts merges the table).
 */
import type { ShellWord } from "./words";

type Check = (words: readonly ShellWord[]) => string | undefined;

/**
 * sqlite3's options that only shape its output or how it opens the database (3.40's list, without
 * -A/-archive, -cmd, -init, -nonce, -unsafe-testing and the ones this list does not name); the
 * second set takes a value. The shell strips one extra dash (`--init` is `-init`).
 */
const SQLITE_PLAIN = new Set(
  "append ascii bail batch box column csv echo header noheader html interactive json line list markdown nofollow quote readonly safe stats table tabs version help memtrace no-rowid-in-view".split(
    " ",
  ),
);
const SQLITE_VALUED = new Set("newline nullvalue separator mmap maxsize vfs heap lookaside pagecache".split(" "));
/**
 * Words of SQL that reach past the database: the CLI's edit() runs an editor program it names,
 * load_extension() loads a shared library, writefile()/readfile()/fsdir read and write any file,
 * zipfile/sqlar write archives, ATTACH and VACUUM INTO create database files anywhere.
 */
const SQLITE_REACHING = /\b(edit|load_extension|writefile|readfile|fsdir|lsdir|zipfile|sqlar\w*|attach|vacuum)\b/i;

function sqlite3(words: readonly ShellWord[]): string | undefined {
  let database = false;
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v.startsWith("-") && v !== "-") {
      const name = v.replace(/^--?/, "");
      if (SQLITE_VALUED.has(name)) k++;
      else if (!SQLITE_PLAIN.has(name))
        return `sqlite3 ${v}: an option that runs commands from a file or text (-init, -cmd), works on archives (-A), or one not known to be plain`;
      continue;
    }
    if (v.trimStart().startsWith(".") && v !== "." && !v.startsWith("./") && !v.startsWith(".."))
      return "sqlite3 dot-commands (.shell, .system, .once |cmd, .load) run programs";
    if (!database) {
      database = true;
      continue;
    }
    const reach = SQLITE_REACHING.exec(v);
    if (reach)
      return `sqlite3's ${reach[1]} reaches past the database (edit() runs a program, load_extension() loads one, writefile() and ATTACH write any file)`;
  }
  return undefined;
}

/** Every invocation but `--version`/`--help`: the program's language runs the shell from any text it reads. */
const always =
  (why: string): Check =>
  (words) =>
    words.length === 2 && /^--(version|help)$/.test(words[1]!.value) ? undefined : why;

/**
 * ssh's configuration keywords (in -o) that only set data; any other may name a program
 * (ProxyCommand, LocalCommand, KnownHostsCommand), a library (PKCS11Provider,
 * SecurityKeyProvider) or a file of more keywords (Include), or be one this list does not know.
 */
const SSH_PLAIN_KEYWORDS = new Set(
  "addressfamily batchmode bindaddress bindinterface canonicaldomains canonicalizehostname checkhostip ciphers clearallforwardings compression connectionattempts connecttimeout controlmaster controlpath controlpersist dynamicforward escapechar exitonforwardfailure fingerprinthash forwardagent forwardx11 forwardx11timeout forwardx11trusted gatewayports globalknownhostsfile gssapiauthentication gssapidelegatecredentials hashknownhosts hostbasedauthentication hostkeyalgorithms hostkeyalias hostname identitiesonly identityfile ipqos kbdinteractiveauthentication kexalgorithms localforward loglevel macs nohostauthenticationforlocalhost numberofpasswordprompts passwordauthentication port preferredauthentications pubkeyacceptedalgorithms pubkeyacceptedkeytypes pubkeyauthentication rekeylimit remoteforward requesttty sendenv serveralivecountmax serveraliveinterval setenv stricthostkeychecking tcpkeepalive tunnel updatehostkeys user userknownhostsfile verifyhostkeydns visualhostkey".split(
    " ",
  ),
);
/** The options of ssh, scp and sftp that take a value (getopt: the rest of the cluster, or the next word). */
const SSH_VALUED: Record<string, string> = { ssh: "BbcDEeFIiJLlmOoPpQRSWw", scp: "cDFiJloPSX", sftp: "BbcDFiJloPRSsX" };
/** The letters whose value names a program, a library or a file of configuration, per program. */
const SSH_RUNS: Record<string, string> = { ssh: "FI", scp: "FS", sftp: "FSD" };

/** ssh, scp, sftp: every option cluster read as getopt reads it, and -o's keyword against the plain ones. */
function sshRisk(words: readonly ShellWord[]): string | undefined {
  const program = words[0]!.value.split("/").pop()!;
  const valued = SSH_VALUED[program] ?? SSH_VALUED.ssh!;
  const runs = SSH_RUNS[program] ?? "FI";
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v === "--") break;
    if (!v.startsWith("-") || v === "-") continue;
    for (let i = 1; i < v.length; i++) {
      const c = v[i]!;
      if (!valued.includes(c)) continue;
      const value = i < v.length - 1 ? v.slice(i + 1) : (words[++k]?.value ?? "");
      if (runs.includes(c))
        return `${program} -${c} names a program, a library or a configuration file (which can name programs) for ${program} to use`;
      const keyword = /^\s*([A-Za-z0-9]*)/.exec(value)![1]!.toLowerCase();
      if (c === "o" && !SSH_PLAIN_KEYWORDS.has(keyword))
        return `${program} -o ${keyword || value}: a keyword that may run a local program (ProxyCommand, LocalCommand, Match exec), load a library or include a file, or one not known to be plain`;
      break;
    }
  }
  return undefined;
}

/** socat's address types that only connect to a socket or the standard streams. */
const SOCAT_PLAIN =
  /^(-|stdio|stdin|stdout|stderr|(tcp|udp|sctp)[46]?(-(listen|l|connect|sendto|recvfrom|recv|datagram))?|openssl(-listen)?|proxy|socks[45]a?)$/i;

/** socat: each address's type (before `:` or `,`; both halves of `A!!B`) must be a socket's or a stream's. */
function socat(words: readonly ShellWord[]): string | undefined {
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (/^-(d+|v|x|u|U|4|6|s|h+|V|g|lu|lm|ly|lp\w*)$/.test(v)) continue;
    if (/^-[btTLW]$/.test(v)) {
      k++;
      continue;
    }
    if (v.startsWith("-") && v !== "-") return `socat ${v}: an option not known to be plain (-lf writes a log file)`;
    for (const address of v.split("!!")) {
      const type = address.split(/[:,]/)[0]!;
      if (!SOCAT_PLAIN.test(type))
        return `socat's address ${address}: not a socket's or a stream's (EXEC and SYSTEM run programs, OPEN and CREATE write files)`;
    }
  }
  return undefined;
}

/** nc, ncat, netcat: -e/-c (in a cluster too) and --exec, --sh-exec, --lua-exec run a program; -o writes a file. */
function netcat(words: readonly ShellWord[]): string | undefined {
  const bad = words.find(
    (w, i) =>
      i > 0 &&
      ((/^-[^-]/.test(w.value) && /[eco]/.test(w.value.slice(1))) ||
        /^--(e|ex|exe|exec|s|sh|sh-|sh-e|sh-ex|sh-exe|sh-exec|l|lu|lua|lua-|lua-e|lua-ex|lua-exe|lua-exec|o|ou|out|outp|outpu|output|a|ap|app|appe|appen|append|append-|append-o\w*)(=|$)/.test(
          w.value,
        )),
  );
  return bad
    ? `${words[0]!.value} ${bad.value}: an option that runs a program for the connection (-e, -c, --sh-exec) or writes a file (-o)`
    : undefined;
}

/** lldb's options known to be plain (the rest run commands or read command files: -o, -s, -O, -S, -k, -K, --one-line…, --source…). */
const LLDB_PLAIN =
  /^(-x|--no-lldbinit|-b|--batch|-w|--wait-for|-v|--version|-h|--help|-X|--no-use-colors|-Q|--source-quietly)$/;
const LLDB_VALUED = /^(-a|--arch|-f|--file|-c|--core|-p|--attach-pid|-n|--attach-name)$/;

function lldb(words: readonly ShellWord[]): string | undefined {
  for (let k = 1; k < words.length; k++) {
    const v = words[k]!.value;
    if (v === "--") break;
    if (!v.startsWith("-")) continue;
    if (LLDB_VALUED.test(v)) k++;
    else if (!LLDB_PLAIN.test(v))
      return `lldb ${v}: an option that runs debugger commands (-o, -s, -O, -S, -k, -K), which can run a shell, or one not known to be plain`;
  }
  return undefined;
}

/** openssl's parser takes `-opt`, `--opt` and `-opt=value` alike: an engine, a provider or a config file loads code. */
function openssl(words: readonly ShellWord[]): string | undefined {
  const bad = words.find((w) => /^--?(\w*engine|provider|provider-path|propquery|config)(=|$)/.test(w.value));
  return bad
    ? `openssl ${bad.value} loads a shared library (an engine, a provider) or a configuration that can`
    : undefined;
}

/**
 * mysql and mariadb: the client's own commands (`system cmd`, `\\! cmd`, `pager cmd`, `tee file`,
 * `source file`, `edit`) in -e text, and the options that name a pager, a log file, a client plugin
 * or an options file (which can set the pager), in any start of their names (my_getopt's).
 */
function mysql(words: readonly ShellWord[]): string | undefined {
  const names = [
    "pager",
    "tee",
    "defaults-file",
    "defaults-extra-file",
    "plugin-dir",
    "default-auth",
    "local-infile",
    "load-data-local-dir",
  ];
  const bad = words.find(
    (w, i) =>
      i > 0 &&
      ((w.value.startsWith("--") && names.some((n) => longOptionStart(w.value, n))) ||
        /\\|(^|;)\s*(system|pager|tee|source|edit)\b/i.test(w.value)),
  );
  return bad
    ? `${words[0]!.value} ${bad.value}: a client command or option that runs a program, writes or reads a file, or loads a plugin`
    : undefined;
}

/** pandoc's filters, PDF engine and defaults files run programs or Lua (getopt: any start of a long name). */
function pandoc(words: readonly ShellWord[]): string | undefined {
  const names = ["lua-filter", "filter", "pdf-engine", "pdf-engine-opt", "defaults", "data-dir", "extract-media"];
  const bad = words.find(
    (w, i) =>
      i > 0 &&
      ((w.value.startsWith("--") && names.some((n) => longOptionStart(w.value, n))) ||
        /^-[a-zA-Z]*[LFd]/.test(w.value)),
  );
  return bad
    ? `pandoc ${bad.value} runs a filter program, Lua code or a PDF engine (-d: a defaults file naming them)`
    : undefined;
}

/**
 * ImageMagick: a file name starting with `|` runs a command, `@file` reads names from a file, and a
 * coder prefix (`msl:`, `ephemeral:`, `ps:` through a delegate) picks a reader that can run or write;
 * -write and -script write or run more.
 */
function magick(words: readonly ShellWord[]): string | undefined {
  const bad = words.find(
    (w, i) => i > 0 && (/[|]|^@|^[a-zA-Z0-9-]{2,}:/.test(w.value) || /^-(write|script)$/.test(w.value)),
  );
  return bad
    ? `${words[0]!.value} ${bad.value}: a pipe, a coder or a list of files ImageMagick opens as it likes (delegates run programs)`
    : undefined;
}

/** Whether `--word` names the long option `name` (any start of it, with or without `=value`). */
function longOptionStart(word: string, name: string): boolean {
  const m = /^--([A-Za-z][A-Za-z0-9_-]*)(?:=|$)/.exec(word);
  return m !== null && name.replaceAll("_", "-").startsWith(m[1]!.replaceAll("_", "-"));
}

export const LANGUAGE_CHECKS: Record<string, Check> = {
  sqlite3,
  dc: always("dc runs `!command` in its program (-e text, a file, stdin)"),
  m4: always("m4's syscmd and esyscmd run shell commands from its input and -D definitions"),
  ssh: sshRisk,
  scp: sshRisk,
  sftp: sshRisk,
  socat,
  nc: netcat,
  ncat: netcat,
  netcat,
  lldb,
  openssl,
  mysql,
  mariadb: mysql,
  pandoc,
  convert: magick,
  magick,
  mogrify: magick,
  montage: magick,
  composite: magick,
  identify: magick,
  // Languages that run the shell or any file's code: duckdb (`.shell`, COPY TO, LOAD), mongosh
  // (JavaScript with require), gnuplot (system(), `!cmd`), xmllint's --shell (`write`, `save`).
  duckdb: always("duckdb's SQL and dot-commands run the shell (.shell), load extensions and write any file (COPY TO)"),
  mongosh: always("mongosh runs JavaScript, which can require child_process"),
  gnuplot: always("gnuplot's system() and `!cmd` run the shell from any script or -e text"),
  xmllint: (words) =>
    words.some((w) => /^--?shell$/.test(w.value))
      ? "xmllint --shell's commands write any file (write, save)"
      : undefined,
};
