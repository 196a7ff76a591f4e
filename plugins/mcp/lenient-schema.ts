/**
 * The part of a server's input schema we check before a call: only what the server's own
 * validator surely rejects too. A schema describes the arguments the server ends up with, and
 * its validator is often more forgiving than the schema reads (Playwright MCP's zod schemas list
 * `level`, `static` and `scale` as required while zod fills in their defaults, and declare
 * `additionalProperties: false` while zod strips unknown keys). A local refusal of a call the
 * server takes is a wrong answer the model cannot work around; a call the server refuses comes
 * back as its own error. So: a property with a `default` is not required, closed objects are
 * open, and a `$schema` dialect is not insisted on (its unknown keywords are ignored).
 */

/** Keys whose values are data, not subschemas: never rewritten. */
const DATA_KEYS = new Set(["default", "const", "enum", "examples", "example"]);

/** `schema` with what servers fill in or strip themselves left unchecked (a copy; the input is untouched). */
export function lenientInputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return relax(rest) as Record<string, unknown>;
}

function relax(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relax);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === "additionalProperties" || key === "unevaluatedProperties") && value === false) continue;
    out[key] = DATA_KEYS.has(key) ? value : relax(value);
  }
  const properties = out.properties;
  if (Array.isArray(out.required) && properties && typeof properties === "object") {
    const withDefault = (name: unknown) => {
      const property = (properties as Record<string, unknown>)[String(name)];
      return !!property && typeof property === "object" && "default" in property;
    };
    out.required = out.required.filter((name) => !withDefault(name));
  }
  return out;
}
