/** The web UI's one stylesheet, served as `ui/ui.css` because the CSP allows styles from this origin only. */
export const UI_CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:1rem 1.5rem;color:#222;background:#fafafa}
nav{margin-bottom:.8rem}nav strong{color:#000}
h1{font-size:1.3rem;margin:.2rem 0}h2{font-size:1.05rem;margin:1.2rem 0 .4rem}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ddd;padding:.25rem .45rem;text-align:left;font-variant-numeric:tabular-nums;vertical-align:top}
th{background:#f0f0f0}th button{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer}
th button[data-dir=asc]::after{content:" ▲"}th button[data-dir=desc]::after{content:" ▼"}
.hint,#state,#node-meta,#gw-meta{color:#666}.off{color:#a00}.ok{color:#070}
svg.chart{background:#fff;border:1px solid #ddd;display:block;margin:.3rem 0 .8rem;max-width:100%}
svg.chart .line{fill:none;stroke:#2667b0;stroke-width:1.5}svg.chart .axis{stroke:#bbb}svg.chart text{font-size:11px;fill:#555}
.rates{display:flex;flex-wrap:wrap;gap:.5rem}.rates svg.chart{margin:0}
pre{background:#fff;border:1px solid #ddd;padding:.5rem;overflow:auto;max-height:30rem}
#send-results li{font-family:ui-monospace,monospace}
svg.map{display:block;width:100%;height:70vh;background:#fff;border:1px solid #ddd}
svg.map .link line{stroke:#7a9cc6;stroke-width:1.5}svg.map .link.relayed line{stroke-dasharray:5 4}
svg.map .link-label{font-size:10px;fill:#555}svg.map text{font-size:11px;fill:#222}
svg.map .map-node circle,svg.map .map-node rect{fill:#4a9a4a;stroke:#fff;stroke-width:2}
svg.map .map-node.stale circle{fill:#aaa}svg.map .map-node.gateway rect{fill:#2667b0}svg.map .map-node.site-gateway rect{fill:#8a6bbf}
svg.map .map-node.match circle,svg.map .map-node.match rect{stroke:#e08a00;stroke-width:4}svg.map .map-node.dim{opacity:.3}
`;
