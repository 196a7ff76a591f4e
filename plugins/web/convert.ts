/**
 * A fetched body as text the model can read: HTML becomes Markdown (node-html-markdown, with scripts,
 * styles and other non-content elements dropped), a PDF becomes its text (unpdf), text and JSON
 * stay as they are (decoded by their charset). Anything else (images, archives, binaries) is
 * refused by name. Both libraries load on first use, never at `import "ubiquity"`.
 */
import { WebFetchError } from "./fetch-page";

/** A page as text. */
export interface PageText {
  /** `markdown` (from HTML), `pdf`, `text`. */
  format: "markdown" | "pdf" | "text";
  title?: string;
  text: string;
}

const TEXT_TYPES =
  /^(text\/|application\/(json|ld\+json|xml|javascript|x-javascript|ecmascript|x-ndjson|rss\+xml|atom\+xml|x-yaml|yaml|toml)|[a-z]+\/[a-z0-9.+-]*\+(json|xml))/;

function decode(body: Buffer, contentType: string): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1];
  try {
    return new TextDecoder(charset ?? "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

function looksLikeHtml(body: Buffer): boolean {
  const head = body.subarray(0, 1024).toString("utf8").trimStart().toLowerCase();
  return head.startsWith("<!doctype html") || head.startsWith("<html") || /<(head|body|title)[\s>]/.test(head);
}

/** Convert `body` (of type `contentType`) to text. */
export async function pageText(body: Buffer, contentType: string, url: string): Promise<PageText> {
  const type = contentType.split(";")[0]!.trim();
  if (type === "text/html" || type === "application/xhtml+xml" || (type === "" && looksLikeHtml(body)))
    return htmlToMarkdown(decode(body, contentType));
  if (type === "application/pdf" || (type === "" && body.subarray(0, 5).toString("latin1") === "%PDF-"))
    return pdfToText(body, url);
  if (TEXT_TYPES.test(type) || (type === "" && !body.subarray(0, 8000).includes(0)))
    return { format: "text", text: decode(body, contentType) };
  throw new WebFetchError(`${url} is ${type || "binary content"}, not a page: WebFetch reads HTML, text, JSON and PDF`);
}

type Converter = { translate(html: string): string };
let converter: Promise<Converter> | undefined;

/** node-html-markdown (1.5 MB installed, against turndown's 9 MB with its DOM), set up once. */
async function markdownConverter(): Promise<Converter> {
  converter ??= import("node-html-markdown").then((m) => {
    const { NodeHtmlMarkdown } = m as unknown as {
      NodeHtmlMarkdown: new (options: object, translators?: object) => Converter;
    };
    return new NodeHtmlMarkdown({
      bulletMarker: "-",
      codeFence: "```",
      maxConsecutiveNewlines: 2,
      // Elements that are not content: never part of the page's text.
      ignore: [
        "script",
        "style",
        "noscript",
        "template",
        "iframe",
        "object",
        "embed",
        "svg",
        "canvas",
        "form",
        "button",
        "select",
        "input",
        "head",
        "textarea",
      ],
    });
  });
  return converter;
}

/** HTML as Markdown, with the document's title. */
export async function htmlToMarkdown(html: string): Promise<PageText> {
  const rawTitle = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  const title = rawTitle ? decodeEntities(rawTitle).replace(/\s+/g, " ").trim() : undefined;
  const markdown = (await markdownConverter())
    .translate(html)
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { format: "markdown", ...(title ? { title } : {}), text: markdown };
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[name.toLowerCase()] ?? whole;
  });
}

/** A PDF's text, page by page. */
async function pdfToText(body: Buffer, url: string): Promise<PageText> {
  try {
    const { extractText, getDocumentProxy } = await import("unpdf");
    const pdf = await getDocumentProxy(new Uint8Array(body));
    const { totalPages, text } = await extractText(pdf, { mergePages: false });
    const pages = (text as string[]).map((t, i) => `--- page ${i + 1} of ${totalPages} ---\n${t.trim()}`);
    return { format: "pdf", text: pages.join("\n\n") };
  } catch (error) {
    throw new WebFetchError(
      `${url} is a PDF whose text could not be extracted (${(error as Error).message}); it may be scanned images or damaged`,
    );
  }
}
