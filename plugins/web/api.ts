/**
 * The web plugin's public pieces for other plugins and users: the result shape, the backend
 * interface (pass your own engine to the plugin factory: `web({ backend })`), the built-in
 * backends, and the address check WebFetch applies.
 */
export type { WebSearchResult, SearchBackend, SearchRequest } from "./search-results";
export { filterResults, inDomain, WebSearchError } from "./search-results";
export { searxngBackend, braveBackend } from "./backends";
export { nativeSearchProvider, type NativeProvider } from "./native-search";
export { isPublicAddress, nonPublicReason } from "./address";
export { heldFetch, proxiedByEnvironment, publicFetch, resolveAll, type ResolveAll } from "./held-fetch";
export { WebFetchError } from "./web-url";

// The options this plugin declares (its slice of the config schema) and their types.
export * from "./options";
