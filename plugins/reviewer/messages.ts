import type { MessageBase } from "../../src/index";

/** A reviewer answered a call that would have prompted (ubiquity:reviewer). */
export interface SystemPermissionReviewMessage extends MessageBase {
  type: "system";
  subtype: "permission_review";
  toolName: string;
  toolUseId: string;
  decision: "allow" | "deny";
  /** The reviewer's reason, or why it gave no decision (then the call was denied). */
  reason?: string;
  /** Who reviewed: a model string, "the run's model", a command, a function. */
  reviewer: string;
  /** True when the reviewer failed (error, timeout, an answer that is not a decision): denied, fail closed. */
  failed?: boolean;
}

declare module "../../src/messages" {
  interface PluginMessages {
    "system/permission_review": SystemPermissionReviewMessage;
  }
}
