/**
 * The web console's browser script, served as `/console/app.js`. Plain JavaScript for any current
 * browser: it reads the components over POST /graphql, lays the topology out with dagre, and keeps
 * one WebSocket (`graphql-transport-ws`) of subscriptions: events/s per component and per edge,
 * errors, buffer fill per sink, uptime, added/removed components, and the tap of the selected one.
 */
export const consoleScript = String.raw`"use strict";
(function () {
  var INTERVAL = 1000;
  var svgNS = 'http://www.w3.org/2000/svg';
  var svg = document.getElementById('svg');
  var statusEl = document.getElementById('status');
  var uptimeEl = document.getElementById('uptime');
  var tapEl = document.getElementById('tap');
  var tapTitle = document.getElementById('tap-title');
  var components = new Map();   // id -> { id, kind, type, targets: [ids] }
  var stats = new Map();        // id -> { inRate, outRate, errors, fill, outputs: Map }
  var selected = null;
  var socket = null;
  var nextId = 1;
  var handlers = new Map();     // subscription id -> function(data)
  var tapSubscription = null;

  function post(query, variables) {
    return fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: query, variables: variables || {} }) })
      .then(function (r) { return r.json(); })
      .then(function (b) { if (b.errors && b.errors.length) throw new Error(b.errors[0].message); return b.data; });
  }

  var COMPONENTS = 'query { components(first: 10000) { nodes { __typename componentId componentType } } ' +
    'componentLinks { fromComponentId outputId toComponentId } }';

  function loadComponents() {
    return post(COMPONENTS).then(function (d) {
      components.clear();
      d.components.nodes.forEach(function (n) {
        components.set(n.componentId, { id: n.componentId, kind: n.__typename.toLowerCase(), type: n.componentType, targets: [] });
        if (!stats.has(n.componentId)) stats.set(n.componentId, { inRate: 0, outRate: 0, errors: 0, fill: null });
      });
      d.componentLinks.forEach(function (l) {
        var from = components.get(l.fromComponentId);
        // the throughput subscription names a default output _default and a named one by its name
        var output = l.outputId.indexOf(l.fromComponentId + '.') === 0 ? l.outputId.slice(l.fromComponentId.length + 1) : '_default';
        if (from && !from.targets.some(function (t) { return t.to === l.toComponentId; })) from.targets.push({ to: l.toComponentId, output: output });
      });
      draw();
    });
  }

  function el(name, attrs, parent) {
    var e = document.createElementNS(svgNS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function fmt(n) {
    if (n >= 1e6) return (n / 1e6).toFixed(2) + 'M';
    if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
    return String(Math.round(n));
  }

  var W = 170, H = 74;
  function draw() {
    var g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 64, marginx: 20, marginy: 20 });
    g.setDefaultEdgeLabel(function () { return {}; });
    components.forEach(function (c) { g.setNode(c.id, { width: W, height: H }); });
    components.forEach(function (c) { c.targets.forEach(function (t) { if (components.has(t.to)) g.setEdge(c.id, t.to, { output: t.output }); }); });
    dagre.layout(g);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var defs = el('defs', {}, svg);
    var marker = el('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: '10', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto' }, defs);
    el('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#2b3a48' }, marker);
    var size = g.graph();
    svg.setAttribute('width', Math.max(size.width || 0, 300));
    svg.setAttribute('height', Math.max(size.height || 0, 200));
    g.edges().forEach(function (e) {
      var pts = g.edge(e).points;
      var group = el('g', { 'class': 'edge', 'data-from': e.v, 'data-to': e.w, 'data-output': g.edge(e).output }, svg);
      el('path', { d: 'M' + pts.map(function (p) { return p.x + ',' + p.y; }).join(' L') }, group);
      var mid = pts[Math.floor(pts.length / 2)];
      var label = el('text', { x: mid.x, y: mid.y - 6, 'text-anchor': 'middle', 'class': 'edge-rate' }, group);
      label.textContent = '';
    });
    g.nodes().forEach(function (id) {
      var n = g.node(id), c = components.get(id);
      var group = el('g', { 'class': 'node ' + c.kind + (selected === id ? ' selected' : ''), 'data-id': id,
        transform: 'translate(' + (n.x - W / 2) + ',' + (n.y - H / 2) + ')' }, svg);
      el('rect', { width: W, height: H }, group);
      el('text', { x: 10, y: 18, 'class': 'id' }, group).textContent = id;
      el('text', { x: 10, y: 33, 'class': 'type' }, group).textContent = c.kind + ' · ' + c.type;
      el('text', { x: 10, y: 50, 'class': 'stat rate' }, group);
      el('text', { x: W - 10, y: 50, 'class': 'stat errors', 'text-anchor': 'end' }, group);
      if (c.kind === 'sink') {
        el('rect', { x: 10, y: 58, width: W - 20, height: 6, 'class': 'bar-bg' }, group);
        el('rect', { x: 10, y: 58, width: 0, height: 6, 'class': 'bar' }, group);
      }
      group.addEventListener('click', function () { select(id); });
    });
    update();
  }

  function update() {
    components.forEach(function (c) {
      var s = stats.get(c.id) || {};
      var node = svg.querySelector('g.node[data-id="' + CSS.escape(c.id) + '"]');
      if (!node) return;
      var rate = c.kind === 'sink' ? s.inRate : s.outRate;
      var rateEl = node.querySelector('.rate');
      rateEl.textContent = fmt(rate || 0) + ' events/s';
      rateEl.setAttribute('data-rate', String(rate || 0));
      var errEl = node.querySelector('.errors');
      errEl.textContent = (s.errors || 0) + ' errors';
      errEl.setAttribute('class', 'stat errors' + (s.errors ? ' nonzero' : ''));
      var bar = node.querySelector('.bar');
      if (bar) {
        bar.setAttribute('width', String((W - 20) * (s.fill || 0)));
        node.querySelector('.bar-bg').setAttribute('data-fill', String(s.fill || 0));
        node.querySelector('.type').textContent = c.kind + ' · ' + c.type + ' · buffer ' + Math.round((s.fill || 0) * 100) + '%';
      }
    });
    svg.querySelectorAll('g.edge').forEach(function (e) {
      var s = stats.get(e.getAttribute('data-from')) || {};
      var rate = s.outputs && s.outputs.has(e.getAttribute('data-output')) ? s.outputs.get(e.getAttribute('data-output')) : s.outRate || 0;
      var label = e.querySelector('text');
      label.textContent = fmt(rate) + '/s';
      label.setAttribute('data-rate', String(rate));
    });
  }

  function stat(id) {
    if (!stats.has(id)) stats.set(id, { inRate: 0, outRate: 0, errors: 0, fill: null });
    return stats.get(id);
  }

  function subscribe(query, variables, onData) {
    var id = String(nextId++);
    handlers.set(id, onData);
    socket.send(JSON.stringify({ id: id, type: 'subscribe', payload: { query: query, variables: variables || {} } }));
    return id;
  }
  function unsubscribe(id) {
    handlers.delete(id);
    if (socket && socket.readyState === 1) socket.send(JSON.stringify({ id: id, type: 'complete' }));
  }

  function startSubscriptions() {
    var v = { interval: INTERVAL };
    subscribe('subscription($interval: Int!) { componentReceivedEventsThroughputs(interval: $interval) { componentId throughput } }', v, function (d) {
      d.componentReceivedEventsThroughputs.forEach(function (x) { stat(x.componentId).inRate = x.throughput * 1000 / INTERVAL; });
      update();
    });
    subscribe('subscription($interval: Int!) { componentSentEventsThroughputs(interval: $interval) { componentId throughput outputs { outputId throughput } } }', v, function (d) {
      d.componentSentEventsThroughputs.forEach(function (x) {
        var s = stat(x.componentId);
        s.outRate = x.throughput * 1000 / INTERVAL;
        s.outputs = new Map(x.outputs.map(function (o) { return [o.outputId, o.throughput * 1000 / INTERVAL]; }));
      });
      update();
    });
    subscribe('subscription($interval: Int!) { componentErrorsTotals(interval: $interval) { componentId metric { errorsTotal } } }', v, function (d) {
      d.componentErrorsTotals.forEach(function (x) { stat(x.componentId).errors = x.metric.errorsTotal; });
      update();
    });
    subscribe('subscription($interval: Int!) { componentBufferFills(interval: $interval) { componentId fill } }', v, function (d) {
      d.componentBufferFills.forEach(function (x) { stat(x.componentId).fill = x.fill; });
      update();
    });
    subscribe('subscription($interval: Int!) { uptime(interval: $interval) { seconds } }', v, function (d) {
      uptimeEl.textContent = 'uptime ' + Math.floor(d.uptime.seconds) + ' s';
    });
    subscribe('subscription { componentAdded { componentId } }', {}, function () { loadComponents(); });
    subscribe('subscription { componentRemoved { componentId } }', {}, function () { loadComponents(); });
    if (selected) select(selected);
  }

  function select(id) {
    selected = id;
    svg.querySelectorAll('g.node').forEach(function (n) { n.classList.toggle('selected', n.getAttribute('data-id') === id); });
    if (tapSubscription) unsubscribe(tapSubscription);
    tapEl.textContent = '';
    var c = components.get(id);
    if (!c) return;
    tapTitle.textContent = 'Tap: ' + (c.kind === 'sink' ? 'events into ' : 'events out of ') + id;
    var vars = c.kind === 'sink' ? { outputsPatterns: [], inputsPatterns: [id] } : { outputsPatterns: [id], inputsPatterns: null };
    vars.limit = 20; vars.interval = 500;
    tapSubscription = subscribe('subscription($outputsPatterns: [String!]!, $inputsPatterns: [String!], $limit: Int!, $interval: Int!) {' +
      ' outputEventsByComponentIdPatterns(outputsPatterns: $outputsPatterns, inputsPatterns: $inputsPatterns, limit: $limit, interval: $interval) {' +
      ' __typename ... on Log { componentId string(encoding: JSON) } ... on Metric { componentId string(encoding: JSON) }' +
      ' ... on EventNotification { message } } }', vars, function (d) {
      d.outputEventsByComponentIdPatterns.forEach(function (x) {
        var line = document.createElement('div');
        if (x.__typename === 'EventNotification') { line.className = 'note'; line.textContent = x.message; }
        else { line.className = 'event'; line.textContent = x.string; }
        tapEl.appendChild(line);
      });
      while (tapEl.childNodes.length > 200) tapEl.removeChild(tapEl.firstChild);
      tapEl.scrollTop = tapEl.scrollHeight;
    });
  }

  function connect() {
    var url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
    socket = new WebSocket(url, 'graphql-transport-ws');
    handlers.clear();
    tapSubscription = null;
    socket.onopen = function () { socket.send(JSON.stringify({ type: 'connection_init', payload: {} })); };
    socket.onmessage = function (m) {
      var msg = JSON.parse(m.data);
      if (msg.type === 'connection_ack') {
        statusEl.textContent = 'connected'; statusEl.className = 'up';
        loadComponents().then(startSubscriptions);
      } else if (msg.type === 'next') {
        var h = handlers.get(msg.id);
        if (h && msg.payload && msg.payload.data) h(msg.payload.data);
      } else if (msg.type === 'ping') {
        socket.send(JSON.stringify({ type: 'pong' }));
      }
    };
    socket.onclose = function () {
      statusEl.textContent = 'disconnected: retrying'; statusEl.className = '';
      setTimeout(connect, 1000);
    };
  }
  connect();
})();
`;
