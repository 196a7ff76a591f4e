/** Fake provider servers: real HTTP on 127.0.0.1 in each provider family's wire format. */
export { startProviderServer, familyOf, type FakeProviderServer } from "./server";
export type {
  FakeScript,
  FakeTurn,
  FakeAnswer,
  FakeFailure,
  FakeDrop,
  FakeFault,
  RecordedRequest,
  WireFamily,
} from "./script";
export { eventStreamMessage } from "./event-stream";
