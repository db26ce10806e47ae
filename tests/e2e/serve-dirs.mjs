// A static server over several folders on one 127.0.0.1 origin, for the tests
// that need pages beside dist/ (a host page for mount(), the test LMS and an
// unzipped SCORM package): `serveDirs({ '/lms/': dir, '/': DIST })`, longest
// prefix first; `files` adds single files by path.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.xml': 'application/xml',
};

/** Serves `dirs` (URL prefix → folder) and `files` (URL path → file); returns { url, close }. */
export async function serveDirs(dirs, files = {}) {
  const prefixes = Object.keys(dirs).sort((a, b) => b.length - a.length);
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = files[path];
      if (!file) {
        const prefix = prefixes.find((p) => path.startsWith(p));
        if (!prefix) throw new Error('no folder');
        const base = dirs[prefix];
        file = normalize(join(base, path.slice(prefix.length)));
        if (!file.startsWith(base)) throw new Error('outside');
        if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      }
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((ok) => server.close(ok)) };
}
