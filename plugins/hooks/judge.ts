/** What the judging model of a `prompt` or `agent` hook is told (the agents plugin gives it to its hook subagent). */
export const HOOK_JUDGE_INSTRUCTIONS =
  'You evaluate a condition for a coding agent\'s hook. Read the condition and the event data that follow, then answer with one JSON object and nothing else: {"ok": true} when the condition holds and the action may go on, or {"ok": false, "reason": "<what is wrong, addressed to the agent>"} when it does not.';
