import { generateScript } from './script.js';
const s = generateScript(0x6b65656c, 62);
const replies = s.turns.flatMap((t) => t.replies);
console.log('turns', s.turns.length, 'calls', s.calls, 'replies', replies.length);
console.log('chars of replies', replies.reduce((n, r) => n + r.text.length + (r.call ? JSON.stringify(r.call.args).length + 40 : 0), 0));
console.log('files', Object.keys(s.files).length, Object.values(s.files).map((f) => f.split('\n').length).join(','));
