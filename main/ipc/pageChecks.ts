/**
 * Pure checks the Electron edge relies on (kept apart from the `electron` import so they are
 * tested in plain Node): which page may call the contract, and which links may leave the app.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface OwnPage {
  /** The built page, out/renderer/index.html. */
  rendererHtml: string;
  /** `electron-vite dev`'s server, when the window loads from it (never in a packaged app). */
  devServerUrl?: string;
}

/**
 * Returns whether a frame URL is Keel's own page: the built index.html as a file: URL (query and
 * fragment ignored), or any page of the dev server's origin. Everything else (another file, a
 * remote page the window was somehow navigated to, about:blank, data:) is refused.
 */
export function ownPageCheck(o: OwnPage): (url: string) => boolean {
  const html = path.resolve(o.rendererHtml);
  const devOrigin = o.devServerUrl ? new URL(o.devServerUrl).origin : undefined;
  return (url) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol === 'file:') {
      if (parsed.host !== '') return false;
      parsed.search = '';
      parsed.hash = '';
      try {
        return path.resolve(fileURLToPath(parsed)) === html;
      } catch {
        return false;
      }
    }
    return devOrigin !== undefined && parsed.origin === devOrigin && (parsed.protocol === 'http:' || parsed.protocol === 'https:');
  };
}

/** Links the app may hand to the system browser: https only (no file:, http:, javascript:, custom schemes). */
export function isExternalLinkAllowed(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' && parsed.hostname !== '' && parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}
