/**
 * The proxy's bridge into a bubblewrap sandbox, kept outside the sandbox's seccomp filter. The
 * filtering proxy listens on a Unix socket in the run's private folder, which sandboxed
 * processes cannot see; a socat started on the host side enters the sandbox's user and network
 * namespaces (`nsenter --user --net -t PID`, which the sandbox's owner may do unprivileged) and
 * listens on the sandbox's 127.0.0.1:PROXY_PORT. So nothing inside needs a Unix socket, and the
 * filter refuses them to every sandboxed process even with allowedDomains.
 *
 * The launcher is a shell line (no compiled helper): it makes a FIFO, starts bwrap with
 * `--info-fd` (the sandbox's PID) and `--sync-fd` (open while the sandbox lives) on it, and in
 * the background reads the PID, starts the bridge, and kills it at the FIFO's end of file; the
 * bridge also dies with that reader (`setpriv --pdeathsig KILL`). The command inside waits for
 * the port (see `innerCommand`).
 */
import { agentWritableFolders } from "../_kits/process/index";
import { which } from "./availability";
import { FILTER_FD } from "./seccomp";

/** The proxy's socket, in the run's private folder (never bound into the sandbox). */
export const PROXY_SOCKET_NAME = ".ubiquity-proxy.sock";
/** The port the bridge listens on inside the sandbox. */
export const PROXY_PORT = 3128;
/** The descriptors bwrap gets for `--sync-fd` and `--info-fd` (one FIFO, two descriptors). */
export const SYNC_FD = 7;
export const INFO_FD = 8;
/** The descriptor bwrap reads before the sandbox goes on (`--userns-block-fd`). */
export const BLOCK_FD = 6;

/** The programs the bridge needs besides socat (util-linux and coreutils). */
export interface BridgeTools {
  nsenter: string;
  setpriv: string;
  mkfifo: string;
  setsid: string;
}

const toolCache = new Map<string, { tools: BridgeTools } | { missing: string[] }>();

/** The bridge's programs, or the names of those missing (looked up once per PATH). */
export function bridgeTools(): { tools: BridgeTools } | { missing: string[] } {
  const key = `${process.env.PATH ?? ""}\0${process.cwd()}\0${agentWritableFolders().join("\0")}`;
  let hit = toolCache.get(key);
  if (!hit) {
    hit = lookUp();
    toolCache.set(key, hit);
  }
  return hit;
}

function lookUp(): { tools: BridgeTools } | { missing: string[] } {
  const found = {
    nsenter: which("nsenter"),
    setpriv: which("setpriv"),
    mkfifo: which("mkfifo"),
    setsid: which("setsid"),
  };
  const missing = Object.entries(found)
    .filter(([, path]) => !path)
    .map(([name]) => name);
  return missing.length > 0 ? { missing } : { tools: found as BridgeTools };
}

/** What to install when a bridge program is missing. */
export const BRIDGE_HINT =
  "install util-linux (nsenter, setpriv, setsid) and coreutils (mkfifo): `apt-get install util-linux coreutils` (Debian/Ubuntu; `dnf install util-linux` on Fedora)";

/**
 * The launcher: `sh -c BRIDGE_LAUNCHER FILTER DIR NSENTER SETPRIV SOCAT MKFIFO UID GID SETSID READER BWRAP ARGS...`,
 * where bwrap's ARGS carry `--unshare-user --info-fd INFO_FD --sync-fd SYNC_FD --userns-block-fd
 * BLOCK_FD` and FILTER is the seccomp filter's path (opened on FILTER_FD; /dev/null when there
 * is none). bwrap writes the sandbox's PID and waits on BLOCK_FD before the sandbox goes on; the
 * reader opens the sandbox's user and network namespaces then, writes the uid and gid maps bwrap
 * leaves to it (the user's own ids, as bwrap writes them), and lets it go. Opened later, the
 * user namespace would be the second one bwrap makes (to map the user back after mounting
 * devpts), which does not own the network namespace: nsenter then fails (measured: 2 commands
 * in 60). The info is read up to its closing brace (bwrap writes it in pieces: a reader that
 * stopped early would kill bwrap with SIGPIPE); the socket is named relative to DIR (socat's
 * address syntax would split a path at `:` or `,`). If the reader dies, bwrap reads the end of
 * file and goes on without maps: the command fails, without the network.
 */
export const BRIDGE_LAUNCHER = [
  'd=$1 n=$2 p=$3 c=$4 m=$5 u=$6 g=$7 ss=$8 r=$9; shift 9; f="$d/bridge.$$" b="$d/bridge-go.$$"',
  '"$m" -m 600 "$f" "$b" || exit 125',
  // Its own session: the Bash tool counts what is left in the command's process group when bwrap
  // returns, and the bridge ends a moment later, at the FIFO's end of file.
  '"$ss" /bin/sh -c "$r" bridge "$d" "$n" "$p" "$c" "$u" "$g" "$f" "$b" <"$f" 3>"$b" >/dev/null 2>&1 &',
  `exec "$@" ${FILTER_FD}<"$0" ${SYNC_FD}>"$f" ${INFO_FD}>&${SYNC_FD} ${BLOCK_FD}<"$b"`,
].join("\n");

/** The bridge's reader (see BRIDGE_LAUNCHER): `sh -c BRIDGE_READER bridge DIR NSENTER SETPRIV SOCAT UID GID FIFO GO`. */
export const BRIDGE_READER = [
  'd=$1 n=$2 p=$3 c=$4 u=$5 g=$6; rm -f "$7" "$8"; pid=',
  `while read -r k v; do case $k in '"child-pid":') pid=\${v%,} ;; '}') break ;; esac; done`,
  '[ -n "$pid" ] && exec 4</proc/$pid/ns/user 5</proc/$pid/ns/net || exit 0',
  '{ echo "$u $u 1" >/proc/$pid/uid_map && echo deny >/proc/$pid/setgroups && echo "$g $g 1" >/proc/$pid/gid_map; } || exit 0',
  "echo go >&3; exec 3>&-",
  'cd "$d" || exit 0',
  `"$n" --user=/proc/self/fd/4 --net=/proc/self/fd/5 --preserve-credentials "$p" --pdeathsig KILL "$c" TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr,retry=2000,interval=0.001 UNIX-CONNECT:${PROXY_SOCKET_NAME} </dev/null &`,
  "exec 4<&- 5<&-",
  "while read -r _; do :; done",
  "kill -9 $! 2>/dev/null",
].join("\n");

/** The spawn that starts bwrap (`bwrapArgv`: the program and its arguments) with the bridge. */
export function bridgedLaunch(
  filter: string | undefined,
  dir: string,
  socat: string,
  tools: BridgeTools,
  bwrapArgv: readonly string[],
): { command: string; args: string[] } {
  return {
    command: "/bin/sh",
    args: [
      "-c",
      BRIDGE_LAUNCHER,
      filter ?? "/dev/null",
      dir,
      tools.nsenter,
      tools.setpriv,
      socat,
      tools.mkfifo,
      String(process.getuid?.() ?? 0),
      String(process.getgid?.() ?? 0),
      tools.setsid,
      BRIDGE_READER,
      ...bwrapArgv,
    ],
  };
}
