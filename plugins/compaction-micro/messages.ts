import type { MessageBase } from "../../src/index";

/** Reports tool results cleared by microcompaction. */
export interface SystemMicrocompactMessage extends MessageBase {
  type: "system";
  subtype: "microcompact";
  cleared: number;
  tokensSaved: number;
  /** The tool calls whose results were cleared (what a transcript records instead of the whole history). */
  toolUseIds: string[];
  /** The text that replaced each cleared result. */
  replacement: string;
}

declare module "../../src/messages" {
  interface PluginMessages {
    "system/microcompact": SystemMicrocompactMessage;
  }
}
