/**
 * YAML syntax errors as a person can act on them: the line and column where the mistake is, the line itself and a
 * caret under the spot, and the parser's sentence without its own position suffix.
 *
 * The parser notices some mistakes only later than where they are: an unclosed quote or bracket at the end of the
 * file (or on the blank line after), an item indented one space too few on the next key. For those the report moves
 * back to the line a person has to fix: the one that opened the quote or bracket, or the last line with text.
 */
import type { YAMLError } from 'yaml';
import type { ConfigProblem } from '../../lib/schema';

const OPENERS: Record<string, string> = { "'": "'", '"': '"', '}': '{', ']': '[' };

/** The line (0-based) that opened the unclosed `open` character, searching back from `from`; -1 when none. */
function opener(lines: readonly string[], from: number, open: string): number {
  for (let i = Math.min(from, lines.length - 1); i >= 0; i--) if (lines[i]!.includes(open)) return i;
  return -1;
}

function lastText(lines: readonly string[], from: number): number {
  for (let i = Math.min(from, lines.length - 1); i >= 0; i--) if (lines[i]!.trim() !== '') return i;
  return 0;
}

function locate(err: YAMLError, lines: readonly string[]): { line: number; col: number } {
  const at = err.linePos?.[0];
  let line = (at?.line ?? 1) - 1;
  let col = (at?.col ?? 1) - 1;
  const closing = /closing (\S)quote|end with a ([}\]])/.exec(err.message);
  if (closing) {
    const open = OPENERS[closing[1] ?? closing[2]!]!;
    const found = opener(lines, line === lines.length ? line - 1 : line, open);
    if (found >= 0) return { line: found, col: lines[found]!.lastIndexOf(open) };
  }
  if (line >= lines.length || lines[line]!.trim() === '') {
    line = lastText(lines, line - 1);
    col = lines[line]!.length;
  }
  return { line, col };
}

/** One problem per syntax error: path `line L, column C`, the sentence, then the line and a caret under the spot. */
export function yamlProblems(text: string, errors: readonly YAMLError[]): ConfigProblem[] {
  const lines = text.split(/\r?\n/);
  return errors.map((err) => {
    const { line, col } = locate(err, lines);
    const sentence = (err.message.split('\n')[0] ?? err.message).replace(/ at line \d+, column \d+:?$/, '');
    const source = lines[line] ?? '';
    const shown = source.replace(/\t/g, ' ');
    return { path: `line ${line + 1}, column ${col + 1}`, problem: `${sentence}\n      ${shown}\n      ${' '.repeat(Math.min(col, shown.length))}^` };
  });
}
