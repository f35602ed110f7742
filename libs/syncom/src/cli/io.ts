/** A stream the CLI writes to: process.stdout/stderr, or a test's collector. */
export interface CliStream {
  write(text: string): unknown;
  /** Set on a terminal: verify then draws its progress bar in place. */
  isTTY?: boolean;
  /** Present on node streams: lets a long export wait when the pipe is full. */
  once?(event: 'drain', listener: () => void): unknown;
}

/** Where runCli writes. */
export interface CliIo {
  stdout: CliStream;
  stderr: CliStream;
}

/** Exit codes: documented in the usage text and the README. */
export const EXIT_OK = 0;
/** verify found faults, or a command met a damaged storage. */
export const EXIT_FAULTS = 1;
/** A usage error, or a path that is not a storage. */
export const EXIT_USAGE = 2;

/** An error that ends the command with a message on stderr and an exit code. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT_USAGE) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Write text and, when the stream says its buffer is full, wait for it to
 * drain: an export of a large storage into a slow pipe must not buffer it all.
 */
export async function writeOut(stream: CliStream, text: string): Promise<void> {
  if (stream.write(text) === false && stream.once) {
    await new Promise<void>((resolve) => stream.once?.('drain', resolve));
  }
}

/** A control character a terminal acts on (C0 but tab, newline and carriage return, which verify's progress bar draws with; DEL; C1). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** A character as its `\u00XX` escape. */
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A line break inside one line's text: a peer's id or a file's holding one would draw a line of its own. */
const BREAK = /[\r\n\u2028\u2029]/g;

/**
 * Lines of the text forms (info, log, verify) as the terminal gets them:
 * within each, a line break is written as a `\u00XX` escape, so an id a peer
 * chose (`x\n... purge payroll`) cannot forge a line of the report.
 */
export function textLines(lines: readonly string[]): string {
  return lines.map((l) => l.replace(BREAK, escaped)).join('\n') + '\n';
}

/**
 * `stream` with every control character a terminal acts on written as a
 * `\u00XX` escape: record ids, field names and urls are a peer's or a file's
 * text, and an id holding ESC[2J cleared an operator's screen under
 * `syncom log` and drew lines of its own. Valid JSON stays valid (JSON
 * output holds such characters only inside strings, where the escape means
 * the same).
 */
export function printable(stream: CliStream): CliStream {
  const write = (text: string) => stream.write(text.replace(CONTROL, escaped));
  const once = stream.once?.bind(stream);
  return { write, isTTY: stream.isTTY, ...(once && { once }) };
}

