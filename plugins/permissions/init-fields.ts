/** What the permissions plugin adds to `system/init`: the run's permission mode. */
export {};

declare module "../../src/messages" {
  interface InitFields {
    /** The run's permission mode (`default`, `acceptEdits`, `plan`, …); absent when the run failed before its plugins started. */
    permissionMode?: string;
  }
}
