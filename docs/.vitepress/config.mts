// The docs site (VitePress: one devDependency, Markdown in, static HTML out, builds offline in
// seconds, and its default theme has search, sidebar and dark mode without configuration).
// `npm run docs:build` writes the generated Reference pages first (docs/scripts/reference.ts).
import { defineConfig } from "vitepress";

const guide = (text: string, link: string) => ({ text, link: `/guide/${link}` });

export default defineConfig({
  title: "Ubiquity",
  description: "A coding-agent SDK for TypeScript on any model the Vercel AI SDK reaches, as a plugin kernel.",
  cleanUrls: true,
  lastUpdated: false,
  // Offline build: no fonts or scripts from the network.
  head: [],
  srcExclude: ["scripts/**", "README.md"],
  // Examples of local servers (Ollama, vLLM) are not links to check.
  ignoreDeadLinks: "localhostLinks",
  themeConfig: {
    search: { provider: "local" },
    nav: [
      { text: "Getting started", link: "/getting-started" },
      { text: "Guides", link: "/guide/runner" },
      { text: "Plugins", link: "/plugins" },
      { text: "Reference", link: "/reference/" },
      { text: "Security", link: "/security" },
    ],
    sidebar: [
      {
        text: "Getting started",
        items: [
          { text: "Install and first run", link: "/getting-started" },
          { text: "Testing without an LLM", link: "/testing" },
          { text: "Examples", link: "/examples" },
          { text: "Coming from Claude Code / Codex", link: "/coming-from-claude-code" },
          { text: "Compat survey", link: "/guide/compat-survey" },
        ],
      },
      {
        text: "Guides",
        items: [
          guide("The runner", "runner"),
          guide("The message stream", "messages"),
          guide("Live sessions", "live-sessions"),
          guide("Editors and the AI SDK", "editors"),
          guide("Options", "options"),
          guide("Config files", "config-files"),
          guide("Models and providers", "models"),
          guide("Retries and reliability", "retries"),
          guide("Cost and spending cap", "cost"),
          guide("OpenTelemetry", "telemetry"),
          guide("Compaction", "compaction"),
          guide("Prompt caching", "caching"),
          guide("Built-in tools", "tools"),
          guide("Custom tools", "custom-tools"),
          guide("Web tools", "web-tools"),
          guide("Permissions", "permissions"),
          guide("Auto-review", "auto-review"),
          guide("Sandbox", "sandbox"),
          guide("User hooks", "hooks"),
          guide("MCP servers", "mcp"),
          guide("Sessions", "sessions"),
          guide("Checkpoints and rewind", "checkpoints"),
          guide("Todos", "todos"),
          guide("Subagents", "subagents"),
          guide("Background work", "background"),
          guide("Structured output", "structured-output"),
          guide("Slash commands", "slash-commands"),
          guide("Skills", "skills"),
          guide("Memory files", "memory"),
          guide("Images", "images"),
          guide("Harness", "harness"),
          guide("Plugins and presets", "plugins-and-presets"),
          guide("Scaling out", "scaling-out"),
          guide("Performance", "performance"),
        ],
      },
      {
        text: "Plugins",
        items: [
          { text: "Writing plugins", link: "/plugins" },
          { text: "Local development", link: "/plugins/local-development" },
          { text: "Testing plugins", link: "/plugins/testing" },
          { text: "Publishing", link: "/plugins/publishing" },
          { text: "Architecture", link: "/architecture" },
        ],
      },
      {
        text: "Reference",
        items: [
          { text: "Options", link: "/reference/options" },
          { text: "Messages", link: "/reference/messages" },
          { text: "Hooks", link: "/reference/hooks" },
          { text: "CLI", link: "/reference/cli" },
        ],
      },
      { text: "Security model", link: "/security" },
      { text: "Contributing", link: "/contributing" },
    ],
  },
});
