import { describe, expect, it } from 'vitest';
import { DISGUISED } from '../../test/disguised.js';
import { describeApproval } from './commands/describeApproval.js';

/** Any control character but a line feed and a tab, or a bidi override: what must never reach the terminal. */
const RAW = /(?![\n\t])[\p{Cc}\u202E]/u;

describe('the terminal approval', () => {
  it.each(DISGUISED)('%j is shown as %s', (raw, shown) => {
    expect(describeApproval({ sessionId: 1, tool: 'bash', args: { command: raw }, paths: [], command: raw, preview: raw, reason: 'ask mode asks before commands' }))
      .toBe(`── bash needs your approval (ask mode asks before commands)\n$ ${shown}`);
  });

  it('makes the paths, the reason and the diff of a file change visible in the terminal too', () => {
    const shown = describeApproval({
      sessionId: 1, tool: 'write', args: {}, paths: ['/w/a\u202Etxt.sh'], preview: '+echo \x1b]0;title\x07', reason: 'ask mode asks before edits',
    });
    expect(shown).toBe('── write needs your approval (ask mode asks before edits)\n/w/a⟨U+202E⟩txt.sh\n+echo ⟨ESC⟩]0;title⟨BEL⟩');
    expect(shown).not.toMatch(RAW);
  });
});
