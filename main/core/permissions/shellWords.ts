/**
 * One parse of a shell command line, as bash would read it, for the judge and the gate: every
 * simple command bash may run (those inside `$(…)`, backticks, `<(…)`, subshells, groups and
 * loops included), each word with its quotes removed and marked literal or not, and each
 * redirection with its target. Two verdicts come with it:
 * - `complex`: the judge cannot follow the line (an expansion, a glob, a redirection to a file, a
 *   compound command…). Such a line is never judged read-only.
 * - `opaque`: not even the programs it runs can be read from it (a here-document, `case`, a
 *   function, unbalanced quotes…): the parser stopped there, and `commands` may miss some.
 * A non-literal word in a command's first place (`$x`, `${x}m`, `r{m,}`, `/bin/r?`) is kept, so
 * the gate can see that the program is not known.
 */

export interface Word {
  /** The word as bash passes it (quotes removed) when literal; otherwise with expansions left as written. */
  text: string;
  /** Bash passes `text` as it is: no expansion, substitution, brace or `~user`, and no glob. */
  literal: boolean;
  /** An unquoted glob character: bash may replace the word with file names. */
  glob: boolean;
}

export interface Redirect {
  /** `>`, `>>`, `>|`, `>&`, `&>`, `&>>`, `<`, `<>`, `<&`, `<<<`. */
  op: string;
  target: Word;
}

export interface SimpleCommand {
  /** `NAME=value` words before the program. */
  assigns: Word[];
  /** The program and its arguments. */
  words: Word[];
  redirects: Redirect[];
}

export interface ParsedLine {
  line: string;
  commands: SimpleCommand[];
  /** Why the judge cannot follow the line; undefined when it can. */
  complex?: string;
  /** Why the programs the line runs cannot all be read from it; undefined when they can. */
  opaque?: string;
}

/** Parses a command line once; the judge (command.ts) and the gate (gate.ts) read this. */
export function parseLine(line: string): ParsedLine {
  const p = new Parser(line);
  try {
    p.list(undefined);
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
  }
  const complex = p.opaque ?? p.complex ?? (p.commands.length === 0 ? 'an empty command' : undefined);
  return { line, commands: p.commands, complex, opaque: p.opaque };
}

/**
 * The simple commands of a line the judge can follow, as lists of words (quotes removed), or
 * undefined where it cannot (see `complex`).
 */
export function splitCommands(line: string | ParsedLine): string[][] | undefined {
  const parsed = typeof line === 'string' ? parseLine(line) : line;
  return parsed.complex ? undefined : parsed.commands.map(texts);
}

export const texts = (c: SimpleCommand): string[] => c.words.map((w) => w.text);

/** Thrown to stop parsing once the line is opaque: nothing after that point can be trusted. */
class Stop extends Error {}

