#!/usr/bin/env bash
# What a user installs, checked where a user has it: pack the package as `npm publish` would,
# install the tarball (and the example plugin's) into an empty project, and there type-check a
# user program under strict + nodenext, run it, and run the bin. Run through `npm run
# check:package` so the repo's pinned Node 24 is first on PATH.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ubiquity-package-check.XXXXXX")
trap 'rm -rf "$work"' EXIT
say() { printf '\n-- %s\n' "$*"; }

say "npm pack (runs prepack: the full build, declarations included)"
cd "$repo"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
plugin="$work/$(cd examples/ubiquity-plugin-house-rules && npm pack --silent --pack-destination "$work" | tail -n 1)"
tar -tzf "$tarball" | sed 's|^package/||' | sort > "$work/files.txt"

say "the tarball holds the JavaScript and declarations of every export, the bin, the schema, README, CHANGELOG and LICENSE"
expected=(bin/ubiquity.mjs schema/ubiquity.config.schema.json README.md CHANGELOG.md LICENSE package.json
  dist/sdk/index.mjs dist/types/sdk/index.d.ts dist/sdk/plugin.mjs dist/types/sdk/plugin.d.ts dist/runner/cli.mjs dist/src/testing/index.mjs dist/types/src/testing/index.d.ts
  dist/harness/index.mjs dist/types/harness/index.d.ts
  dist/vendor/tree-sitter-bash/tree-sitter-bash.wasm dist/vendor/tree-sitter-bash/LICENSE
  dist/vendor/genai-prices/prices.json dist/vendor/genai-prices/LICENSE)
