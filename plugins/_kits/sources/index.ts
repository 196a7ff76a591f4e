/**
 * The sources kit: reading the user's and a project's own files (settings, agents, skills,
 * memory) — the `user` / `project` / `local` vocabulary, markdown frontmatter, and the warning
 * for a file that is skipped. Not a plugin: the only file other folders import.
 */
export {
  SOURCE_ORDER,
  SourcesSchema,
  orderedSources,
  permittedSources,
  MAX_DEFINITION_BYTES,
  definitionNameProblem,
  type Source,
} from "./sources";
export {
  splitFrontmatter,
  camelKeys,
  quotePlainValues,
  readByFields,
  toolRules,
  type Frontmatter,
} from "./frontmatter";
export { warn, warnOnce } from "./warn";
export {
  COMPAT_TOOLS,
  COMPAT_PLACES,
  parseCompatFlag,
  CompatSchema,
  compatSources,
  compatPaths,
  compatPathTrusted,
  compatProjectPaths,
  definitionProjectFiles,
  permittedCompatPaths,
  chooseAlternatives,
  type CompatTool,
  type CompatKind,
  type CompatPath,
} from "./compat";
export {
  DESCRIPTION_LIMIT,
  SHORT_DESCRIPTION_LIMIT,
  MIN_LISTING_CHARS,
  LISTING_WINDOW_SHARE,
  listingBudget,
  clamp,
  budgetedListing,
  displayNameOf,
  slugOf,
  type ListingEntry,
  type Listing,
} from "./listing";
export {
  ClaudePluginsSchema,
  ClaudePluginsOption,
  PLUGIN_MANIFEST,
  CODEX_PLUGIN_MANIFEST,
  MARKETPLACES,
  readClaudePlugin,
  readPlugins,
  projectFolderApplies,
  unrunParts,
  expandPluginRoot,
  expandIn,
  type ClaudePlugin,
} from "./claude-plugin";
export { splitArguments, substituteArguments } from "./arguments";
export {
  SHELL_LINE,
  SHELL_LINES_DISABLED,
  DisableShellLinesOption,
  ShellLineError,
  runOwnToolCall,
  runShellLines,
} from "./shell-lines";
