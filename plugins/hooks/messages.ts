import type { MessageBase } from "../../src/index";

/**
 * What a hook put into the conversation as the user's between a response's tool calls and the
 * next model call (PostToolBatch's `additionalContext`, its reason for stopping the work). Emitted
 * so that the transcript keeps it: a resumed session replays it where the model read it.
 */
export interface SystemHookContextMessage extends MessageBase {
  type: "system";
  subtype: "hook_context";
  hookEventName: "PostToolBatch";
  /** The texts, one user text part each, in order. */
  context: string[];
}

declare module "../../src/messages" {
  interface PluginMessages {
    "system/hook_context": SystemHookContextMessage;
  }
}
