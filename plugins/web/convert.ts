/**
 * A fetched body as text the model can read: HTML becomes Markdown (node-html-markdown, with scripts,
 * styles and other non-content elements dropped), a PDF becomes its text (unpdf), text and JSON
 * stay as they are (decoded by their charset). Anything else (images, archives, binaries) is
 * refused by name. Both libraries load on first use, never at `import "ubiquity"`.
 */
import { createRequire } from "node:module";
import { lazyRequire } from "../_kits/lazy/index";
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

/**
 * Convert `body` (of type `contentType`) to text. HTML and PDF are converted in a worker thread
 * that is stopped after `timeoutMs` or when `signal` aborts: both converters are synchronous
 * where it counts and far from linear on hostile input (node-html-markdown took 2.5 s for 10 kB
 * of nested `<div>`s and never finished 40 kB; the title's pattern is quadratic in `<title`s), so
 * a page converted on the host's thread froze its event loop — every session, timer and abort
 * in the process — for as long as the page wanted (red team x, X2). Text stays here: decoding it is linear.
 */
export async function pageText(
  body: Buffer,
  contentType: string,
  url: string,
  limits: { timeoutMs: number; signal?: AbortSignal } = { timeoutMs: 30_000 },
): Promise<PageText> {
  const type = contentType.split(";")[0]!.trim();
  if (type === "text/html" || type === "application/xhtml+xml" || (type === "" && looksLikeHtml(body)))
    return inWorker({ kind: "html", html: decode(body, contentType), ignore: IGNORED }, url, limits);
  if (type === "application/pdf" || (type === "" && body.subarray(0, 5).toString("latin1") === "%PDF-"))
    return inWorker({ kind: "pdf", body }, url, limits);
  if (TEXT_TYPES.test(type) || (type === "" && !body.subarray(0, 8000).includes(0)))
    return { format: "text", text: decode(body, contentType) };
  throw new WebFetchError(`${url} is ${type || "binary content"}, not a page: WebFetch reads HTML, text, JSON and PDF`);
}

// Elements that are not content: never part of the page's text.
const IGNORED = [
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
];

/** What the worker is given: the HTML (decoded here) or the PDF's bytes, and where its converter is. */
type Job = { kind: "html"; html: string; ignore: string[] } | { kind: "pdf"; body: Buffer };

// The worker: node-html-markdown or unpdf (their CommonJS builds, by path), loaded in the worker
// from where this module resolves them; the answer is a PageText or an error's message.
const CONVERT_WORKER = `const { parentPort, workerData: job } = require("node:worker_threads");
const entities = (text) => text.replace(/&(#x[0-9a-f]+|#\\d+|[a-z]+);/gi, (whole, name) => {
  if (name[0] === "#") {
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  }
  return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " })[name.toLowerCase()] ?? whole;
});
async function convert() {
  if (job.kind === "html") {
    const { NodeHtmlMarkdown } = require(job.module);
    const raw = /<title[^>]*>([\\s\\S]*?)<\\/title>/i.exec(job.html)?.[1];
    const title = raw ? entities(raw).replace(/\\s+/g, " ").trim() : undefined;
    const converter = new NodeHtmlMarkdown({ bulletMarker: "-", codeFence: "\\u0060\\u0060\\u0060", maxConsecutiveNewlines: 2, ignore: job.ignore });
    const text = converter.translate(job.html).replace(/\\n{3,}/g, "\\n\\n").trim();
    return { format: "markdown", ...(title ? { title } : {}), text };
  }
  const { extractText, getDocumentProxy } = require(job.module);
  const pdf = await getDocumentProxy(new Uint8Array(job.body));
  const { totalPages, text } = await extractText(pdf, { mergePages: false });
  const pages = text.map((t, i) => "--- page " + (i + 1) + " of " + totalPages + " ---\\n" + t.trim());
  return { format: "pdf", text: pages.join("\\n\\n") };
}
convert().then((page) => parentPort.postMessage({ page }), (error) => parentPort.postMessage({ error: String(error && error.message || error) }));`;

const workerThreads = lazyRequire<typeof import("node:worker_threads")>("node:worker_threads");

/** Where the worker loads its converter from: resolved from this module, so the package's own copy. */
function converterModule(kind: Job["kind"]): string {
  return createRequire(import.meta.url).resolve(kind === "html" ? "node-html-markdown" : "unpdf");
}

/** `job` converted in a worker thread, stopped at `limits`. */
function inWorker(job: Job, url: string, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<PageText> {
  const what = job.kind === "html" ? "HTML" : "PDF";
  return new Promise((resolve, reject) => {
    if (limits.signal?.aborted) return reject(new WebFetchError(`converting ${url} was interrupted`));
    const worker = new (workerThreads().Worker)(CONVERT_WORKER, {
      eval: true,
      workerData: { ...job, module: converterModule(job.kind) },
    });
    const stop = (outcome: () => void) => {
      clearTimeout(timer);
      limits.signal?.removeEventListener("abort", aborted);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(
      () =>
        stop(() =>
          reject(
            new WebFetchError(
              `${url}'s ${what} could not be converted to text within ${limits.timeoutMs} ms (webFetch.timeoutMs), so it was given up: the page is too large or too deeply nested`,
            ),
          ),
        ),
      limits.timeoutMs,
    );
    const aborted = () => stop(() => reject(new WebFetchError(`converting ${url} was interrupted`)));
    limits.signal?.addEventListener("abort", aborted, { once: true });
    worker.once("message", (answer: { page?: PageText; error?: string }) =>
      stop(() =>
        answer.page
          ? resolve(answer.page)
          : reject(
              new WebFetchError(
                job.kind === "pdf"
                  ? `${url} is a PDF whose text could not be extracted (${answer.error}); it may be scanned images or damaged`
                  : `${url}'s HTML could not be converted to text (${answer.error})`,
              ),
            ),
      ),
    );
    worker.once("error", (error) =>
      stop(() => reject(new WebFetchError(`${url}'s ${what} could not be converted to text (${error.message})`))),
    );
  });
}
