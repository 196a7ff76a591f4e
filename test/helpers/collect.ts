import type { Message } from "ubiquity";

/** Drain a summon() generator into an array. */
export async function collect(gen: AsyncIterable<Message>): Promise<Message[]> {
  const out: Message[] = [];
  for await (const m of gen) out.push(m);
  return out;
}

/** Narrow messages by type. */
export function ofType<T extends Message["type"]>(messages: Message[], type: T): Extract<Message, { type: T }>[] {
  return messages.filter((m): m is Extract<Message, { type: T }> => m.type === type);
}

/** The result message (always last). */
export function resultOf(messages: Message[]) {
  const last = messages.at(-1);
  if (last?.type !== "result") throw new Error(`last message is ${last?.type}, not result`);
  return last;
}
