/**
 * How a test changes `process.env`, one of two ways:
 *
 * - For a test, or each test of a file or describe: `vi.stubEnv(key, value)` in the test or a
 *   `beforeEach` (`undefined` removes the key), and `afterEach(() => { vi.unstubAllEnvs(); })` once
 *   at the top level. After each test, a failed one too, every stubbed key is as it was before (or
 *   absent again). Not in a `beforeAll`: the first test's `afterEach` would put the key back and the
 *   tests after it would run without it. The config leaves vitest's `unstubEnvs` off: it unstubs
 *   before each test, not after, so a file's last stubs would stand through the next file's imports
 *   and `beforeAll` in a shared worker (`isolate: false`), and it would undo a `beforeAll`'s stubs.
 * - For one call inside a test or a helper (`cli()`, `trustNow()`): `withEnv(vars, fn)` below.
 *   `vi.unstubAllEnvs()` puts back every stubbed key at once, the test's own too, so it cannot end
 *   a change in the middle of a test.
 *
 * `withEnv` sets `vars` (`undefined` removes a key), runs `fn`, and puts each of those keys back as it
 * was (removed if it was absent) once `fn` returns or throws; other keys stay as they are.
 */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T | Promise<T>): Promise<T> {
  const saved = Object.keys(vars).map((key) => [key, process.env[key]] as const);
  for (const [key, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  try {
    return await fn();
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