/** Words bash reads as syntax in a command's first place, skipped there: the next word is the program. */
const PREFIX_WORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'esac']);
/** Compound commands whose words up to the next separator are data, not a program. */
const DATA_WORDS = new Set(['for', 'select', '[[', ']]', 'in']);
/** Compound commands the parser does not follow. */
const OPAQUE_WORDS = new Set(['case', 'function', 'coproc', '((']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const BREAK = ' \t\n;&|<>()';

class Parser {
  i = 0;
  complex?: string;
  opaque?: string;
  readonly commands: SimpleCommand[] = [];

  constructor(private readonly s: string) {}

  private hard(why: string): void {
    this.complex ??= why;
  }

  private stop(why: string): never {
    this.opaque ??= why;
    throw new Stop(why);
  }

  /** A list of commands up to `end` (consumed) or the end of the line. */
  list(end: ')' | undefined): void {
    const s = this.s;
    let cmd: SimpleCommand & { data?: boolean } = { assigns: [], words: [], redirects: [] };
    let commandsSeen = 0;
    const finish = (final: boolean) => {
      const empty = cmd.words.length === 0 && cmd.assigns.length === 0 && cmd.redirects.length === 0 && !cmd.data;
      if (!empty && !cmd.data) this.commands.push(cmd);
      if (empty && !(final && commandsSeen > 0)) this.hard('an empty command');
      if (!empty) commandsSeen++;
      cmd = { assigns: [], words: [], redirects: [] };
    };
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === ' ' || c === '\t') {
        this.i++;
      } else if (c === ')') {
        if (end !== ')') this.stop('an unmatched ")"');
        this.i++;
        finish(true);
        return;
      } else if (c === '(') {
        if (cmd.words.length > 0 || cmd.assigns.length > 0) this.stop('a "(" after a word (a function or an array)');
        if (s[this.i + 1] === '(') this.stop('an arithmetic command');
        this.hard('a subshell');
        this.i++;
        this.list(')');
      } else if (c === '#') {
        this.hard('a comment');
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
      } else if (c === '\n' || c === ';' || c === '|' || (c === '&' && s[this.i + 1] !== '>')) {
        if (c === ';' && s[this.i + 1] === ';') this.stop('a case clause');
        if (c === '&' && s[this.i + 1] !== '&') this.hard('a command in the background');
        this.i += (c === '&' || c === '|') && (s[this.i + 1] === c || (c === '|' && s[this.i + 1] === '&')) ? 2 : 1;
        finish(false);
      } else if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
        cmd.words.push(this.processSubstitution());
      } else if (c === '<' || c === '>' || c === '&') {
        cmd.redirects.push(this.redirect(undefined));
      } else {
        const start = this.i;
        const word = this.word();
        const raw = s.slice(start, this.i);
        if ((s[this.i] === '<' || s[this.i] === '>') && /^\d+$/.test(raw) && s[this.i + 1] !== '(') {
          cmd.redirects.push(this.redirect(raw));
        } else if (cmd.words.length === 0 && !cmd.data) {
          this.head(cmd, word, raw);
        } else {
          cmd.words.push(word);
        }
      }
    }
    if (end === ')') this.stop('an unclosed "("');
    finish(true);
  }

  /** A word in a command's first place: an assignment, a reserved word, or the program. */
  private head(cmd: SimpleCommand & { data?: boolean }, word: Word, raw: string): void {
    if (ASSIGNMENT.test(raw)) {
      this.hard('an assignment');
      cmd.assigns.push(word);
    } else if (cmd.assigns.length === 0 && word.literal && raw === word.text && OPAQUE_WORDS.has(raw)) {
      this.stop(`"${raw}", which the judge does not follow`);
    } else if (cmd.assigns.length === 0 && raw === word.text && PREFIX_WORDS.has(raw)) {
      this.hard('a compound command');
    } else if (cmd.assigns.length === 0 && raw === word.text && DATA_WORDS.has(raw)) {
      this.hard('a compound command');
      if (raw === 'for' && /^[ \t]*\(\(/.test(this.s.slice(this.i))) this.stop('an arithmetic for loop');
      cmd.data = true;
    } else {
      cmd.words.push(word);
    }
  }

  /** `<(…)` or `>(…)`: its commands run; the word is a file name bash makes up. */
  private processSubstitution(): Word {
    this.hard('a process substitution');
    const start = this.i;
    this.i += 2;
    this.list(')');
    return { text: this.s.slice(start, this.i), literal: false, glob: false };
  }

  /** A redirection at `this.i` (after its descriptor number, if any) and its target word. */
  private redirect(fd: string | undefined): Redirect {
    const s = this.s;
    const op = /^(<<<|<<-?|<>|<&|&>>|&>|>>|>\||>&|<|>)/.exec(s.slice(this.i))![0];
    if (op.startsWith('<<') && op !== '<<<') this.stop('a here-document');
    this.i += op.length;
    while (s[this.i] === ' ' || s[this.i] === '\t') this.i++;
    if (this.i >= s.length || BREAK.includes(s[this.i])) this.stop(`"${op}" with nothing to redirect to`);
    const target = this.word();
    const devNull = target.literal && target.text === '/dev/null' && (op === '>' || op === '>>');
    const dup = target.literal && /^(\d+|-)$/.test(target.text) && (op === '>&' || op === '<&');
    if (!devNull && !(dup && op === '>&')) this.hard(`a redirection (${fd ?? ''}${op} ${target.text})`);
    return { op, target };
  }

  /** One word at `this.i`: quotes removed; expansions leave it non-literal (their commands are parsed). */
  private word(): Word {
    const s = this.s;
    const start = this.i;
    let text = '';
    let literal = true;
    let glob = false;
    let brace = false;
    while (this.i < s.length && !BREAK.includes(s[this.i])) {
      const c = s[this.i];
      if (c === "'") {
        const close = s.indexOf("'", this.i + 1);
        if (close < 0) this.stop('unbalanced quotes');
        text += s.slice(this.i + 1, close);
        this.i = close + 1;
      } else if (c === '"') {
        const inner = this.doubleQuoted();
        text += inner.text;
        literal &&= inner.literal;
      } else if (c === '\\') {
        if (this.i + 1 >= s.length) this.stop('a backslash at the end');
        if (s[this.i + 1] === '\n') this.hard('a line continuation');
        else text += s[this.i + 1];
        this.i += 2;
      } else if (c === '$' || c === '`') {
        const from = this.i;
        if (this.dollarOrBacktick()) literal = false;
        text += s.slice(from, this.i);
      } else {
        if (c === '*' || c === '?' || (c === '[' && /^\[[^ \t\n;&|<>()]*\]/.test(s.slice(this.i)))) {
          glob = true;
          this.hard('a glob');
        } else if (c === '[') {
          this.hard('a "["');
        } else if (c === '{' || c === '}') {
          this.hard('a brace');
          brace = true;
        } else if (c === '~' && this.i === start && !/^~(\/|$|[ \t\n;&|<>()])/.test(s.slice(this.i))) {
          this.hard('"~user"');
          literal = false;
        }
        text += c;
        this.i++;
      }
    }
    // `a{b,c}` and `{1..3}` expand; a lone `{` or `{}` (find's) does not.
    if (brace && /[,]|\.\./.test(s.slice(start, this.i)) && text !== '{' && text !== '}') literal = false;
    return { text, literal: literal && !glob, glob };
  }

  /** A double-quoted part at `this.i`: its text, and whether it held an expansion. */
  private doubleQuoted(): { text: string; literal: boolean } {
    const s = this.s;
    let text = '';
    let literal = true;
    for (this.i++; this.i < s.length && s[this.i] !== '"';) {
      const c = s[this.i];
      if (c === '$' || c === '`') {
        const from = this.i;
        if (this.dollarOrBacktick()) literal = false;
        text += s.slice(from, this.i);
        continue;
      }
      // Inside double quotes a backslash escapes only these; before anything else it stays.
      if (c === '\\' && this.i + 1 < s.length && '"\\$`\n'.includes(s[this.i + 1])) {
        if (s[this.i + 1] === '\n') this.hard('a line continuation');
        else text += s[this.i + 1];
        this.i += 2;
        continue;
      }
      text += c;
      this.i++;
    }
    if (this.i >= s.length) this.stop('unbalanced quotes');
    this.i++;
    return { text, literal };
  }

  /**
   * `$…` or a backtick at `this.i`, skipped; the commands of a substitution are parsed as
   * commands of this line. Returns whether it expands (a lone `$` does not).
   */
  private dollarOrBacktick(): boolean {
    const s = this.s;
    const rest = s.slice(this.i);
    if (rest.startsWith('`')) {
      this.hard('a command substitution');
      const close = /^`((?:[^`\\]|\\.)*)`/s.exec(rest);
      if (!close) this.stop('an unclosed backtick');
      const inner = parseLine(close[1].replace(/\\([`$\\])/g, '$1'));
      this.commands.push(...inner.commands);
      if (inner.opaque) this.stop(inner.opaque);
      this.i += close[0].length;
      return true;
    }
    if (rest.startsWith('$((')) {
      this.hard('an arithmetic expansion');
      const close = rest.indexOf('))');
      if (close < 0 || /\$\(|`/.test(rest.slice(3, close))) this.stop('an arithmetic expansion the judge does not follow');
      this.i += close + 2;
      return true;
    }
    if (rest.startsWith('$(')) {
      this.hard('a command substitution');
      this.i += 2;
      this.list(')');
      return true;
    }
    if (rest.startsWith('${')) {
      this.hard('an expansion');
      const close = rest.indexOf('}');
      if (close < 0 || /[$`'"{(]/.test(rest.slice(2, close))) this.stop('an expansion the judge does not follow');
      this.i += close + 1;
      return true;
    }
    if (rest.startsWith("$'")) {
      this.hard('an ANSI-C quoted word');
      const close = /^\$'((?:[^'\\]|\\.)*)'/s.exec(rest);
      if (!close) this.stop('unbalanced quotes');
      this.i += close[0].length;
      return true;
    }
    if (rest.startsWith('$"')) {
      this.hard('a localized string');
      this.i++;
      this.doubleQuoted();
      return true;
    }
    const name = /^\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])/.exec(rest);
    this.hard('an expansion');
    this.i += name ? name[0].length : 1;
    return name !== null;
  }
}
