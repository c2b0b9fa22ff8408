/**
 * The built renderer as static files, safely: a request path maps to a file inside the renderer
 * folder or to nothing (no `..`, no encoded separators, no dot-files, no symlink out of the
 * folder), with an explicit content type.
 */
import fs from 'node:fs';
import path from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

export function contentType(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function inside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/**
 * The file a request path (what follows `/<token>/`, still percent-encoded, without the query)
 * names inside `root` (a real path), or undefined. An empty path or one ending in `/` names that
 * folder's index.html. Each segment is decoded on its own, so `%2f` or `%2e%2e` cannot smuggle a
 * separator or a parent step; the final real path must still lie inside `root`.
 */
export async function resolveFile(root: string, rest: string): Promise<string | undefined> {
  const segments = rest === '' ? [] : rest.split('/');
  if (segments.length === 0 || segments.at(-1) === '') {
    segments.pop();
    segments.push('index.html');
  }
  const decoded: string[] = [];
  for (const segment of segments) {
    let name: string;
    try {
      name = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (name === '' || name.startsWith('.') || /[/\\:\0]/.test(name)) return undefined;
    decoded.push(name);
  }
  const candidate = path.join(root, ...decoded);
  if (!inside(root, candidate)) return undefined;
  try {
    const real = await fs.promises.realpath(candidate);
    if (!inside(root, real)) return undefined;
    return (await fs.promises.stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

const FALLBACK_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The Content-Security-Policy of a page's `<meta http-equiv>`, or undefined. */
export function pageCsp(html: string): string | undefined {
  for (const tag of html.match(/<meta\b[^>]*>/gi) ?? []) {
    if (!/http-equiv\s*=\s*["']?Content-Security-Policy["']?/i.test(tag)) continue;
    const content = /\bcontent\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(tag);
    if (content) return (content[1] ?? content[2]).replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  }
  return undefined;
}

/**
 * The header CSP for browser mode: the page's own policy (so the two never disagree), with
 * connect-src opened to this server's WebSocket only, and framing refused (frame-ancestors works
 * only as a header).
 */
export function headerCsp(html: string, port: number): string {
  const directives = (pageCsp(html) ?? FALLBACK_CSP).split(';').map((d) => d.trim()).filter((d) => d !== '');
  const connect = `connect-src 'self' ws://127.0.0.1:${port} ws://localhost:${port}`;
  const kept = directives.filter((d) => !/^(connect-src|frame-ancestors)(\s|$)/i.test(d));
  return [...kept, connect, "frame-ancestors 'none'"].join('; ');
}
