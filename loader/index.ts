/**
 * The loader: what Ubiquity reads from the user's disk before a kernel exists, and the safe ways
 * to read it. It finds and loads the config file, imports the plugin and preset modules a config
 * names, and keeps the trust store that decides whether a folder's own files apply. The kernel
 * (`src/`) takes objects and never reads a config file; the runner, `loadConfig()` and the
 * harness call the loader first (Rollup's `loadConfigFile` sits beside its core the same way).
 * Plugins that read files someone else may have planted use its safe reads.
 */
export { loadConfig, findConfigFile, trustFromEnv, pinToFile, CONFIG_SEARCH_PLACES } from "./load";
export type { LoadConfigOptions, LoadedConfig, ConfigEnv } from "./load";
export { configFilesIn, configSearchFolders, othersCanWrite } from "./search";
export {
  absentState,
  DATA_NAME,
  dataState,
  expansionTails,
  isScriptFile,
  MAX_DATA_REFERENCES,
  MAX_SCRIPT_REFERENCES,
  SCRIPT_NAME,
  scriptAbsentCode,
  scriptAbsentNames,
  scriptDataPremise,
  scriptDataReferences,
  scriptReferences,
} from "./script-references";
export type { DataPremise } from "./script-references";
export {
  binPackage,
  configuredEnvironmentPlace,
  configuredFiles,
  configuredPackagePlace,
  configuredPackages,
  environmentPaths,
  rememberConfiguredCode,
  rememberEnvironmentPaths,
  rememberConfiguredPackage,
  rememberRunConfigFile,
  runConfigFiles,
  type ConfiguredPackage,
} from "./run-config-files";
export { configJsonSchema, configJsonSchemaText } from "./json-schema";
export { createModuleLoader, moduleError, isPathSpecifier, packageName, compiledCacheDir } from "./module";
export type { ModuleLoader } from "./module";
export { resolveEntries, isPresetLike } from "./resolve";
export {
  readRegularBytesSync,
  readRegularFile,
  readRegularFileSync,
  describeJsonError,
  describeFileKind,
} from "./safe-read";
export type { RegularFileRead } from "./safe-read";
export {
  isFolderTrusted,
  rememberTrust,
  approveFiles,
  revokeTrust,
  readTrustStore,
  trustStorePath,
  realFolder,
  trustEntryFor,
  trustPinsFor,
} from "./trust-store";
export type { TrustEntry, FolderPins } from "./trust-store";
export {
  TrustPins,
  isDataPinKey,
  isProjectFileTrusted,
  digestProjectPath,
  filesNamedBy,
  pinKey,
  isUsersOwn,
  MAX_PIN_FILE_BYTES,
  MAX_PIN_FOLDER_FILES,
  MAX_PIN_FOLDER_BYTES,
  MAX_PIN_FOLDER_DEPTH,
} from "./trust-pins";
export type { ProjectTrust, PinProblem } from "./trust-pins";
export {
  findProjectFiles,
  findFilesToPin,
  isConfigTrusted,
  digestsOf,
  unapprovedFiles,
  pathExists,
  peekJsonOrYaml,
  printable,
  displayPath,
} from "./project-files";
export type { UntrustedFile, FindOptions } from "./project-files";
export { configGraph } from "./config-graph";
export { importsMapTargets } from "./imports-map";
export {
  configuredPackageFolders,
  configPackagePlaces,
  installedClosure,
  installedConfigClosure,
  ownCode,
  ownModuleFolders,
  ownState,
  readOnlyModules,
  shadowingPlaces,
} from "./installed-code";
export { scanModuleSource } from "./module-scan";
export type { ConfigGraph, UnfollowedImport } from "./config-graph";
export type { ImportsMapTargets } from "./imports-map";
export { UsageError } from "./plugin-contract";
export type {
  PluginCommand,
  CommandFlag,
  CommandArgs,
  CommandIO,
  RunFlag,
  FlagValue,
  Terminal,
  TerminalCall,
  TerminalAnswerer,
  ProjectFile,
  ProjectPlace,
} from "./plugin-contract";
