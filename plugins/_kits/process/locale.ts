/**
 * The character set a shell reads its command in. Bash takes it from LC_CTYPE (LC_ALL over
 * LC_CTYPE over LANG); the permission engine reads every command as UTF-8. In GBK, GB18030, BIG5,
 * Shift_JIS or JOHAB a multibyte character may end in `\`, `"` or a backtick, so the two readings
 * differ (red team zg, ZG1): `echo "丁\" ; touch x ; echo "丁\"` is one echo to the engine, two
 * echoes and a touch to bash in GBK.
 */
import { isUtf8Locale } from "../env-names/index";

/**
 * `env` with the shell's character set made UTF-8 where the locale it names is not known to be
 * (the user's LANG=zh_CN.GBK): LC_CTYPE becomes C.UTF-8, and an LC_ALL moves to LANG, so the other
 * categories (messages, dates, collation) keep the user's choice. Where C.UTF-8 is missing the C
 * locale applies, which is ASCII: read alike too.
 */
export function utf8ShellEnv(env: Record<string, string>): Record<string, string> {
  const ctype = env.LC_ALL || env.LC_CTYPE || env.LANG || "";
  // None set is the C locale.
  if (ctype === "" || isUtf8Locale(ctype)) return env;
  const out: Record<string, string> = { ...env, LC_CTYPE: "C.UTF-8" };
  if (env.LC_ALL) {
    out.LANG = env.LC_ALL;
    delete out.LC_ALL;
  }
  return out;
}
