// @ts-check
/**
 * The web console's browser script, served as `/console/app.js`. Plain JavaScript for any current
 * browser, type-checked (JSDoc types, the DOM library) by lib/api/console/browser/tsconfig.json: it
 * reads the components over POST /graphql, lays the topology out with dagre, and keeps one
 * WebSocket (`graphql-transport-ws`) of subscriptions: events/s per component and per edge (one
 * edge per output and input, labelled with the output's name), errors, buffer fill per sink,
 * uptime, added/removed components, and the tap of the selected one. The first paint uses the API's
 * `consoleHistory` (the last 15 minutes of rates and the current totals), which also seeds the uPlot
 * chart of the selected component or edge; each tick then adds a point.
 */
'use strict';

/**
 * The part of dagre's browser build (window.dagre, loaded before this script) the console uses.
 * @typedef {{ x: number, y: number }} Point
 * @typedef {{ width: number, height: number, x: number, y: number }} LaidOutNode
 * @typedef {{ output: string, points: Point[], x?: number, y?: number }} LaidOutEdge
 * @typedef {{ v: string, w: string, name?: string }} EdgeRef
 * @typedef {object} DagreGraph
 * @property {(options: Record<string, unknown>) => void} setGraph
 * @property {() => { width?: number, height?: number }} graph
 * @property {(label: () => object) => void} setDefaultEdgeLabel
 * @property {(id: string, label: { width: number, height: number }) => void} setNode
 * @property {(v: string, w: string, label: { output: string, width: number, height: number, labelpos: string }, name: string) => void} setEdge
 * @property {(id: string) => LaidOutNode} node
 * @property {() => string[]} nodes
 * @property {(e: EdgeRef) => LaidOutEdge} edge
 * @property {() => EdgeRef[]} edges
 * @typedef {{ graphlib: { Graph: new (options?: { multigraph?: boolean }) => DagreGraph }, layout: (g: DagreGraph) => void }} Dagre
 */

/**
 * The part of uPlot's browser build (window.uPlot) the console uses.
 * @typedef {{ data: (number | null)[][], setData: (data: (number | null)[][]) => void, setSize: (size: { width: number, height: number }) => void, destroy: () => void }} UPlotChart
 * @typedef {new (options: Record<string, unknown>, data: (number | null)[][], target: HTMLElement) => UPlotChart} UPlot
 */

/**
 * @typedef {{ to: string, output: string }} Target
 * @typedef {{ id: string, kind: string, type: string, targets: Target[] }} Component
 * @typedef {{ inRate: number, outRate: number, errors: number, errRate: number, fill: number | null, outputs?: Map<string, number> }} Stats
 * @typedef {{ received: (number | null)[], sent: (number | null)[], errors: (number | null)[], fill: (number | null)[], outputs: Map<string, (number | null)[]> }} Series
 * @typedef {{ outputId: string, sent: (number | null)[] }} OutputHistory
 * @typedef {{ componentId: string, received: (number | null)[], sent: (number | null)[], errors: (number | null)[], fill: (number | null)[], outputs: OutputHistory[], receivedTotal: number, sentTotal: number, errorsTotal: number }} ComponentHistory
 * @typedef {{ kind: 'component', id: string } | { kind: 'edge', from: string, output: string, to: string }} ChartSubject
 * @typedef {(data: any) => void} Handler
 */

