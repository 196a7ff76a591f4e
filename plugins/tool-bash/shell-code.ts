/** What a Bash call runs a command with, loaded by its first call (bash-tool.ts). */
export { runCommand } from "./run-command";
export { ShellProcess } from "./shell-process";
export { adoptShell } from "./background";
