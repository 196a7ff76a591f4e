/** What the settings plugin adds to `system/init`: the managed policy files the run applies. */
export {};

declare module "../../src/messages" {
  interface InitFields {
    /** The managed policy files this run applies (the organisation's, above every option); absent when there are none. */
    managedPolicy?: string[];
  }
}
