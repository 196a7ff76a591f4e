import { ssrRenderAttrs } from "vue/server-renderer";
import { useSSRContext } from "vue";
import { _ as _export_sfc } from "./plugin-vue_export-helper.1tPrXgE0.js";
const __pageData = JSON.parse('{"title":"Examples","description":"","frontmatter":{},"headers":[],"relativePath":"examples.md","filePath":"examples.md"}');
const _sfc_main = { name: "examples.md" };
function _sfc_ssrRender(_ctx, _push, _parent, _attrs, $props, $setup, $data, $options) {
  _push(`<div${ssrRenderAttrs(_attrs)}><h1 id="examples" tabindex="-1">Examples <a class="header-anchor" href="#examples" aria-label="Permalink to &quot;Examples&quot;">​</a></h1><p>Runnable programs in the repository&#39;s <code>examples/</code> folder. Each runs in CI on the scripted model (<code>test/examples/examples.test.ts</code>), so it stays correct.</p><table tabindex="0"><thead><tr><th>Example</th><th>What it shows</th></tr></thead><tbody><tr><td><code>examples/scripted-agent.ts</code></td><td>An agent with a custom tool, run on the scripted model: the messages a run yields</td></tr><tr><td><code>examples/permissions.ts</code></td><td>A <code>canUseTool</code> callback that denies writes outside a folder, and the denial in the result</td></tr><tr><td><code>examples/plugin.ts</code></td><td>A plugin that registers a tool and adds a system-prompt section, with a typed option</td></tr><tr><td><code>examples/ubiquity-plugin-house-rules/</code></td><td>A publishable plugin package (plain ESM + <code>index.d.ts</code>)</td></tr><tr><td><code>examples/harness-use-chat/</code></td><td>Ubiquity behind the AI SDK&#39;s HarnessAgent and <code>useChat</code></td></tr></tbody></table><p>Run one with <code>npx jiti examples/scripted-agent.ts</code> in a clone (after <code>npm install</code>).</p></div>`);
}
const _sfc_setup = _sfc_main.setup;
_sfc_main.setup = (props, ctx) => {
  const ssrContext = useSSRContext();
  (ssrContext.modules || (ssrContext.modules = /* @__PURE__ */ new Set())).add("examples.md");
  return _sfc_setup ? _sfc_setup(props, ctx) : void 0;
};
const examples = /* @__PURE__ */ _export_sfc(_sfc_main, [["ssrRender", _sfc_ssrRender]]);
export {
  __pageData,
  examples as default
};
