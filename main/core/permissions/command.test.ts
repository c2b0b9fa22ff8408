import { describe, expect, it } from 'vitest';
import { classifyCommand, splitCommands } from './command.js';

describe('judging a command line', () => {
  it.each([
    ['ls -la src', 'read-only'],
    ['git status && git diff HEAD~1', 'read-only'],
    ['grep -rn "TODO" src | sort | uniq -c', 'read-only'],
    ['cat a.txt 2>/dev/null', 'read-only'],
    ['find . -name "*.ts"', 'read-only'],
    ['find . -name "*.ts" -delete', 'effects'],
    ['npm test', 'effects'],
    ['rm -rf build', 'effects'],
    ['git commit -m "x"', 'effects'],
    ['curl https://example.com', 'network'],
    ['git push origin main', 'network'],
    ['npm install left-pad', 'network'],
    ['ls; wget http://x', 'network'],
    ['echo $(rm -rf /)', 'complex'],
    ['echo `id`', 'complex'],
    ['cat a > b', 'complex'],
    ['sleep 100 &', 'complex'],
    ['FOO=1 ls', 'complex'],
    ['(cd /; ls)', 'complex'],
    ['echo "unbalanced', 'complex'],
    ['cat <<EOF', 'complex'],
    ['', 'complex'],
  ])('%s → %s', (command, expected) => {
    expect(classifyCommand(command)).toBe(expected);
  });

  it('splits on ; && || | and removes quotes', () => {
    expect(splitCommands(`ls 'a b' && echo "c d"|wc -l`)).toEqual([['ls', 'a b'], ['echo', 'c d'], ['wc', '-l']]);
  });
});
