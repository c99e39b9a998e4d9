/**
 * `GET /playground`: a small GraphQL explorer with no external assets (the host may be offline).
 * Queries go to POST /graphql; subscriptions over a WebSocket at /graphql (graphql-transport-ws).
 */
export const playgroundHtml = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>weir GraphQL playground</title>
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 1fr 1fr; height: 100vh; }
  section { display: flex; flex-direction: column; padding: 8px; gap: 6px; min-height: 0; }
  textarea, pre { font: 13px ui-monospace, monospace; border: 1px solid #ccc; padding: 6px; margin: 0; }
  textarea#query { flex: 3; } textarea#variables { flex: 1; }
  pre { flex: 1; overflow: auto; white-space: pre-wrap; background: #f7f7f7; }
  button { align-self: flex-start; padding: 4px 14px; }
</style>
</head>
<body>
<section>
  <label for="query">Query, or subscription</label>
  <textarea id="query" spellcheck="false">{
  health
  meta { versionString hostname }
  components(first: 100) { totalCount edges { node { __typename componentId componentType } } }
}</textarea>
  <label for="variables">Variables (JSON)</label>
  <textarea id="variables" spellcheck="false">{}</textarea>
  <div><button id="run">Run</button> <button id="stop" disabled>Stop</button></div>
</section>
<section>
  <label for="result">Result</label>
  <pre id="result"></pre>
</section>
<script>
const $ = (id) => document.getElementById(id);
let socket;
const show = (v) => { $('result').textContent = typeof v === 'string' ? v : JSON.stringify(v, null, 2); };
const stop = () => { if (socket) socket.close(); socket = undefined; $('stop').disabled = true; };
$('stop').onclick = stop;
$('run').onclick = async () => {
  stop();
  const query = $('query').value;
  let variables;
  try { variables = JSON.parse($('variables').value || '{}'); } catch (e) { return show('Variables: ' + e.message); }
  if (/^\\s*subscription\\b/.test(query)) {
    const url = location.origin.replace(/^http/, 'ws') + '/graphql';
    socket = new WebSocket(url, 'graphql-transport-ws');
    $('stop').disabled = false;
    const lines = [];
    socket.onopen = () => socket.send(JSON.stringify({ type: 'connection_init' }));
    socket.onmessage = (m) => {
      const msg = JSON.parse(m.data);
      if (msg.type === 'connection_ack') socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query, variables } }));
      else if (msg.type === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      else if (msg.type === 'next' || msg.type === 'error') {
        lines.unshift(JSON.stringify(msg.payload));
        lines.length = Math.min(lines.length, 200);
        show(lines.join('\\n'));
      } else if (msg.type === 'complete') stop();
    };
    socket.onclose = () => { $('stop').disabled = true; };
    return;
  }
  const res = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  show(await res.json());
};
</script>
</body>
</html>
`;
