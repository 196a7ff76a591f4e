/**
 * Does an awk program run commands or write files? `system()`, pipes (`print | "cmd"`,
 * `"cmd" | getline`) and `print > "file"` do; extension loading does. The check is
 * deliberately coarse and errs towards "risky": awk is a full language, and a false alarm
 * costs one prompt while a miss costs a shell.
 */

/** The reason `program` is risky, or undefined. */
export function awkProgramRisk(program: string): string | undefined {
  if (/\bsystem\s*\(/.test(program)) return "awk system() runs a shell command";
  if (/@load\b|@include\b/.test(program)) return "awk @load/@include brings in code from elsewhere";
  const code = stripRegexes(stripStrings(program));
  // gawk's `@` syntax is not awk: `@f(x)` calls the function whose name f holds, built-ins included
  // (`f = "system"; @f("cmd")` runs cmd), and @namespace and friends change what names mean.
  if (code.includes("@"))
    return "gawk's @ syntax (an indirect call such as @f() can call system() by a name held in a variable)";
  if (/\|/.test(code.replace(/\|\|/g, ""))) return "an awk pipe (| getline, print |) runs a command";
  if (/\bprintf?\b[^;{}\n]*>/.test(code)) return "awk print > file writes a file";
  // The program may set the files the main loop opens (ARGV, ARGC), a network name among them.
  if (/\bARG[VC]\b/.test(code))
    return "the awk program changes ARGV or ARGC, the files awk opens (gawk's /inet/… names are network connections)";
  // getline < FILE: gawk opens /inet/… names as network connections, so only a literal name
  // that is not one is understood (a name built at run time could be one).
  for (const m of program.matchAll(/\bgetline\b[^;{}\n<]*<\s*("(?:[^"\\\n]|\\.)*"|[^;{}\n]*)/g)) {
    const target = m[1]!.trim();
    if (!target.startsWith('"'))
      return "awk getline < reads a file named at run time (gawk's /inet/… names are network connections)";
    if (/^"\/+inet[46]?\//.test(target)) return "gawk's getline < /inet/… opens a network connection";
  }
  return undefined;
}

function stripStrings(code: string): string {
  return code.replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
}

// A regex literal can only start where an operand is expected; elsewhere `/` divides.
function stripRegexes(code: string): string {
  return code.replace(/(^|[\s(,!~{;&|])\/(?:[^/\\\n]|\\.)*\//g, "$1//");
}
