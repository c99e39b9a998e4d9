// @ts-check
/**
 * The web console's browser script, served as `/console/app.js`. Plain JavaScript for any current
 * browser, type-checked (JSDoc types, the DOM library) by lib/api/console/browser/tsconfig.json: it
 * reads the components over POST /graphql, lays the topology out with dagre, and keeps one
 * WebSocket (`graphql-transport-ws`) of subscriptions: events/s per component and per edge, errors,
 * buffer fill per sink, uptime, added/removed components, and the tap of the selected one.
 */
'use strict';

/**
 * The part of dagre's browser build (window.dagre, loaded before this script) the console uses.
 * @typedef {{ x: number, y: number }} Point
 * @typedef {{ width: number, height: number, x: number, y: number }} LaidOutNode
 * @typedef {{ output: string, points: Point[] }} LaidOutEdge
 * @typedef {{ v: string, w: string }} EdgeRef
 * @typedef {object} DagreGraph
 * @property {(options: Record<string, unknown>) => void} setGraph
 * @property {() => { width?: number, height?: number }} graph
 * @property {(label: () => object) => void} setDefaultEdgeLabel
 * @property {(id: string, label: { width: number, height: number }) => void} setNode
 * @property {(v: string, w: string, label: { output: string }) => void} setEdge
 * @property {(id: string) => LaidOutNode} node
 * @property {() => string[]} nodes
 * @property {(e: EdgeRef) => LaidOutEdge} edge
 * @property {() => EdgeRef[]} edges
 * @typedef {{ graphlib: { Graph: new () => DagreGraph }, layout: (g: DagreGraph) => void }} Dagre
 */

/**
 * @typedef {{ to: string, output: string }} Target
 * @typedef {{ id: string, kind: string, type: string, targets: Target[] }} Component
 * @typedef {{ inRate: number, outRate: number, errors: number, fill: number | null, outputs?: Map<string, number> }} Stats
 * @typedef {(data: any) => void} Handler
 */

