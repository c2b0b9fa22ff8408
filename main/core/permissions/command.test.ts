import { describe, expect, it } from 'vitest';
import { classifyCommand, pathWords, programRuns, splitCommands } from './command.js';
import { sedScriptReadOnly } from './programs.js';

describe('judging a command line', () => {
  it.each([
    ['ls -la src', 'read-only'],
    ['git status && git diff HEAD~1', 'read-only'],
    ['grep -rn "TODO" src | sort | uniq -c', 'read-only'],
    ['cat a.txt 2>/dev/null', 'read-only'],
    ['cat a.txt >/dev/null 2>&1', 'read-only'],
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

  it('splits on ; && || | and removes quotes as bash does', () => {
    expect(splitCommands(`ls 'a b' && echo "c d"|wc -l`)).toEqual([['ls', 'a b'], ['echo', 'c d'], ['wc', '-l']]);
    // In double quotes a backslash escapes only " \ $ ` and newline; before anything else it stays.
    expect(splitCommands(String.raw`echo "a\b" "c\"d" \rm`)).toEqual([['echo', String.raw`a\b`, 'c"d', 'rm']]);
  });
});

/** The attacks of issue 13 that the old judge let run without approval, each with what it is now. */
describe('the judge cannot be talked past', () => {
  it.each([
    // git options that run a program or write a file
    [`git grep --open-files-in-pager='sh -c "touch pwned"' x`, 'effects'],
    [`git grep --open-files='sh' x`, 'effects'],
    [`git grep -O'touch pwned' x`, 'effects'],
    [`git grep -nO'touch pwned' x`, 'effects'],
    [`git grep --no-index -O'touch pwned' x`, 'effects'],
    ['git diff --output=/tmp/outside.txt', 'effects'],
    ['git diff --out=/tmp/outside.txt', 'effects'],
    ['git log --output=/tmp/outside.txt', 'effects'],
    ['git log -p --ext-diff', 'effects'],
    ['git -c core.pager=sh log', 'effects'],
    ['git branch -D main', 'effects'],
    ['git branch -f main HEAD~1', 'effects'],
    ['git branch evil', 'effects'],
    ['git tag v9', 'effects'],
    ['git branch', 'read-only'],
    ['git log --oneline -5', 'read-only'],
    // sort and uniq writing files, sort running its compressor
    ['sort -S 64K -T . --compress-program=sh file', 'effects'],
    ['sort --compress=sh file', 'effects'],
    ['sort -o /tmp/outside.txt a.txt', 'effects'],
    ['sort -uo/tmp/outside.txt a.txt', 'effects'],
    ['sort --output=/tmp/outside.txt a.txt', 'effects'],
    ['sort -rn a.txt', 'read-only'],
    ['uniq a.txt /tmp/outside.txt', 'effects'],
    ['uniq -c a.txt', 'read-only'],
    ['uniq -f 1 a.txt', 'read-only'],
    // workspace executables named like read-only programs, and programs given by path
    ['./ls', 'effects'],
    ['bin/echo hi', 'effects'],
    ['/bin/ls', 'effects'],
    // redirection: only /dev/null exactly
    ['ls >/dev/null_x', 'complex'],
    ['ls > /dev/nullx', 'complex'],
    ['ls >/dev/null', 'read-only'],
    // a glob can become an option (a file named -delete)
    ['find dir -delet?', 'complex'],
    ['ls *', 'complex'],
    ['cat [a]', 'complex'],
    ['cat .gi?/hooks/pre-commit', 'complex'],
    ['ls ~root', 'complex'],
    ['ls # rm', 'complex'],
    // programs that print secrets or run others
    ['env', 'effects'],
    ['env rm -rf x', 'effects'],
    ['less README.md', 'effects'],
    // reserved words
    ['if true; then rm x; fi', 'complex'],
    ['! ls', 'complex'],
    // other refused options
    ['find . -fprint /tmp/x', 'effects'],
    ['find . -fls /tmp/x', 'effects'],
    ['rg --pre sh x', 'effects'],
    ['rg --pre=sh x', 'effects'],
    ['tree -o /tmp/x', 'effects'],
    ['tree -R', 'effects'],
    ['file -C -m magic', 'effects'],
    ['date -s 2020-01-01', 'effects'],
    ['date 0101000020', 'effects'],
    ['date +%Y', 'read-only'],
    ['date -d yesterday +%F', 'read-only'],
    ['sed -i s/a/b/ f', 'effects'],
    ['sed --in-place s/a/b/ f', 'effects'],
    ['sed -f script.sed f', 'effects'],
    [`sed 's/a/b/w /tmp/x' f`, 'effects'],
    [`sed -n '1w /tmp/x' f`, 'effects'],
    [`sed '1e id' f`, 'effects'],
    [`sed 's/a/id/e' f`, 'effects'],
    [`sed --expr='w /tmp/x' f`, 'effects'],
    [`sed -n '1,5p' f`, 'read-only'],
    [`sed -e 's/a/b/g' -e '/x/d' f`, 'read-only'],
  ])('%s → %s', (command, expected) => {
    expect(classifyCommand(command)).toBe(expected);
  });

  it('keeps a program name that is not its own: a key of every object is no program', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(classifyCommand(`${name} x`)).toBe('effects');
  });
});

describe('a sed script', () => {
  it.each([
    ['p', true], ['1,5p', true], ['/a/,/b/d', true], ['s/a/b/g', true], ['s|a|b|2p', true], ['$!N;P;D', true],
    ['y/abc/xyz/', true], ['/x/{s/a/b/;p}', true], ['1i\\\nhello', true], ['# comment\np', true], [':a;N;ba', true],
    ['w out', false], ['1W out', false], ['e id', false], ['s/a/b/w out', false], ['s/a/b/e', false], ['r /etc/x', false],
    ['R x', false], ['s/[/]/x/w out', false], ['s/a/b', false], ['v', false], ['1 !w out', false], ['s/a/b/;w x', false],
  ])('%j → %s', (script, readOnly) => {
    expect(sedScriptReadOnly(script)).toBe(readOnly);
  });
});

describe('what rules see', () => {
  it('finds every program a line may run', () => {
    const programs = (line: string) => programRuns(line).runs.map((run) => run[0]);
    expect(programs('ls; /bin/rm -rf x')).toEqual(['ls', '/bin/rm']);
    expect(programs(String.raw`\rm x`)).toEqual(['rm']);
    expect(programs('sudo -u me rm x')).toEqual(['sudo', '-u', 'me', 'rm', 'x']);
    expect(programs(`bash -c 'rm -rf x'`)).toContain('rm');
    expect(programs('find . -exec rm {} ;')).toContain('rm');
    expect(programs('echo $(rm x)')).toContain('rm');
  });

  it('names the words that may be files', () => {
    expect(pathWords('grep -f/etc/x --file=~/y -n a b').map((w) => w.text)).toEqual(['/etc/x', '~/y', 'a', 'b']);
  });
});
