import { ssrRenderAttrs } from "vue/server-renderer";
import { useSSRContext } from "vue";
import { _ as _export_sfc } from "./plugin-vue_export-helper.1tPrXgE0.js";
const __pageData = JSON.parse('{"title":"Publishing a plugin","description":"","frontmatter":{},"headers":[],"relativePath":"plugins/publishing.md","filePath":"plugins/publishing.md"}');
const _sfc_main = { name: "plugins/publishing.md" };
function _sfc_ssrRender(_ctx, _push, _parent, _attrs, $props, $setup, $data, $options) {
  _push(`<div${ssrRenderAttrs(_attrs)}><h1 id="publishing-a-plugin" tabindex="-1">Publishing a plugin <a class="header-anchor" href="#publishing-a-plugin" aria-label="Permalink to &quot;Publishing a plugin&quot;">​</a></h1><ul><li>Name it <code>ubiquity-plugin-&lt;x&gt;</code> (or <code>@scope/ubiquity-plugin-&lt;x&gt;</code>) and add the keyword <code>ubiquity-plugin</code>.</li><li>ESM only (<code>&quot;type&quot;: &quot;module&quot;</code>), with <code>exports</code> giving <code>types</code> and <code>import</code>.</li><li><code>ubiquity</code> is a <code>peerDependency</code> (<code>&quot;^0.1.0&quot;</code>), never a dependency: the project&#39;s copy runs it.</li><li>Import from <code>ubiquity/plugin</code>, the plugin author&#39;s entry (<code>definePlugin</code>, <code>defineTool</code>, the hook and run types, the stages, the kits&#39; helpers); anything not exported there is internal and may change in any release. Its surface is the reviewed report <code>api/ubiquity-plugin.api.md</code>.</li><li>Ship declarations (<code>index.d.ts</code>). If the plugin reads top-level options, declare them in the global <code>Ubiquity.PluginOptions</code> (<a href="./local-development">Local development</a>) so configs type-check them, and give its <code>options</code> a zod slice so they are validated and appear in <code>ubiquity schema --config</code>.</li><li>Check the tarball where a user has it: <code>npm pack</code>, install the <code>.tgz</code> into an empty project with <code>ubiquity</code>, and type-check a config that uses it (this repository&#39;s <code>scripts/package-check/check.sh</code> does exactly this for the example plugin).</li></ul><p>The example plugin <code>examples/ubiquity-plugin-house-rules</code> (plain ESM with a hand-written <code>index.d.ts</code>, no build step) is a template to copy.</p></div>`);
}
const _sfc_setup = _sfc_main.setup;
_sfc_main.setup = (props, ctx) => {
  const ssrContext = useSSRContext();
  (ssrContext.modules || (ssrContext.modules = /* @__PURE__ */ new Set())).add("plugins/publishing.md");
  return _sfc_setup ? _sfc_setup(props, ctx) : void 0;
};
const publishing = /* @__PURE__ */ _export_sfc(_sfc_main, [["ssrRender", _sfc_ssrRender]]);
export {
  __pageData,
  publishing as default
};
