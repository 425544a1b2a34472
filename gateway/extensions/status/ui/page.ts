/**
 * The web UI's HTML shell and its Content-Security-Policy. The shell holds no data and no script of its own: the
 * script comes from `ui/live-log.js` (built from webui/ at `npm run build`), so the policy allows scripts from this
 * origin only, no inline code and no eval. Every URL is relative, so the page works under a path prefix.
 */
export const UI_CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

export function renderUiShell(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Mesh gateway — live log</title>
</head>
<body>
<h1>Live log</h1>
<p><a href="./">Status page</a> · <span id="state">connecting…</span></p>
<p>
<label>Node <input id="filter-node" type="search" placeholder="address"></label>
<label>App id <input id="filter-app" type="search"></label>
<label>Direction <select id="filter-direction"><option value="">all</option><option value="in">in</option><option value="out">out</option><option value="ack">ack</option></select></label>
<button id="pause" type="button">Pause</button>
<button id="export" type="button">Export JSON lines</button>
</p>
<table>
<thead><tr><th>time</th><th>dir</th><th>sender</th><th>recipient</th><th>app id</th><th>radio</th><th>RSSI</th><th>hops</th><th>id</th></tr></thead>
<tbody id="log-rows"></tbody>
</table>
<script type="module" src="ui/live-log.js"></script>
</body>
</html>
`;
}