for dir in plugins/*/; do
  name=$(basename "$dir")
  [ -f "plugins/$name/public.ts" ] && expected+=("dist/plugins/$name/public.mjs" "dist/types/plugins/$name/public.d.ts")
done
for file in presets/*.ts; do
  name=$(basename "$file" .ts)
  expected+=("dist/presets/$name.mjs" "dist/types/presets/$name.d.ts")
done
missing=0
for f in "${expected[@]}"; do grep -qxF "$f" "$work/files.txt" || { echo "missing from the tarball: $f"; missing=1; }; done
[ "$missing" = 0 ] || exit 1
echo "${#expected[@]} required files present ($(wc -l < "$work/files.txt") in all)"

say "every relative link in the shipped README and docs pages points at a file in the tarball (so they work in node_modules)"
node -e '
const fs = require("fs"), path = require("path");
const files = new Set(fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean));
let dead = [], checked = 0;
for (const file of files) {
  if (!(file === "README.md" || (file.startsWith("docs/") && file.endsWith(".md")))) continue;
  const text = fs.readFileSync(process.argv[2] + "/" + file, "utf8").replace(/```[\s\S]*?```/g, "");
  for (const m of text.matchAll(/\]\(([^)\s#]+)(#[^)\s]*)?\)/g)) {
    const target = m[1];
    if (/^[a-z]+:/i.test(target)) continue;
    checked++;
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(file), target));
    if (!files.has(resolved)) dead.push(file + " -> " + target);
  }
}
if (dead.length) { console.error("links to files not in the tarball:\n  " + dead.join("\n  ")); process.exit(1); }
console.log(checked + " relative links resolve inside the package");
' "$work/files.txt" "$repo"

say "the published manifest runs nothing on install and links home (repository, homepage, bugs)"
tar -xzOf "$tarball" package/package.json > "$work/manifest.json"
node -e '
const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const install = ["preinstall", "install", "postinstall", "prepare"].filter((s) => m.scripts && m.scripts[s]);
if (install.length) { console.error("install-time scripts in the published manifest: " + install.join(", ")); process.exit(1); }
for (const k of ["repository", "homepage", "bugs"]) if (!m[k]) { console.error("package.json has no " + k); process.exit(1); }
console.log("no install-time scripts; repository " + (m.repository.url || m.repository));
' "$work/manifest.json"

say "install the tarballs into an empty project"
mkdir "$work/app"
cd "$work/app"
npm init -y > /dev/null
npm pkg set type=module > /dev/null
npm install --no-audit --no-fund --loglevel=warn "$tarball" "$plugin" zod@4 typescript@5.9 @types/node@24 @ai-sdk/harness@1 2> "$work/install.log" || { cat "$work/install.log"; exit 1; }
# npm lists packages with install scripts; ubiquity itself must not be one of them.
if grep -E "install-scripts +ubiquity@" "$work/install.log"; then echo "installing ubiquity runs an install script"; exit 1; fi
cp "$repo/scripts/package-check/main.ts" main.ts
cp "$repo/scripts/package-check/harness.ts" harness.ts
# Every subpath's default export and key types must resolve to real types, not `any` (skipLibCheck
# would turn an unresolved import inside our declarations into `any` silently).
{
  echo 'type IsAny<T> = 0 extends 1 & T ? true : false;'
  echo 'type Typed<T> = IsAny<T> extends true ? never : true;'
  echo 'import type { Options, Message, Plugin, Preset, Kernel } from "ubiquity";'
  echo 'export const core: [Typed<Options>, Typed<Message>, Typed<Plugin>, Typed<Preset>, Typed<Kernel>] = [true, true, true, true, true];'
  echo 'import type { definePlugin as authorDefinePlugin, PluginContext, RunContext, Hooks, ModelRequest } from "ubiquity/plugin";'
  echo 'export const author: [Typed<typeof authorDefinePlugin>, Typed<PluginContext>, Typed<RunContext>, Typed<Hooks>, Typed<ModelRequest>] = [true, true, true, true, true];'
  echo 'import type { scriptedModel } from "ubiquity/testing";'
  echo 'export const testing: Typed<typeof scriptedModel> = true;'
  echo 'import type { ubiquityHarness } from "ubiquity/harness";'
  echo 'export const harness: Typed<typeof ubiquityHarness> = true;'
  i=0
  for dir in "$repo"/plugins/*/; do
    name=$(basename "$dir")
    [ -f "$dir/public.ts" ] || continue
    i=$((i + 1))
    echo "import type * as p$i from \"ubiquity/plugins/$name\";"
    echo "export const plugin$i: Typed<typeof p$i> = true;"
  done
  for file in "$repo"/presets/*.ts; do
    name=$(basename "$file" .ts)
    i=$((i + 1))
    echo "import type p$i from \"ubiquity/presets/$name\";"
    echo "export const preset$i: Typed<typeof p$i> = true;"
  done
} > types.ts
cat > tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "strict": true,
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "target": "es2023",
    "noEmit": true,
    "skipLibCheck": true,
    "types": ["node"]
  },
  "files": ["main.ts", "types.ts", "harness.ts"]
}
JSON
cat > ubiquity.config.ts <<'TS'
import { defineConfig } from "ubiquity";
import houseRules from "ubiquity-plugin-house-rules";

export default defineConfig({
  plugins: [houseRules({ rules: ["Run npm test before you finish"] })],
});
TS

say "tsc --noEmit (strict, nodenext) on a user program"
npx tsc --noEmit -p .

say "the same program under moduleResolution bundler (what Vite and tsup users have)"
node -e 'const c=JSON.parse(require("fs").readFileSync("tsconfig.json","utf8"));Object.assign(c.compilerOptions,{module:"esnext",moduleResolution:"bundler"});require("fs").writeFileSync("tsconfig.bundler.json",JSON.stringify(c))'
npx tsc --noEmit -p tsconfig.bundler.json

say "node main.ts (the user program, on Node $(node --version))"
node main.ts

say "node harness.ts (HarnessAgent from @ai-sdk/harness running ubiquity/harness)"
node harness.ts

say "the kits are no export: ubiquity/plugins/_kits/<kit> is refused by name (the plugins' shared code, not an API)"
kit=$(node -e 'import("ubiquity/plugins/_kits/authoring").then(() => console.log("imported"), (e) => console.log(e.code))')
echo "$kit"
[ "$kit" = "ERR_PACKAGE_PATH_NOT_EXPORTED" ] || { echo "a kit is importable by subpath"; exit 1; }

say "npx ubiquity run --model test \"list the files\""
out=$(npx ubiquity run --trust --model test "list the files" 2>&1)
echo "$out"
grep -q "Glob" <<< "$out" || { echo "the run did not list the files"; exit 1; }

say "a model with no price table is priced from the snapshot the package ships (no @pydantic/genai-prices installed)"
price=$(node --input-type=module -e '
import { createKernel } from "ubiquity";
import { getPricingApi } from "ubiquity/plugins/pricing";
const api = getPricingApi(createKernel({}));
const quote = await api.price("anthropic:claude-sonnet-4-5", { inputTokens: 1000000, outputTokens: 0 }, {});
const window = await api.contextWindow("anthropic:claude-sonnet-4-5", {});
let dep = "absent"; try { await import("@pydantic/genai-prices"); dep = "installed"; } catch {}
console.log(`${quote?.source} ${quote?.costUsd} ${window} @pydantic/genai-prices ${dep}`);
' 2>&1 || true)
echo "$price"
grep -Eq "^market [0-9.]+ [0-9]+ @pydantic/genai-prices absent$" <<< "$price" || { echo "the shipped price snapshot did not price the model"; exit 1; }

say "a shell command is judged with the bash grammar the package ships (no tree-sitter-bash installed)"
check=$(npx ubiquity permissions check --allow 'Bash(git status:*)' "git status && rm -rf /" 2>&1 || true)
echo "$check"
grep -q "rm -rf" <<< "$check" || { echo "the permission check did not judge the compound command"; exit 1; }

say "ubiquity acp without its optional peer names the install command; with it, it answers initialize"
acp=$(npx ubiquity acp < /dev/null 2>&1 || true)
echo "$acp"
grep -q "npm i @agentclientprotocol/sdk" <<< "$acp" || { echo "ubiquity acp did not name its missing package"; exit 1; }
npm install --silent --no-audit --no-fund @agentclientprotocol/sdk@2
init='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}'
reply=$( (echo "$init"; sleep 5) | timeout 60 npx ubiquity acp 2>/dev/null | head -1 || true)
echo "$reply"
grep -q '"protocolVersion"' <<< "$reply" || { echo "ubiquity acp did not answer initialize"; exit 1; }

say "the example plugin, installed from its tarball, is in the resolved plugin list"
npx ubiquity inspect --trust | grep -q "ubiquity-plugin-house-rules" || { echo "the example plugin was not loaded"; exit 1; }
npx ubiquity --version
say "package check: ok"
