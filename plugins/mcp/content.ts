/**
 * An MCP tool result as the model reads it. ToolOutput content is text, so text blocks pass
 * through and everything else is described in place (type, size, uri) rather than dropped:
 * a model that is told an image came back can say so; one told nothing guesses. For a model
 * that sees images, image blocks (up to Read's 5 MB limit) are also attached as parts of the
 * result, as Read attaches an image file; the text and transcripts never carry the base64.
 */
import type { ToolOutput } from "../../src/index";
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/client";

/** The largest image attached to a result (Anthropic's per-image limit, as for Read). */
export const MCP_IMAGE_LIMIT_BYTES = 5 * 1024 * 1024;

/** Decoded size of base64 data, for descriptions. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/** `1234` → `1.2 KB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** One content block as text. */
export function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}: returned by the tool, not shown here]`;
    case "resource": {
      const { resource } = block;
      const kind = resource.mimeType ? ` (${resource.mimeType})` : "";
      if ("text" in resource && typeof resource.text === "string")
        return `[resource ${resource.uri}${kind}]\n${resource.text}`;
      const size =
        "blob" in resource && typeof resource.blob === "string"
          ? `, ${formatBytes(base64Bytes(resource.blob))} of binary data`
          : "";
      return `[resource ${resource.uri}${kind}${size}: not shown here]`;
    }
    case "resource_link": {
      const kind = block.mimeType ? ` (${block.mimeType})` : "";
      const about = block.description ? `: ${block.description}` : "";
      return `[resource link ${block.name} <${block.uri}>${kind}${about}]`;
    }
    default:
      return `[${(block as { type: string }).type} content: not shown here]`;
  }
}

/** Convert a `tools/call` result; `isError` results are marked as errors. With `seesImages`, image blocks within the limit are attached as parts. */
export function toToolOutput(result: CallToolResult, server: string, tool: string, seesImages = false): ToolOutput {
  const parts: string[] = [];
  const attached: NonNullable<ToolOutput["parts"]> = [];
  for (const block of result.content ?? []) {
    const bytes = block.type === "image" && typeof block.data === "string" ? base64Bytes(block.data) : -1;
    if (
      seesImages &&
      bytes >= 0 &&
      bytes <= MCP_IMAGE_LIMIT_BYTES &&
      /^image\//.test(String((block as { mimeType?: unknown }).mimeType))
    ) {
      const { data, mimeType } = block as { data: string; mimeType: string };
      parts.push(`[image ${mimeType}, ${formatBytes(bytes)}: attached to this result]`);
      attached.push({ type: "file", mediaType: mimeType, data: { type: "data", data } });
    } else parts.push(describeBlock(block));
  }
  // The spec asks servers to mirror structured content as text; not all do.
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  const isError = result.isError === true;
  const content =
    parts.join("\n") || (isError ? `${tool} on MCP server "${server}" failed without saying why` : "(no content)");
  const metadata: Record<string, unknown> = { mcpServer: server, mcpTool: tool };
  if (result.structuredContent !== undefined) metadata.structuredContent = result.structuredContent;
  return { content, isError, metadata, ...(attached.length ? { parts: attached } : {}) };
}
