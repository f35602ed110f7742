import type { LoggerService } from '@nestjs/common';
import { Signal } from './until';

/** A Nest logger that keeps `[level, context, message]` lines and pokes `signal` on each. */
export class CaptureLogger implements LoggerService {
  readonly lines: Array<[level: string, context: string, message: string]> = [];
  readonly signal = new Signal();

  log(message: unknown, context?: string): void {
    this.keep('log', message, context);
  }

  warn(message: unknown, context?: string): void {
    this.keep('warn', message, context);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.keep('error', message, rest.at(-1) as string | undefined);
  }

  /** The messages of one context. */
  of(context: string): string[] {
    return this.lines.filter(([, c]) => c === context).map(([, , m]) => m);
  }

  private keep(level: string, message: unknown, context = ''): void {
    this.lines.push([level, context, String(message)]);
    this.signal.notify();
  }
}
