/**
 * The secrets a configured MCP server carries — a key on its command line (`--api-key KEY`), its
 * env's values, its URL's password, query and path parts, its headers — registered when the
 * options are resolved, for every server, started or not. They were registered when the server's
 * transport was made, so `ubiquity inspect` (whose options are "secrets redacted" for bug reports
 * and CI logs), which starts no server, printed a stdio server's `--api-key` and `MYTOK` values and
 * a Zapier URL's path key (red team zl, ZL4; the rule of red team zh's ZH6 for hooks, search and LSP).
 */
import { noteSecret } from "../../src/index";
import { noteArgumentSecrets, noteEnvSecrets, noteUrlSecrets } from "../_kits/process/index";
import type { McpServerConfig } from "./options";

/** Register the secrets of each of `servers` (see above). */
export function noteServerSecrets(servers: Readonly<Record<string, McpServerConfig>> | undefined): void {
  for (const config of Object.values(servers ?? {})) {
    if ("command" in config) {
      noteArgumentSecrets(config.args ?? []);
      noteEnvSecrets(config.env);
    } else {
      noteUrlSecrets(config.url);
      for (const value of Object.values(config.headers ?? {})) noteSecret(value);
    }
  }
}