(function () {
  var INTERVAL = 1000;
  /** Points a chart keeps: 15 minutes at one a second, as the API's history. */
  var MAX_POINTS = 900;
  var uPlot = /** @type {UPlot} */ (/** @type {any} */ (window).uPlot);
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
  var chartEl = byId('chart');
  var chartTitle = byId('chart-title');
  /** @type {number[]} seconds since the epoch of each chart point, shared by every component */
  var times = [];
  /** @type {Map<string, Series>} */
  var series = new Map();
  /** @type {ChartSubject | null} */
  var chartSubject = null;
  /** @type {UPlotChart | null} */
  var chart = null;
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
    'componentLinks { fromComponentId outputId toComponentId } ' +
    'consoleHistory { timestamps components { componentId received sent errors fill outputs { outputId sent } receivedTotal sentTotal errorsTotal } } }';

  /** @returns {Stats} */
  function emptyStats() {
    return { inRate: 0, outRate: 0, errors: 0, errRate: 0, fill: null };
  }

  /** @returns {Series} */
  function emptySeries() {
    return { received: [], sent: [], errors: [], fill: [], outputs: new Map() };
  }

  /**
   * The last value of a series that has one, else 0.
   * @param {(number | null)[]} xs
   */
  function last(xs) {
    for (var i = xs.length - 1; i >= 0; i--) { var x = xs[i]; if (x !== null && x !== undefined) return x; }
    return 0;
  }

  /**
   * Takes the API's history: the chart points, and the figures the first paint shows.
   * @param {{ timestamps: number[], components: ComponentHistory[] }} h
   */
  function loadHistory(h) {
    times = h.timestamps.slice();
    series.clear();
    h.components.forEach(function (c) {
      series.set(c.componentId, { received: c.received, sent: c.sent, errors: c.errors, fill: c.fill,
        outputs: new Map(c.outputs.map(function (o) { return [o.outputId, o.sent]; })) });
      var s = stat(c.componentId);
      s.inRate = last(c.received);
      s.outRate = last(c.sent);
      s.errRate = last(c.errors);
      s.errors = c.errorsTotal;
      if (c.fill.length && c.fill[c.fill.length - 1] !== null) s.fill = last(c.fill);
      s.outputs = new Map(c.outputs.map(function (o) { return [o.outputId, last(o.sent)]; }));
    });
  }

  /** Adds one point per component from the current figures, keeping the last MAX_POINTS. */
  function addPoint() {
    times.push(Date.now() / 1000);
    var drop = times.length > MAX_POINTS ? times.length - MAX_POINTS : 0;
    if (drop) times.splice(0, drop);
    var n = times.length;
    stats.forEach(function (s, id) {
      var x = series.get(id);
      if (!x) series.set(id, (x = emptySeries()));
      /** @param {(number | null)[]} xs @param {number | null} v */
      function push(xs, v) {
        while (xs.length < n - 1) xs.unshift(null);
        xs.push(v);
        if (xs.length > n) xs.splice(0, xs.length - n);
      }
      push(x.received, s.inRate);
      push(x.sent, s.outRate);
      push(x.errors, s.errRate);
      push(x.fill, s.fill);
      var outs = x.outputs;
      (s.outputs || new Map()).forEach(function (rate, o) {
        var xs = outs.get(o);
        if (!xs) outs.set(o, (xs = []));
        push(xs, rate);
      });
    });
    drawChart();
  }

  /**
   * The rate of one output of a component: its own figure, or for a default-only component its total.
   * @param {Stats} s
   * @param {string} output
   */
  function outputRate(s, output) {
    if (s.outputs && s.outputs.has(output)) return s.outputs.get(output) || 0;
    return output === '_default' ? s.outRate || 0 : 0;
  }

  /**
   * The chart's data for its subject: [times, series…], and the series' labels.
   * @param {ChartSubject} subject
   * @returns {{ labels: string[], data: (number | null)[][] }}
   */
  function chartData(subject) {
    var x = series.get(subject.kind === 'component' ? subject.id : subject.from) || emptySeries();
    /** @param {(number | null)[]} xs */
    var fit = function (xs) {
      var tail = xs.slice(-times.length);
      /** @type {(number | null)[]} */
      var out = [];
      for (var i = tail.length; i < times.length; i++) out.push(null);
      return out.concat(tail);
    };
    if (subject.kind === 'edge') {
      var xs = x.outputs.get(subject.output) || (subject.output === '_default' ? x.sent : []);
      return { labels: ['events/s'], data: [times.slice(), fit(xs)] };
    }
    var fill = fit(x.fill).map(function (v) { return v === null ? null : v * 100; });
    return { labels: ['in events/s', 'out events/s', 'errors/s', 'buffer %'], data: [times.slice(), fit(x.received), fit(x.sent), fit(x.errors), fill] };
  }

  /** Draws (or refreshes) the chart of the selected component or edge. */
  function drawChart() {
    if (!chartSubject) return;
    var d = chartData(chartSubject);
    chartEl.setAttribute('data-points', String(times.length));
    chartEl.setAttribute('data-labels', d.labels.join(','));
    if (chart && chart.data.length === d.data.length) { chart.setData(d.data); return; }
    if (chart) chart.destroy();
    var colors = ['#4a8fd8', '#3aa675', '#e05d5d', '#d08a3a'];
    chart = new uPlot({
      width: Math.max(chartEl.clientWidth, 300), height: 180,
      scales: { x: { time: true }, pct: { range: [0, 100] } },
      series: [{}].concat(d.labels.map(function (l, i) {
        return { label: l, stroke: colors[i], width: 1.5, scale: l === 'buffer %' ? 'pct' : 'y', spanGaps: false };
      })),
      axes: [{ stroke: '#8193a5', grid: { stroke: '#2b3a48' } }, { stroke: '#8193a5', grid: { stroke: '#2b3a48' } },
        { scale: 'pct', side: 1, stroke: '#8193a5', grid: { show: false } }],
    }, d.data, chartEl);
  }

  /**
   * Shows the chart of a component or an edge.
   * @param {ChartSubject} subject
   */
  function chartOf(subject) {
    chartSubject = subject;
    chartTitle.textContent = subject.kind === 'component'
      ? 'Last 15 minutes: ' + subject.id
      : 'Last 15 minutes: ' + subject.from + (subject.output === '_default' ? '' : '.' + subject.output) + ' → ' + subject.to;
    chartEl.setAttribute('data-subject', subject.kind === 'component' ? subject.id : subject.from + '/' + subject.output + '->' + subject.to);
    if (chart) { chart.destroy(); chart = null; }
    drawChart();
  }
  /** @type {any} */ (window).weirConsole = {
    /** The data the chart draws: [times, series…], for tests and the curious. */
    chartData: function () { return chart ? chart.data : null; },
  };

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
        // one edge per output and input: two outputs of one component into one sink are two edges
        if (from && !from.targets.some(function (t) { return t.to === l.toComponentId && t.output === output; })) from.targets.push({ to: l.toComponentId, output: output });
      });
      loadHistory(d.consoleHistory);
      draw();
      if (!chartSubject) {
        var firstSink = Array.from(components.values()).find(function (c) { return c.kind === 'sink'; });
        if (firstSink) chartOf({ kind: 'component', id: firstSink.id });
      } else drawChart();
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
  /**
   * The room dagre keeps for an edge's label, so labels sit between nodes, not under them.
   * @param {string} output
   */
  function edgeLabel(output) {
    // 6.5 px a character at 11 px: the output's name, " · ", and a rate such as 12.3k/s
    return { output: output, width: 6.5 * ((output === '_default' ? 0 : output.length + 3) + 7), height: 14, labelpos: 'c' };
  }
  function draw() {
    var g = new dagre.graphlib.Graph({ multigraph: true });
    g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 64, marginx: 20, marginy: 20 });
    g.setDefaultEdgeLabel(function () { return {}; });
    components.forEach(function (c) { g.setNode(c.id, { width: W, height: H }); });
    components.forEach(function (c) { c.targets.forEach(function (t) { if (components.has(t.to)) g.setEdge(c.id, t.to, edgeLabel(t.output), t.output); }); });
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
      var output = g.edge(e).output;
      var group = el('g', { 'class': 'edge', 'data-from': e.v, 'data-to': e.w, 'data-output': output }, svg);
      el('path', { d: 'M' + pts.map(function (p) { return p.x + ',' + p.y; }).join(' L') }, group);
      var laid = g.edge(e);
      var mid = laid.x !== undefined && laid.y !== undefined ? { x: laid.x, y: laid.y + 4 } : pts[Math.floor(pts.length / 2)] || { x: 0, y: 0 };
      var label = el('text', { x: mid.x, y: mid.y, 'text-anchor': 'middle', 'class': 'edge-rate' }, group);
      label.textContent = '';
      var from = e.v, to = e.w;
      group.addEventListener('click', function () { chartOf({ kind: 'edge', from: from, output: output, to: to }); });
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
      var output = e.getAttribute('data-output') || '_default';
      var rate = outputRate(s, output);
      var label = find(e, 'text');
      label.textContent = (output === '_default' ? '' : output + ' · ') + fmt(rate) + '/s';
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
      // one chart point a tick, taken when the sent rates (the edges' figures) arrive
      addPoint();
    });
    subscribe('subscription($interval: Int!) { componentErrorsTotals(interval: $interval) { componentId metric { errorsTotal } } }', v, function (d) {
      d.componentErrorsTotals.forEach(/** @param {{ componentId: string, metric: { errorsTotal: number } }} x */ function (x) {
        var s = stat(x.componentId);
        s.errRate = Math.max(0, x.metric.errorsTotal - s.errors) * 1000 / INTERVAL;
        s.errors = x.metric.errorsTotal;
      });
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
    chartOf({ kind: 'component', id: id });
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
  // the first paint needs no socket: the history query carries the figures until the first tick
  loadComponents().catch(function () { /* the socket's connection_ack loads again */ });
  connect();
})();
