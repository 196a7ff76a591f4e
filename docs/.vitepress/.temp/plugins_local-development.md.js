import { ssrRenderAttrs } from "vue/server-renderer";
import { useSSRContext } from "vue";
import { _ as _export_sfc } from "./plugin-vue_export-helper.1tPrXgE0.js";
const __pageData = JSON.parse('{"title":"Developing a plugin locally","description":"","frontmatter":{},"headers":[],"relativePath":"plugins/local-development.md","filePath":"plugins/local-development.md"}');
const _sfc_main = { name: "plugins/local-development.md" };
function _sfc_ssrRender(_ctx, _push, _parent, _attrs, $props, $setup, $data, $options) {
  _push(`<div${ssrRenderAttrs(_attrs)}><h1 id="developing-a-plugin-locally" tabindex="-1">Developing a plugin locally <a class="header-anchor" href="#developing-a-plugin-locally" aria-label="Permalink to &quot;Developing a plugin locally&quot;">​</a></h1><p>Keep the plugin in its own folder with its own <code>package.json</code>, and install it into a project that uses it with plain npm:</p><div class="language-sh vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">sh</span><pre class="shiki shiki-themes github-light github-dark vp-code" tabindex="0"><code><span class="line"><span style="--shiki-light:#005CC5;--shiki-dark:#79B8FF;">cd</span><span style="--shiki-light:#032F62;--shiki-dark:#9ECBFF;"> my-agent</span></span>
<span class="line"><span style="--shiki-light:#6F42C1;--shiki-dark:#B392F0;">npm</span><span style="--shiki-light:#032F62;--shiki-dark:#9ECBFF;"> i</span><span style="--shiki-light:#032F62;--shiki-dark:#9ECBFF;"> ../ubiquity-plugin-greeter</span><span style="--shiki-light:#6A737D;--shiki-dark:#6A737D;">     # a symlink: edits show at once</span></span></code></pre></div><p>The plugin lists <code>ubiquity</code> as a <strong>peer dependency</strong> (the project&#39;s copy is the one that runs) and, for its own tests and types, as a dev dependency. That leaves two copies of <code>ubiquity</code> on disk — the project&#39;s and the plugin folder&#39;s <code>node_modules/ubiquity</code> — and that is fine:</p><ul><li>At run time the kernel checks plugins by shape (<code>{ name, apply }</code>), never by class identity.</li><li>In <code>tsc</code>, the public types are structural: <code>Plugin</code>, <code>Kernel</code> and <code>kernel.registries.*</code> (<code>RegistryApi</code>) carry no private class fields, so a plugin type-checked against one copy fits the other&#39;s <code>defineConfig</code> (the package&#39;s tests install a plugin this way, with a different version in its folder, and type-check the project).</li><li>The plugin&#39;s options reach the project&#39;s config type through the <strong>global</strong><code>Ubiquity.PluginOptions</code> interface, which every copy shares:</li></ul><div class="language-ts vp-adaptive-theme"><button title="Copy Code" class="copy"></button><span class="lang">ts</span><pre class="shiki shiki-themes github-light github-dark vp-code" tabindex="0"><code><span class="line"><span style="--shiki-light:#6A737D;--shiki-dark:#6A737D;">// index.d.ts of ubiquity-plugin-greeter (or a .ts source)</span></span>
<span class="line"><span style="--shiki-light:#D73A49;--shiki-dark:#F97583;">declare</span><span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8;"> global {</span></span>
<span class="line"><span style="--shiki-light:#D73A49;--shiki-dark:#F97583;">  namespace</span><span style="--shiki-light:#6F42C1;--shiki-dark:#B392F0;"> Ubiquity</span><span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8;"> {</span></span>
<span class="line"><span style="--shiki-light:#D73A49;--shiki-dark:#F97583;">    interface</span><span style="--shiki-light:#6F42C1;--shiki-dark:#B392F0;"> PluginOptions</span><span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8;"> {</span></span>
<span class="line"><span style="--shiki-light:#6A737D;--shiki-dark:#6A737D;">      /** What the greeter says. */</span></span>
<span class="line"><span style="--shiki-light:#E36209;--shiki-dark:#FFAB70;">      greeting</span><span style="--shiki-light:#D73A49;--shiki-dark:#F97583;">?:</span><span style="--shiki-light:#005CC5;--shiki-dark:#79B8FF;"> string</span><span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8;">;</span></span>
<span class="line"><span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8;">    }</span></span>
<span class="line"><span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8;">  }</span></span>
<span class="line"><span style="--shiki-light:#24292E;--shiki-dark:#E1E4E8;">}</span></span></code></pre></div><p>Then <code>defineConfig({ greeting: 42, plugins: [greeter()] })</code> is a <code>tsc</code> error in the project, and <code>ubiquity schema --config ubiquity.config.ts</code> prints the plugin&#39;s options in the JSON Schema (from its zod <code>options</code> slice). A plugin that declares no merge can be typed from the config side: <code>defineConfig&lt;{ greeting?: string }&gt;({ … })</code>.</p><p>Loading a project&#39;s config is gated by trust: run <code>npx ubiquity trust</code> once in the project so the runner applies its <code>ubiquity.config.ts</code> (and so the plugin).</p></div>`);
}
const _sfc_setup = _sfc_main.setup;
_sfc_main.setup = (props, ctx) => {
  const ssrContext = useSSRContext();
  (ssrContext.modules || (ssrContext.modules = /* @__PURE__ */ new Set())).add("plugins/local-development.md");
  return _sfc_setup ? _sfc_setup(props, ctx) : void 0;
};
const localDevelopment = /* @__PURE__ */ _export_sfc(_sfc_main, [["ssrRender", _sfc_ssrRender]]);
export {
  __pageData,
  localDevelopment as default
};
