import type { z } from "zod";
import { Tool, type ToolContext } from "../../../src/index";
import { outsideRoots } from "./paths";

/**
 * A tool that acts on one path named in its input (Read, Write, Edit, Glob, Grep): that path is
 * what a permission rule must authorize, and it must lie inside the permitted roots.
 */
export abstract class PathTool<S extends z.ZodType> extends Tool<S> {
  /** The path this call touches, as the model wrote it. */
  protected abstract pathOf(input: z.output<S>): string;

  override permissionRuleContent(input: z.output<S>): string[] {
    return [this.pathOf(input)];
  }

  /** Refused before any permission prompt; `call` checks again (a hook may rewrite the input). */
  override validateInput(input: z.output<S>, ctx: ToolContext): Promise<string | undefined> {
    return outsideRoots(ctx, this.pathOf(input));
  }
}
