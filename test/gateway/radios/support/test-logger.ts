/** A logger that keeps what radios log, so tests can assert a warning was given (and that no secret was). */
import type { RadioLogger } from '../../../../gateway/radios/radio';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: object;
  msg: string | undefined;
}

export class TestLogger implements RadioLogger {
  readonly lines: LogLine[] = [];

  debug(obj: object, msg?: string): void {
    this.lines.push({ level: 'debug', obj, msg });
  }

  info(obj: object, msg?: string): void {
    this.lines.push({ level: 'info', obj, msg });
  }

  warn(obj: object, msg?: string): void {
    this.lines.push({ level: 'warn', obj, msg });
  }

  error(obj: object, msg?: string): void {
    this.lines.push({ level: 'error', obj, msg });
  }

  find(level: LogLine['level'], msg: string): LogLine | undefined {
    return this.lines.find((l) => l.level === level && l.msg === msg);
  }
}
