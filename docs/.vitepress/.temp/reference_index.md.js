import { ssrRenderAttrs } from "vue/server-renderer";
import { useSSRContext } from "vue";
import { _ as _export_sfc } from "./plugin-vue_export-helper.1tPrXgE0.js";
const __pageData = JSON.parse('{"title":"Reference","description":"","frontmatter":{},"headers":[],"relativePath":"reference/index.md","filePath":"reference/index.md"}');
const _sfc_main = { name: "reference/index.md" };
function _sfc_ssrRender(_ctx, _push, _parent, _attrs, $props, $setup, $data, $options) {
  _push(`<div${ssrRenderAttrs(_attrs)}><h1 id="reference" tabindex="-1">Reference <a class="header-anchor" href="#reference" aria-label="Permalink to &quot;Reference&quot;">​</a></h1><p>Generated from the code at build time, so it cannot drift:</p><ul><li><a href="./options">Options</a>: every option, by the plugin that reads it (from the zod schemas)</li><li><a href="./messages">Messages</a>: the message union <code>summon()</code> yields</li><li><a href="./hooks">Hooks</a>: user hook events and the kernel&#39;s hooks</li><li><a href="./cli">CLI</a>: commands and flags</li><li>The config&#39;s JSON Schema: <code>ubiquity schema</code>, or <code>import schema from &quot;ubiquity/schema.json&quot;</code></li></ul></div>`);
}
const _sfc_setup = _sfc_main.setup;
_sfc_main.setup = (props, ctx) => {
  const ssrContext = useSSRContext();
  (ssrContext.modules || (ssrContext.modules = /* @__PURE__ */ new Set())).add("reference/index.md");
  return _sfc_setup ? _sfc_setup(props, ctx) : void 0;
};
const index = /* @__PURE__ */ _export_sfc(_sfc_main, [["ssrRender", _sfc_ssrRender]]);
export {
  __pageData,
  index as default
};
