/** Why a resource could not be read, naming the fix (apart from resources.ts, which loads with the first server). */
export class McpResourceError extends Error {
  override name = "McpResourceError";
}
