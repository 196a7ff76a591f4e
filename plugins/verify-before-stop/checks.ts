/**
 * The checks a model named in its own words: commands in backticks that run a test suite, a type
 * checker, a linter or a build. Only these are repeated back to it; anything else in backticks
 * (a file name, a symbol) is prose.
 */
const CHECK =
  /^(?:npm (?:run |)(?:test|check|lint|build|typecheck)\b|npx (?:vitest|jest|tsc|eslint|biome|prettier --check)\b|pnpm |yarn |bun (?:test|run)\b|node --test\b|tsc\b|vitest\b|jest\b|eslint\b|pytest\b|python3? -m (?:pytest|unittest|mypy)\b|mypy\b|ruff\b|cargo (?:test|check|clippy|build)\b|go (?:test|vet|build)\b|make(?: |$)|mvn |gradle |\.\/gradlew |dotnet (?:test|build)\b|rspec\b|bundle exec |phpunit\b|swift (?:test|build)\b|deno (?:test|check|lint)\b)/;

/** Commands in backticks that look like checks, in first-mention order, without repeats. */
export function namedChecks(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/`([^`\n]{2,200})`/g)) {
    const command = match[1]!.trim().replace(/^\$\s*/, "");
    if (CHECK.test(command) && !found.includes(command)) found.push(command);
  }
  return found.slice(0, 5);
}
