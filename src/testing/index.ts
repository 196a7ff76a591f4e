/** `ubiquity/testing`: offline models for plugin authors' own tests. */
export { scriptedModel, type ScriptedModel, type ScriptedTurn, type Script } from "./scripted-model";
export { testModel } from "./test-model";
export { offlineModel, estimateTokens, type OfflineStep } from "./model-base";
export {
  startProviderServer,
  familyOf,
  eventStreamMessage,
  type FakeProviderServer,
  type FakeScript,
  type FakeTurn,
  type FakeAnswer,
  type FakeFailure,
  type FakeDrop,
  type FakeFault,
  type RecordedRequest,
  type WireFamily,
} from "./servers/index";
