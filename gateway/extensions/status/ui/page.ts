/**
 * The web UI's HTML shells and their Content-Security-Policy. A shell holds no data and no script of its own: each
 * view's script comes from `ui/<view>.js` (built from webui/ at `npm run build`), so the policy allows scripts and
 * styles from this origin only, no inline code and no eval. Every URL is relative, so the pages work under a path
 * prefix; the live log sits at `ui` and the other views one level down (`ui/nodes`), hence `up`.
 */
import { VIEWS, type ViewName } from './views';

export const UI_CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

export function renderUiShell(view: ViewName = 'log'): string {
  const v = VIEWS[view];
  // From `ui` the folder is `ui/`; from `ui/nodes` it is `./` and the root is `../`.
  const up = view === 'log' ? '' : '../';
  const ui = view === 'log' ? 'ui/' : '';
  const nav = [
    ['log', `${up}ui`, 'Live log'],
    ['map', `${ui}map`, 'Map'],
    ['nodes', `${ui}nodes`, 'Nodes'],
    ['gateway', `${ui}gateway`, 'Gateway'],
    ['status', up || './', 'Status page'],
  ]
    .map(([name, href, label]) => (name === view ? `<strong>${label}</strong>` : `<a href="${href}">${label}</a>`))
    .join(' · ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ui}ui.css">
<title>Mesh gateway — ${v.title}</title>
</head>
<body>
<nav>${nav}</nav>
${v.body}
<script type="module" src="${ui}${v.script}"></script>
</body>
</html>
`;
}
