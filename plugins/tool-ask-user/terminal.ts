/** AskUserQuestion at the runner's terminal: each question with its numbered options, answered by number(s) or in words. */
import type { TerminalAnswerer } from "../../loader/index";

interface Question {
  question: string;
  options: { label: string; description?: string }[];
  multiSelect?: boolean;
}

/** The plugin's answerer: the runner calls it before its approval question. */
export const askInTerminal: TerminalAnswerer = async ({ toolName, input, signal }, terminal) => {
  if (toolName !== "AskUserQuestion") return undefined;
  const questions = (input.questions ?? []) as Question[];
  const answers: Record<string, string> = {};
  for (const q of questions) {
    terminal.print(`\n${q.question}\n`);
    q.options.forEach((o, i) => {
      terminal.print(`  ${i + 1}. ${o.label}${o.description ? ` — ${o.description}` : ""}\n`);
    });
    let answer = "";
    while (!answer) {
      const reply = await terminal.ask(
        q.multiSelect ? "Pick numbers (comma-separated), or type an answer: " : "Pick a number, or type an answer: ",
        signal,
      );
      const picked = reply
        .split(",")
        .map((s) => (/^\d+$/.test(s.trim()) ? q.options[Number(s.trim()) - 1]?.label : undefined))
        .filter((s): s is string => !!s);
      answer = picked.length ? picked.join(", ") : reply;
    }
    answers[q.question] = answer;
  }
  return { input: { ...input, answers } };
};
