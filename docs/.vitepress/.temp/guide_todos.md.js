import { ssrRenderAttrs } from "vue/server-renderer";
import { useSSRContext } from "vue";
import { _ as _export_sfc } from "./plugin-vue_export-helper.1tPrXgE0.js";
const __pageData = JSON.parse('{"title":"Todos","description":"","frontmatter":{},"headers":[],"relativePath":"guide/todos.md","filePath":"guide/todos.md"}');
const _sfc_main = { name: "guide/todos.md" };
function _sfc_ssrRender(_ctx, _push, _parent, _attrs, $props, $setup, $data, $options) {
  _push(`<div${ssrRenderAttrs(_attrs)}><h1 id="todos" tabindex="-1">Todos <a class="header-anchor" href="#todos" aria-label="Permalink to &quot;Todos&quot;">​</a></h1><p>TodoWrite is a <a href="./tools#deferred-tools">deferred tool</a> by default: the model loads its definition through ToolSearch (or calls it by name) when a task needs a list.</p><p>TodoWrite edits a list that outlives the run: <code>{ &quot;todos&quot;: [...] }</code> replaces the list; <code>add</code>, <code>update</code> and <code>remove</code> edit single tasks — both kinds in one call is an error. A task is named by its id (shown in every result) or its exact content; a name matching nothing, or content shared by two tasks, is an error, not a no-op. At most one task is <code>in_progress</code> <strong>per run</strong> (a task records which run set it in progress), so runs sharing the project list never lock each other out: updates that leave two of a run&#39;s own tasks in progress are an error; an <code>add</code> never is — the added task takes over and the run&#39;s earlier one goes back to <code>pending</code>, which the result says. The result shows the list with its progress (<code>2/5 completed, 1 in progress</code>).</p><p>Lists live at <code>~/.ubiquity/todos/&lt;project-slug&gt;/&lt;key&gt;/&lt;taskId&gt;.json</code> (<code>todoDir</code> moves them), one file per task, each written through a temp file and an atomic rename. A <code>position</code> field orders the list (ties break on id). Every call re-reads the folder and writes only the tasks it changed, so two runs editing different tasks never overwrite each other. An unreadable task file is skipped, and temp files left by a crash are removed. <code>todoScope: &quot;project&quot;</code> (the default) keys the list by cwd; <code>&quot;session&quot;</code> by session id. <code>persistTodos: false</code> keeps it in memory. A stored list with unfinished work is described in the run&#39;s first prompt; an all-completed list is not. A subagent gets its own list, keyed by its agent id and deleted when it reports. <code>getTodosApi(kernel)</code> gives plugins <code>listFor</code>, <code>read</code>, <code>write</code>, <code>describeUnfinished</code> and <code>discard</code>.</p></div>`);
}
const _sfc_setup = _sfc_main.setup;
_sfc_main.setup = (props, ctx) => {
  const ssrContext = useSSRContext();
  (ssrContext.modules || (ssrContext.modules = /* @__PURE__ */ new Set())).add("guide/todos.md");
  return _sfc_setup ? _sfc_setup(props, ctx) : void 0;
};
const todos = /* @__PURE__ */ _export_sfc(_sfc_main, [["ssrRender", _sfc_ssrRender]]);
export {
  __pageData,
  todos as default
};
