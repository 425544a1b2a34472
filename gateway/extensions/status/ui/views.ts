/**
 * The static part of each web UI view: its title, its script and the empty elements the script fills. Nothing here
 * comes from the mesh; the scripts set every value from the API as text.
 */
export type ViewName = 'log' | 'map' | 'nodes' | 'node' | 'gateway';

export interface View {
  title: string;
  script: string;
  body: string;
}

export const VIEWS: Record<ViewName, View> = {
  log: {
    title: 'live log',
    script: 'live-log.js',
    body: `<h1>Live log</h1>
<p><span id="state">connecting…</span></p>
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
</table>`,
  },
  map: {
    title: 'map',
    script: 'map.js',
    body: `<h1>Map</h1>
<p>
<label>Search <input id="search" type="search" placeholder="name or address"></label>
<label>Radio <select id="radio-filter"><option value="">all radios</option></select></label>
<button id="zoom-in" type="button">+</button> <button id="zoom-out" type="button">−</button> <button id="zoom-reset" type="button">Fit</button>
<span id="state">loading…</span>
</p>
<svg id="map" class="map" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="mesh map"></svg>`,
  },
  nodes: {
    title: 'nodes',
    script: 'nodes.js',
    body: `<h1>Nodes</h1>
<p><span id="state">loading…</span> <label>Search <input id="search" type="search" placeholder="name or address"></label></p>
<table id="nodes">
<thead><tr>
<th><button type="button" data-sort="name">name</button></th>
<th><button type="button" data-sort="address">address</button></th>
<th><button type="button" data-sort="heard_by">heard by</button></th>
<th><button type="button" data-sort="rssi">RSSI</button></th>
<th><button type="button" data-sort="last_seen">last seen</button></th>
<th><button type="button" data-sort="messages_per_min">msg/min</button></th>
<th>readings</th>
</tr></thead>
<tbody id="node-rows"></tbody>
</table>`,
  },
  node: {
    title: 'node',
    script: 'node.js',
    body: `<h1 id="node-name">Node</h1>
<p id="node-meta"></p>
<p id="state">loading…</p>
<h2>Readings</h2>
<div id="readings"></div>
<h2>Send a text</h2>
<form id="send-form">
<p><label>Auth token <input id="token" type="password" autocomplete="off"></label> <span class="hint">kept in this tab only</span></p>
<p><label>Text <input id="send-text" type="text" maxlength="2000" required></label> <button id="send" type="submit">Send</button></p>
</form>
<ol id="send-results"></ol>
<p><button id="forget" type="button">Forget this node</button> <span id="forget-result"></span></p>
<h2>Recent messages</h2>
<table>
<thead><tr><th>received</th><th>recipient</th><th>app id</th><th>type</th><th>radio</th><th>RSSI</th><th>hops</th><th>verified</th><th>id</th><th>text</th></tr></thead>
<tbody id="messages"></tbody>
</table>`,
  },
  gateway: {
    title: 'gateway',
    script: 'gateway.js',
    body: `<h1 id="gw-name">Gateway</h1>
<p id="gw-meta"></p>
<h2>Health: <span id="health-status"></span></h2>
<ul id="health-causes"></ul>
<h2>Check</h2>
<ul id="check"></ul>
<h2>Connections</h2>
<table><tbody id="connections"></tbody></table>
<h2>Radios</h2>
<table>
<thead><tr><th>radio</th><th>kind</th><th>state</th><th>detail</th><th>peers</th><th>counters</th></tr></thead>
<tbody id="radios"></tbody>
</table>
<h2>Queues</h2>
<table>
<thead><tr><th>queue</th><th>depth</th><th>in flight</th><th>dropped</th></tr></thead>
<tbody id="queues"></tbody>
</table>
<h2>Rates per second, last 15 minutes</h2>
<div id="rates" class="rates"></div>
<h2>Effective configuration (secrets redacted)</h2>
<pre id="config"></pre>`,
  },
};
