/**
 * The words of a shell command line, as bash would split them, for the judge. The judge only
 * follows what it can be sure of: where bash would expand, substitute, redirect to a file or
 * glob, this returns undefined and the command is "complex" (it asks).
 */

/**
 * Splits a command line into simple commands joined by `;`, `&&`, `||`, `|` and newlines, with
 * quotes removed as bash removes them. Returns undefined where the line does more than the judge
 * can follow: expansions (`$`, backticks), subshells and groups, here-documents and input
 * redirection, background `&`, a redirection to anything but exactly `/dev/null` or another
 * descriptor, an unquoted glob character (`*`, `?`, `[`: bash would expand it into names, and a
 * file named `-delete` becomes an option), `~user`, a comment, unbalanced quotes, line
 * continuations.
 */
export function splitCommands(line: string): string[][] | undefined {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length === 0) return false;
    commands.push(words);
    words = [];
    return true;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) return undefined;
      word += line.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '$' || line[j] === '`') return undefined;
        // Inside double quotes a backslash escapes only these; before anything else it stays.
        if (line[j] === '\\' && j + 1 < line.length && '"\\\n'.includes(line[j + 1])) j++;
        text += line[j];
      }
      if (j >= line.length) return undefined;
      word += text;
      inWord = true;
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= line.length || line[i + 1] === '\n') return undefined;
      word += line[++i];
      inWord = true;
    } else if ('$`(){}<'.includes(c)) {
      return undefined;
    } else if (c === '>') {
      const m = /^>{1,2}[ \t]*(\/dev\/null|&\d+)(?=$|[ \t\n;&|])/.exec(line.slice(i));
      if (!m || (inWord && !/^\d+$/.test(word))) return undefined;
      word = '';
      inWord = false;
      i += m[0].length - 1;
    } else if (c === ';' || c === '|' || c === '&' || c === '\n') {
      if (c === '&' && line[i + 1] !== '&') return undefined;
      if (!endCommand()) return undefined;
      if ((c === '&' || c === '|') && line[i + 1] === c) i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '*' || c === '?' || c === '[') {
      return undefined;
    } else if (!inWord && (c === '#' || (c === '~' && !/^~(\/|$|[ \t\n;&|])/.test(line.slice(i))))) {
      return undefined;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (!endCommand() && commands.length === 0) return undefined;
  return commands;
}

/**
 * A rough split for a line the judge cannot follow: every run of characters between shell
 * punctuation, quotes dropped. Used only to look for a denied program where the line is complex
 * anyway (it asks); it may find more programs than bash would run, never fewer words.
 */
export function looseWords(line: string): string[] {
  return line.split(/[\s;&|()<>`$'"{}\\]+/).filter((w) => w !== '');
}
