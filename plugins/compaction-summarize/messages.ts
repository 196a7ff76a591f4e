import type { MessageBase } from "../../src/index";

/** Marks a full compaction of the history: the summary replaced what came before. */
export interface SystemCompactBoundaryMessage extends MessageBase {
  type: "system";
  subtype: "compact_boundary";
  tokensBefore: number;
  tokensAfter: number;
  trigger: "auto" | "manual";
}

declare module "../../src/messages" {
  interface PluginMessages {
    "system/compact_boundary": SystemCompactBoundaryMessage;
  }
}
