/**
 * The names the subprocess environment is built from, apart from the code that builds it: which
 * variables a subprocess gets from its parent (the allow-list), and which locales read text as
 * UTF-8 does. The process kit builds environments from them; the permission engine's shell
 * analysis judges assignments by them (a passed variable is exported, a locale picks the character
 * set bash reads in), without importing the process kit, which imports the engine.
 */

/**
 * The variables a subprocess gets from its parent, and why each is safe to pass:
 * - locale (`LANG`, `LANGUAGE`, `LC_*`) and time zone (`TZ`): how text and dates are read;
 * - terminal (`TERM`, `COLORTERM`, `NO_COLOR`, `FORCE_COLOR`, `COLUMNS`, `LINES`): how output looks;
 * - who and where (`PATH` without relative entries, `HOME`, `USER`, `LOGNAME`, `SHELL`) and the
 *   temp folder (`TMPDIR`, `TMP`, `TEMP`); the XDG base folders say where the user's own config and
 *   caches are (the same places a tool finds without them, moved);
 * - TLS trust (`SSL_CERT_FILE`, `SSL_CERT_DIR`, `NODE_EXTRA_CA_CERTS`, `REQUESTS_CA_BUNDLE`,
 *   `CURL_CA_BUNDLE`) and proxies (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`, either
 *   case): without them nothing reaches the network behind a corporate proxy. A proxy URL with a
 *   password is a credential and stays behind;
 * - on Windows, the variables programs cannot start without (`SYSTEMROOT`, `COMSPEC`, …).
 * Left out on purpose, each a capability rather than a setting: `SSH_AUTH_SOCK` (signs with the
 * user's keys), `DISPLAY`/`WAYLAND_DISPLAY`, `DBUS_SESSION_BUS_ADDRESS`, `XDG_RUNTIME_DIR`
 * (the user's session sockets), `NODE_OPTIONS` (loads code into every node), `npm_config_*`,
 * and ubiquity's own `UBIQUITY_*`. The user's `env` passes any of them.
 */
export const PASSED_VARIABLES: readonly string[] = [
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "COLORTERM",
  "NO_COLOR",
  "FORCE_COLOR",
  "COLUMNS",
  "LINES",
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR",
  "TMP",
  "TEMP",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
  // Windows: a process cannot start, or find its profile, without these.
  "APPDATA",
  "COMSPEC",
  "HOMEDRIVE",
  "HOMEPATH",
  "LOCALAPPDATA",
  "PATHEXT",
  "PROCESSOR_ARCHITECTURE",
  "PROGRAMFILES",
  "SYSTEMDRIVE",
  "SYSTEMROOT",
  "USERNAME",
  "USERPROFILE",
  "WINDIR",
];
/** Families passed whole: the locale categories (`LC_ALL`, `LC_CTYPE`, …). */
const PASSED_FAMILIES = [/^LC_[A-Z]+$/];
const PASSED = new Set(PASSED_VARIABLES);
/** Windows names are case-insensitive (`Path`, `SystemRoot`). */
const PASSED_UPPER = new Set(PASSED_VARIABLES.map((n) => n.toUpperCase()));

/** True when the allow-list names this variable (exactly, or by its family). */
export function isPassedName(name: string, platform: NodeJS.Platform = process.platform): boolean {
  if (PASSED.has(name) || PASSED_FAMILIES.some((f) => f.test(name))) return true;
  return platform === "win32" && PASSED_UPPER.has(name.toUpperCase());
}

/**
 * Locales whose characters hold no ASCII byte, as UTF-8 text is read: C, POSIX, a UTF-8 one. Not an
 * empty one: then the next variable decides (`LC_CTYPE=` falls back to a LANG=zh_CN.GBK), nor a
 * name without a codeset, which may mean a legacy one (`zh_TW` is BIG5).
 */
const UTF8_LOCALE = /^(?:C|POSIX|(?:[A-Za-z]{1,8}(?:_[A-Za-z0-9]{2,3})?)?\.utf-?8(?:@[A-Za-z0-9_-]+)?)$/i;

/** True for a locale name known to read text as UTF-8 does (C, POSIX, `*.UTF-8`). */
export function isUtf8Locale(value: string): boolean {
  return UTF8_LOCALE.test(value);
}
