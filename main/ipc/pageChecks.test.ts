import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isExternalLinkAllowed, ownPageCheck } from './pageChecks.js';

const html = path.resolve('/app/out/renderer/index.html');

describe('ownPageCheck', () => {
  it('accepts the built page only', () => {
    const own = ownPageCheck({ rendererHtml: html });
    const url = pathToFileURL(html).href;
    expect(own(url)).toBe(true);
    expect(own(`${url}#/session/3`)).toBe(true);
    expect(own(`${url}?x=1`)).toBe(true);
    expect(own(pathToFileURL(path.resolve('/app/out/renderer/other.html')).href)).toBe(false);
    expect(own(pathToFileURL(path.resolve('/tmp/index.html')).href)).toBe(false);
    expect(own('file://evil.com/app/out/renderer/index.html')).toBe(false);
    expect(own('https://evil.com/')).toBe(false);
    expect(own('http://localhost:5173/')).toBe(false);
    expect(own('about:blank')).toBe(false);
    expect(own('data:text/html,<h1>x</h1>')).toBe(false);
    expect(own('')).toBe(false);
  });

  it('accepts the dev server’s origin when one is given', () => {
    const own = ownPageCheck({ rendererHtml: html, devServerUrl: 'http://localhost:5173' });
    expect(own('http://localhost:5173/')).toBe(true);
    expect(own('http://localhost:5173/index.html')).toBe(true);
    expect(own('http://localhost:5174/')).toBe(false);
    expect(own('http://127.0.0.1:5173/')).toBe(false);
    expect(own('https://evil.com/')).toBe(false);
  });
});

describe('isExternalLinkAllowed', () => {
  it('allows https only', () => {
    expect(isExternalLinkAllowed('https://github.com/keel')).toBe(true);
    for (const url of ['http://example.com', 'file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share',
      'ms-settings:', 'vscode://x', 'https://user:pw@example.com/', 'not a url', '', 'data:text/html,x']) {
      expect(isExternalLinkAllowed(url), url).toBe(false);
    }
  });
});
