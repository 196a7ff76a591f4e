/** The terminal UI's styles: the runner's (runner/style.ts) plus the few the UI adds, off together. */
import { styleText } from "node:util";
import { createStyle, type Style } from "../style";

/** Styles of the terminal UI; each is the identity when colours are off. */
export interface Theme extends Style {
  italic(text: string): string;
  heading(text: string): string;
  code(text: string): string;
  added(text: string): string;
  removed(text: string): string;
  warn(text: string): string;
}

/** The UI's theme, coloured when `enabled`. */
export function createTheme(enabled: boolean): Theme {
  const paint = (format: Parameters<typeof styleText>[0]) => (text: string) =>
    enabled ? styleText(format, text, { validateStream: false }) : text;
  return {
    ...createStyle(enabled),
    italic: paint("italic"),
    heading: paint(["bold", "underline"]),
    code: paint("cyan"),
    added: paint("green"),
    removed: paint("red"),
    warn: paint("yellow"),
  };
}
