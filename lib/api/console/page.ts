/**
 * The web console's page: markup and styles only. The script (browser/console.js), the graph
 * layout library and the chart library are served beside it from the package, so the page works
 * on an offline machine.
 */
export const consoleHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>weir console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  :root { --bg: #0f1720; --panel: #17212b; --line: #2b3a48; --text: #d8e1ea; --dim: #8193a5;
          --source: #3aa675; --transform: #4a8fd8; --sink: #d08a3a; --err: #e05d5d; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 13px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--text);
         display: grid; grid-template-rows: auto 1fr; height: 100vh; }
  header { display: flex; gap: 16px; align-items: center; padding: 8px 14px; border-bottom: 1px solid var(--line); }
  header h1 { font-size: 15px; margin: 0; }
  #status { color: var(--dim); }
  #status.up { color: var(--source); }
  main { display: grid; grid-template-columns: 1fr 420px; min-height: 0; }
  #graph { overflow: auto; }
  svg text { fill: var(--text); font-size: 12px; }
  .node rect { fill: var(--panel); stroke-width: 2; rx: 6; cursor: pointer; }
  .node.source rect { stroke: var(--source); } .node.transform rect { stroke: var(--transform); } .node.sink rect { stroke: var(--sink); }
  .node.selected rect { fill: #223244; }
  .node .id { font-weight: 600; } .node .type, .node .stat { fill: var(--dim); font-size: 11px; }
  .node .stat.errors.nonzero { fill: var(--err); }
  .node rect.bar-bg, .node rect.bar { stroke: none; rx: 2; } .node rect.bar-bg { fill: var(--line); } .node rect.bar { fill: var(--sink); }
  .edge path { fill: none; stroke: var(--line); stroke-width: 2; marker-end: url(#arrow); }
  .edge text { fill: var(--dim); font-size: 11px; }
  aside { border-left: 1px solid var(--line); display: flex; flex-direction: column; min-height: 0; }
  aside h2 { font-size: 13px; margin: 0; padding: 8px 12px; border-bottom: 1px solid var(--line); }
  #chart-title { border-top: none; }
  #chart { padding: 6px 8px; min-height: 200px; border-bottom: 1px solid var(--line); }
  #chart .u-legend { font-size: 11px; color: var(--text); }
  .edge { cursor: pointer; }
  #tap { flex: 1; overflow: auto; margin: 0; padding: 8px 12px; font: 11px/1.35 ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; }
  #tap .note { color: var(--dim); }
</style>
</head>
<body>
<header><h1>weir</h1><span id="status">connecting…</span><span id="uptime"></span></header>
<main>
  <div id="graph"><svg id="svg" xmlns="http://www.w3.org/2000/svg"></svg></div>
  <aside>
    <h2 id="chart-title">Last 15 minutes: click a component or an edge</h2><div id="chart"></div>
    <h2 id="tap-title">Tap: click a component</h2><pre id="tap"></pre>
  </aside>
</main>
<link rel="stylesheet" href="/console/uplot.css">
<script src="/console/dagre.js"></script>
<script src="/console/uplot.js"></script>
<script src="/console/app.js"></script>
</body>
</html>
`;