(function () {
  var INTERVAL = 1000;
  var svgNS = 'http://www.w3.org/2000/svg';
  var dagre = /** @type {Dagre} */ (/** @type {any} */ (window).dagre);

  /**
   * An element the page is known to hold.
   * @param {string} id
   * @returns {HTMLElement}
   */
  function byId(id) {
    var e = document.getElementById(id);
    if (!e) throw new Error('the page has no #' + id);
    return e;
  }

  var svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (byId('svg')));
  var statusEl = byId('status');
  var uptimeEl = byId('uptime');
  var tapEl = byId('tap');
  var tapTitle = byId('tap-title');
  /** @type {Map<string, Component>} */
  var components = new Map();
  /** @type {Map<string, Stats>} */
  var stats = new Map();
  /** @type {string | null} */
  var selected = null;
  /** @type {WebSocket | null} */
  var socket = null;
  var nextId = 1;
  /** @type {Map<string, Handler>} subscription id -> what its data updates */
  var handlers = new Map();
  /** @type {string | null} */
  var tapSubscription = null;

  /**
   * One GraphQL query or mutation over POST; rejects with the first error.
   * @param {string} query
   * @param {Record<string, unknown>} [variables]
   * @returns {Promise<any>}
   */
  function post(query, variables) {
    return fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: query, variables: variables || {} }) })
      .then(function (r) { return r.json(); })
      .then(function (b) { if (b.errors && b.errors.length) throw new Error(b.errors[0].message); return b.data; });
  }

  var COMPONENTS = 'query { components(first: 10000) { nodes { __typename componentId componentType } } ' +
    'componentLinks { fromComponentId outputId toComponentId } }';

  /** @returns {Stats} */
  function emptyStats() {
    return { inRate: 0, outRate: 0, errors: 0, fill: null };
  }

  function loadComponents() {
    return post(COMPONENTS).then(function (d) {
      components.clear();
      d.components.nodes.forEach(/** @param {{ __typename: string, componentId: string, componentType: string }} n */ function (n) {
        components.set(n.componentId, { id: n.componentId, kind: n.__typename.toLowerCase(), type: n.componentType, targets: [] });
        if (!stats.has(n.componentId)) stats.set(n.componentId, emptyStats());
      });
      d.componentLinks.forEach(/** @param {{ fromComponentId: string, outputId: string, toComponentId: string }} l */ function (l) {
        var from = components.get(l.fromComponentId);
        // the throughput subscription names a default output _default and a named one by its name
        var output = l.outputId.indexOf(l.fromComponentId + '.') === 0 ? l.outputId.slice(l.fromComponentId.length + 1) : '_default';
        if (from && !from.targets.some(function (t) { return t.to === l.toComponentId; })) from.targets.push({ to: l.toComponentId, output: output });
      });
      draw();
    });
  }

  /**
   * An SVG element with attributes, appended to `parent` when given.
   * @param {string} name
   * @param {Record<string, string | number>} attrs
   * @param {Element} [parent]
   * @returns {SVGElement}
   */
  function el(name, attrs, parent) {
    var e = /** @type {SVGElement} */ (document.createElementNS(svgNS, name));
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    if (parent) parent.appendChild(e);
    return e;
  }

  /**
   * A rate for a label: 1.23M, 45.6k or a whole number.
   * @param {number} n
   */
  function fmt(n) {
    if (n >= 1e6) return (n / 1e6).toFixed(2) + 'M';
    if (n >= 1e4) return (n / 1e3).toFixed(1) + 'k';
    return String(Math.round(n));
  }

  /**
   * The element a selector finds below `root`, which the drawing always creates.
   * @param {ParentNode} root
   * @param {string} selector
   * @returns {Element}
   */
  function find(root, selector) {
    var e = root.querySelector(selector);
    if (!e) throw new Error('missing ' + selector);
    return e;
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
    svg.setAttribute('width', String(Math.max(size.width || 0, 300)));
    svg.setAttribute('height', String(Math.max(size.height || 0, 200)));
    g.edges().forEach(function (e) {
      var pts = g.edge(e).points;
      var group = el('g', { 'class': 'edge', 'data-from': e.v, 'data-to': e.w, 'data-output': g.edge(e).output }, svg);
      el('path', { d: 'M' + pts.map(function (p) { return p.x + ',' + p.y; }).join(' L') }, group);
      var mid = pts[Math.floor(pts.length / 2)] || { x: 0, y: 0 };
      var label = el('text', { x: mid.x, y: mid.y - 6, 'text-anchor': 'middle', 'class': 'edge-rate' }, group);
      label.textContent = '';
    });
    g.nodes().forEach(function (id) {
      var n = g.node(id), c = components.get(id);
      if (!c) return;
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
      var s = stats.get(c.id) || emptyStats();
      var node = svg.querySelector('g.node[data-id="' + CSS.escape(c.id) + '"]');
      if (!node) return;
      var rate = c.kind === 'sink' ? s.inRate : s.outRate;
      var rateEl = find(node, '.rate');
      rateEl.textContent = fmt(rate || 0) + ' events/s';
      rateEl.setAttribute('data-rate', String(rate || 0));
      var errEl = find(node, '.errors');
      errEl.textContent = (s.errors || 0) + ' errors';
      errEl.setAttribute('class', 'stat errors' + (s.errors ? ' nonzero' : ''));
      var bar = node.querySelector('.bar');
      if (bar) {
        bar.setAttribute('width', String((W - 20) * (s.fill || 0)));
        find(node, '.bar-bg').setAttribute('data-fill', String(s.fill || 0));
        find(node, '.type').textContent = c.kind + ' · ' + c.type + ' · buffer ' + Math.round((s.fill || 0) * 100) + '%';
      }
    });
    svg.querySelectorAll('g.edge').forEach(function (e) {
      var s = stats.get(e.getAttribute('data-from') || '') || emptyStats();
      var output = e.getAttribute('data-output') || '';
      var rate = s.outputs && s.outputs.has(output) ? s.outputs.get(output) || 0 : s.outRate || 0;
      var label = find(e, 'text');
      label.textContent = fmt(rate) + '/s';
      label.setAttribute('data-rate', String(rate));
    });
  }

  /**
   * A component's figures, created on first use.
   * @param {string} id
   * @returns {Stats}
   */
  function stat(id) {
    var s = stats.get(id);
    if (!s) stats.set(id, (s = emptyStats()));
    return s;
  }

  /**
   * Starts a subscription on the open socket; returns its id.
   * @param {string} query
   * @param {Record<string, unknown>} variables
   * @param {Handler} onData
   */
  function subscribe(query, variables, onData) {
    var id = String(nextId++);
    handlers.set(id, onData);
    if (socket) socket.send(JSON.stringify({ id: id, type: 'subscribe', payload: { query: query, variables: variables || {} } }));
    return id;
  }
  /** @param {string} id */
  function unsubscribe(id) {
    handlers.delete(id);
    if (socket && socket.readyState === 1) socket.send(JSON.stringify({ id: id, type: 'complete' }));
  }

  function startSubscriptions() {
    var v = { interval: INTERVAL };
    subscribe('subscription($interval: Int!) { componentReceivedEventsThroughputs(interval: $interval) { componentId throughput } }', v, function (d) {
      d.componentReceivedEventsThroughputs.forEach(/** @param {{ componentId: string, throughput: number }} x */ function (x) { stat(x.componentId).inRate = x.throughput * 1000 / INTERVAL; });
      update();
    });
    subscribe('subscription($interval: Int!) { componentSentEventsThroughputs(interval: $interval) { componentId throughput outputs { outputId throughput } } }', v, function (d) {
      d.componentSentEventsThroughputs.forEach(/** @param {{ componentId: string, throughput: number, outputs: { outputId: string, throughput: number }[] }} x */ function (x) {
        var s = stat(x.componentId);
        s.outRate = x.throughput * 1000 / INTERVAL;
        s.outputs = new Map(x.outputs.map(function (o) { return [o.outputId, o.throughput * 1000 / INTERVAL]; }));
      });
      update();
    });
    subscribe('subscription($interval: Int!) { componentErrorsTotals(interval: $interval) { componentId metric { errorsTotal } } }', v, function (d) {
      d.componentErrorsTotals.forEach(/** @param {{ componentId: string, metric: { errorsTotal: number } }} x */ function (x) { stat(x.componentId).errors = x.metric.errorsTotal; });
      update();
    });
    subscribe('subscription($interval: Int!) { componentBufferFills(interval: $interval) { componentId fill } }', v, function (d) {
      d.componentBufferFills.forEach(/** @param {{ componentId: string, fill: number }} x */ function (x) { stat(x.componentId).fill = x.fill; });
      update();
    });
    subscribe('subscription($interval: Int!) { uptime(interval: $interval) { seconds } }', v, function (d) {
      uptimeEl.textContent = 'uptime ' + Math.floor(d.uptime.seconds) + ' s';
    });
    subscribe('subscription { componentAdded { componentId } }', {}, function () { loadComponents(); });
    subscribe('subscription { componentRemoved { componentId } }', {}, function () { loadComponents(); });
    if (selected) select(selected);
  }

  /**
   * Highlights a component and taps it: events out of a source or transform, into a sink.
   * @param {string} id
   */
  function select(id) {
    selected = id;
    svg.querySelectorAll('g.node').forEach(function (n) { n.classList.toggle('selected', n.getAttribute('data-id') === id); });
    if (tapSubscription) unsubscribe(tapSubscription);
    tapEl.textContent = '';
    var c = components.get(id);
    if (!c) return;
    tapTitle.textContent = 'Tap: ' + (c.kind === 'sink' ? 'events into ' : 'events out of ') + id;
    var vars = c.kind === 'sink'
      ? { outputsPatterns: [], inputsPatterns: [id], limit: 20, interval: 500 }
      : { outputsPatterns: [id], inputsPatterns: null, limit: 20, interval: 500 };
    tapSubscription = subscribe('subscription($outputsPatterns: [String!]!, $inputsPatterns: [String!], $limit: Int!, $interval: Int!) {' +
      ' outputEventsByComponentIdPatterns(outputsPatterns: $outputsPatterns, inputsPatterns: $inputsPatterns, limit: $limit, interval: $interval) {' +
      ' __typename ... on Log { componentId string(encoding: JSON) } ... on Metric { componentId string(encoding: JSON) }' +
      ' ... on EventNotification { message } } }', vars, function (d) {
      d.outputEventsByComponentIdPatterns.forEach(/** @param {{ __typename: string, message?: string, string?: string }} x */ function (x) {
        var line = document.createElement('div');
        if (x.__typename === 'EventNotification') { line.className = 'note'; line.textContent = x.message || ''; }
        else { line.className = 'event'; line.textContent = x.string || ''; }
        tapEl.appendChild(line);
      });
      while (tapEl.childNodes.length > 200 && tapEl.firstChild) tapEl.removeChild(tapEl.firstChild);
      tapEl.scrollTop = tapEl.scrollHeight;
    });
  }

  function connect() {
    var url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
    var ws = new WebSocket(url, 'graphql-transport-ws');
    socket = ws;
    handlers.clear();
    tapSubscription = null;
    ws.onopen = function () { ws.send(JSON.stringify({ type: 'connection_init', payload: {} })); };
    ws.onmessage = function (m) {
      var msg = JSON.parse(m.data);
      if (msg.type === 'connection_ack') {
        statusEl.textContent = 'connected'; statusEl.className = 'up';
        loadComponents().then(startSubscriptions);
      } else if (msg.type === 'next') {
        var h = handlers.get(msg.id);
        if (h && msg.payload && msg.payload.data) h(msg.payload.data);
      } else if (msg.type === 'ping') {
        ws.send(JSON.stringify({ type: 'pong' }));
      }
    };
    ws.onclose = function () {
      statusEl.textContent = 'disconnected: retrying'; statusEl.className = '';
      setTimeout(connect, 1000);
    };
  }
  connect();
})();
