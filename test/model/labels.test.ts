/**
 * Model labels name the provider the way a user writes it: the model plugin's providers claim
 * the AI SDK ids that differ from their names (`amazon-bedrock` → `bedrock`, `google.vertex.*`
 * → `google-vertex`); anything else is labelled by its id up to the first dot.
 */
import { expect, it } from "vitest";
import { createKernel } from "ubiquity";
import { modelLabel } from "../../src/index";
import { modelLayer } from "./helpers";

const constructed = (provider: string, modelId = "m-1") =>
  ({ provider, modelId }) as unknown as Parameters<typeof modelLabel>[0];

it("labels constructed models with the provider names of the model plugin", () => {
  const kernel = createKernel({ ...modelLayer() });
  expect(modelLabel(constructed("amazon-bedrock"), kernel)).toBe("bedrock:m-1");
  expect(modelLabel(constructed("google.vertex.chat"), kernel)).toBe("google-vertex:m-1");
  expect(modelLabel(constructed("google.generative-ai"), kernel)).toBe("google:m-1");
  expect(modelLabel(constructed("openai.responses"), kernel)).toBe("openai:m-1");
  expect(modelLabel(constructed("ubiquity-test"), kernel)).toBe("test");
  // Without a provider plugin to claim it, the id speaks for itself.
  expect(modelLabel(constructed("amazon-bedrock"))).toBe("amazon-bedrock:m-1");
});
