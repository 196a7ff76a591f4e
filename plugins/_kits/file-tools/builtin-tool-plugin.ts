import type { Kernel, Tool } from "../../../src/index";

/**
 * The `apply` of a built-in tool plugin (`definePlugin({ name, apply: registerBuiltinTool(name, create) })`):
 * it registers one tool, unless `options.tools` replaces the built-in suite. It registers once the
 * options are final (`kernel.configResolved`), and steps aside when a plugin later in the list
 * already registered a tool of the same name during `apply`, so "later wins" holds for tool names too.
 */
export function registerBuiltinTool(
  name: string,
  create: (kernel: Kernel) => Tool,
  extra?: (kernel: Kernel) => void,
): (kernel: Kernel) => void {
  return (kernel) => {
    extra?.(kernel);
    kernel.hooks.kernel.configResolved.tap(name, (options) => {
      if (options.tools) return;
      const tool = create(kernel);
      const position = (owner: string) => kernel.plugins.findIndex((p) => p.plugin.name === owner);
      const claimed = kernel.registries.tools.entries().find((e) => e.name === tool.name);
      if (claimed && position(claimed.owner) > position(name)) return;
      kernel.registries.tools.register(tool.name, tool, name);
    });
  };
}
