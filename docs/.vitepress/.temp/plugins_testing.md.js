import { ssrRenderAttrs } from "vue/server-renderer";
import { useSSRContext } from "vue";
import { _ as _export_sfc } from "./plugin-vue_export-helper.1tPrXgE0.js";
const __pageData = JSON.parse('{"title":"Testing plugins","description":"","frontmatter":{},"headers":[],"relativePath":"plugins/testing.md","filePath":"plugins/testing.md"}');
const _sfc_main = { name: "plugins/testing.md" };
function _sfc_ssrRender(_ctx, _push, _parent, _attrs, $props, $setup, $data, $options) {
  _push(`<div${ssrRenderAttrs(_attrs)}><h1 id="testing-plugins" tabindex="-1">Testing plugins <a class="header-anchor" href="#testing-plugins" aria-label="Permalink to &quot;Testing plugins&quot;">​</a></h1><p>Test a plugin the way it runs: in a real kernel with the scripted model standing in for the LLM (<a href="./../testing">Testing without an LLM</a>). <code>summon(prompt, { model, plugins: [myPlugin()] })</code> runs the default preset plus your plugin; assert on the messages and on <code>model.requests</code> (what your plugin put into the system prompt or the tools).</p><ul><li><code>createKernel({ plugins: [myPlugin()] })</code> and <code>ubiquity inspect</code> show where your taps sit among the built-ins&#39; (<code>ubiquity inspect --json</code> for a test).</li><li><code>startProviderServer</code> (from <code>ubiquity/testing</code>) is a local HTTP server speaking each provider&#39;s wire format, for plugins that touch requests or headers (<a href="./../plugins#testing-against-a-provider-s-wire-format">details</a>).</li><li>The example plugin in <code>examples/ubiquity-plugin-house-rules</code> ships with its tests in this repository (<code>test/tools/plugins.test.ts</code> runs it from its packed tarball).</li></ul></div>`);
}
const _sfc_setup = _sfc_main.setup;
_sfc_main.setup = (props, ctx) => {
  const ssrContext = useSSRContext();
  (ssrContext.modules || (ssrContext.modules = /* @__PURE__ */ new Set())).add("plugins/testing.md");
  return _sfc_setup ? _sfc_setup(props, ctx) : void 0;
};
const testing = /* @__PURE__ */ _export_sfc(_sfc_main, [["ssrRender", _sfc_ssrRender]]);
export {
  __pageData,
  testing as default
};
