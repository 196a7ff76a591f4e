import { ssrRenderAttrs } from "vue/server-renderer";
import { useSSRContext } from "vue";
import { _ as _export_sfc } from "./plugin-vue_export-helper.1tPrXgE0.js";
const __pageData = JSON.parse(`{"title":"","description":"","frontmatter":{"layout":"home","hero":{"name":"Ubiquity","text":"A coding-agent SDK for TypeScript","tagline":"The agent loop, built-in tools, permissions, hooks, subagents, MCP and sessions — on any model the Vercel AI SDK reaches, as a plugin kernel.","actions":[{"theme":"brand","text":"Get started","link":"/getting-started"},{"theme":"alt","text":"Guides","link":"/guide/runner"},{"theme":"alt","text":"Write a plugin","link":"/plugins"}]},"features":[{"title":"Any model","details":"\\"openai:gpt-5\\", \\"anthropic:…\\", a local Ollama or vLLM server, or any AI SDK LanguageModel. Swap the string, nothing else changes.","link":"/guide/models"},{"title":"Everything is a plugin","details":"A small kernel of typed hooks; every tool, permission mode, compaction tier and the model layer are plugins you can replace by name.","link":"/guide/plugins-and-presets"},{"title":"Fails closed","details":"Rule-based permissions, a sandbox for Bash, trust for project files. What the engine does not understand is refused.","link":"/security"},{"title":"Tested without an LLM","details":"The scripted model from ubiquity/testing replays turns, so an agent's tests run offline and deterministically.","link":"/testing"}]},"headers":[],"relativePath":"index.md","filePath":"index.md"}`);
const _sfc_main = { name: "index.md" };
function _sfc_ssrRender(_ctx, _push, _parent, _attrs, $props, $setup, $data, $options) {
  _push(`<div${ssrRenderAttrs(_attrs)}></div>`);
}
const _sfc_setup = _sfc_main.setup;
_sfc_main.setup = (props, ctx) => {
  const ssrContext = useSSRContext();
  (ssrContext.modules || (ssrContext.modules = /* @__PURE__ */ new Set())).add("index.md");
  return _sfc_setup ? _sfc_setup(props, ctx) : void 0;
};
const index = /* @__PURE__ */ _export_sfc(_sfc_main, [["ssrRender", _sfc_ssrRender]]);
export {
  __pageData,
  index as default
};
