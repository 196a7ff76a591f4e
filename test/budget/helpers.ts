import { summon, type Message, type ResultMessage, type SummonOptions } from "ubiquity";
import modelPlugin from "ubiquity/plugins/model";
import retryPlugin from "ubiquity/plugins/retry";
import pricingPlugin, { costOf } from "../../plugins/pricing/index";
import type { ModelPricing } from "ubiquity/plugins/pricing";
import budgetPlugin from "ubiquity/plugins/budget";
import { collect, resultOf } from "../helpers/collect";
import { echo } from "../model/helpers";

/** The model tests' tool for tool-call round trips. */
export { echo };

/** USD per million tokens of the test models. */
export const PRICE: ModelPricing = { input: 10, output: 30 };

/** The model layer plus the budget, and nothing else. */
export const budgetLayer = () => [modelPlugin(), retryPlugin(), pricingPlugin(), budgetPlugin()];

/** Run `prompt` through the model layer and the budget with `options`; `plugins` come after the layer. */
export async function run(
  prompt: string,
  { plugins = [], ...options }: SummonOptions,
): Promise<{ messages: Message[]; result: ResultMessage }> {
  const messages = await collect(
    summon(prompt, { presets: [], plugins: [...budgetLayer(), ...plugins], tools: [echo], maxRetries: 0, ...options }),
  );
  return { messages, result: resultOf(messages) };
}

/** What `usage` costs at `pricing`, the pricing plugin's arithmetic. */
export const cost = (
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number },
  pricing = PRICE,
) => costOf({ cacheReadTokens: 0, cacheWriteTokens: 0, ...usage }, pricing);
