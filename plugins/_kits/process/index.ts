/**
 * The process kit: the process groups this program started (Bash, command hooks, language and
 * stdio MCP servers, all through the reaper or the sandbox; `spawnOwned` for the long-lived ones),
 * killed when it exits, and whether a pid is alive (sandbox, session locks, temp sweeps, MCP reaping), and the
 * environment a subprocess starts with (Bash, command hooks, stdio MCP servers). Not a
 * plugin: the only file other folders import.
 */
export { trackProcessGroup, liveProcessGroups, liveShellGroups, isProcessAlive } from "./live-groups";
export {
  absolutePath,
  agentCanWrite,
  agentWritableTest,
  agentWritableFolders,
  buildSubprocessEnv,
  copiedParentVariables,
  hostEnv,
  hostPath,
  isCredentialVariable,
  isPassedName,
  isScrubbedVariable,
  markAgentWritable,
  mayBeCredential,
  noteArgumentSecrets,
  noteEnvSecrets,
  noteProcessHeaderLists,
  noteUrlSecrets,
  PASSED_VARIABLES,
  type SubprocessEnvOptions,
} from "./env";
export { utf8ShellEnv } from "./locale";
export { isUtf8Locale } from "../env-names/index";
export { describeKilled, readReaperReport, reaperAvailable, stopSpawn, underReaper, type ReaperReport } from "./reaper";
export { folderTrusted, spawnFolder, untrustedSpawnFolder, withoutFolderImports } from "./folder";
export { findShell, shellSpawn } from "./shell";
export { noteGitCredentials } from "./git-credentials";
export { jsonForms, noteOptionSecretForms, noteSecretForms, secretForms, urlForms } from "./secret-forms";
export { noteCommandLinePackages, noteServerPackages, runnerPackages } from "./runner-packages";
export { spawnOwned, withDescriptors, type OwnedChild, type OwnedSpawn } from "./owned";
export { MAX_SESSION_SCRIPT_BYTES, readEnvFiles, sessionScriptOf, setSessionScript } from "./session-env";
export { scriptFolders, unimportedScriptFolder, withScriptFolders } from "./script-folders";
