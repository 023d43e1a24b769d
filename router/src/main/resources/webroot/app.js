/* LM Warden dashboard: polls the router's JSON admin API and renders it. No build step, no libraries.
 * Every value that comes from a client (session keys, reasons) is set as text, never as HTML. */
(function () {
  'use strict';

  var REPLICAS_EVERY_MS = 1000;
  var STATS_EVERY_MS = 2000;
  var SESSIONS_EVERY_MS = 2000;
  var DASH = '\u2013';
  var SVG_NS = 'http://www.w3.org/2000/svg';

  function $(id) { return document.getElementById(id); }

  /* ---------- small DOM helpers ---------- */

  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  function svg(tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === 'text') node.textContent = String(v);
      else if (k === 'onclick') node.addEventListener('click', v);
      else node.setAttribute(k, v === true ? '' : String(v));
    });
  }

  /** Appends each child after the node: elements, text, arrays of either; null and false are skipped. */
  function append(node) {
    for (var i = 1; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); continue; }
      node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    }
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  /* ---------- formatting ---------- */

  function isNum(v) { return typeof v === 'number' && isFinite(v); }

  function fmtInt(v) { return isNum(v) ? Math.round(v).toLocaleString('en-US') : DASH; }

  function fmtPct(fraction, digits) {
    if (!isNum(fraction)) return DASH;
    return (fraction * 100).toFixed(digits === undefined ? 1 : digits) + '%';
  }

  function fmtRate(v) {
    if (!isNum(v)) return DASH;
    var a = Math.abs(v);
    if (a >= 1e6) return (v / 1e6).toFixed(1) + 'M';
    if (a >= 1e4) return (v / 1e3).toFixed(0) + 'k';
    if (a >= 1e3) return (v / 1e3).toFixed(1) + 'k';
    if (a >= 100 || v === 0) return v.toFixed(0);
    return v.toFixed(1);
  }

  function fmtMs(v) {
    if (!isNum(v) || v < 0) return DASH;
    if (v >= 10000) return (v / 1000).toFixed(1) + ' s';
    if (v >= 1000) return (v / 1000).toFixed(2) + ' s';
    return v.toFixed(v < 10 ? 1 : 0) + ' ms';
  }

  function pad2(n) { return n < 10 ? '0' + n : '' + n; }

  function fmtClock(ms, withSeconds) {
    if (!isNum(ms)) return DASH;
    var d = new Date(ms);
    return pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + (withSeconds === false ? '' : ':' + pad2(d.getSeconds()));
  }

  /** HH:MM:SS.mmm: steps of one session come within the same second. */
  function fmtClockMillis(ms) {
    if (!isNum(ms)) return DASH;
    return fmtClock(ms) + '.' + String(Math.floor(ms % 1000)).padStart(3, '0');
  }

  function fmtDuration(ms) {
    if (!isNum(ms) || ms < 0) return DASH;
    var s = Math.floor(ms / 1000);
    if (s < 60) return s + ' s';
    var m = Math.floor(s / 60);
    if (m < 60) return m + ' min';
    var h = Math.floor(m / 60);
    if (h < 48) return h + ' h ' + (m % 60) + ' min';
    return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
  }

  function chip(label, value, cls, title) {
    return el('span', { 'class': 'chip' + (cls ? ' ' + cls : ''), title: title, 'data-chip': label },
      label, ' ', el('b', { text: value }));
  }

  /* ---------- HTTP ---------- */

  // With an admin token set, open the page as /#token=<token>: it is kept for this tab and sent as a Bearer token.
  (function keepToken() {
    var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (m) {
      sessionStorage.setItem('lmwAdminToken', decodeURIComponent(m[1]));
      history.replaceState(null, '', location.pathname);
    }
  })();

  function getJson(url, init) {
    var options = Object.assign({ cache: 'no-store' }, init || {});
    var token = sessionStorage.getItem('lmwAdminToken');
    if (token) options.headers = Object.assign({ Authorization: 'Bearer ' + token }, options.headers || {});
    return fetch(url, options).then(function (r) {
      return r.text().then(function (text) {
        var body = null;
        try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
        return { status: r.status, ok: r.ok, body: body, text: text };
      });
    });
  }

  function errorMessage(reply) {
    if (reply.body && reply.body.error && reply.body.error.message) return reply.body.error.message;
    return reply.text ? reply.text.slice(0, 300) : 'no body';
  }

  /** Runs fn now and then every ms after it settles, so a slow router never piles requests up. */
  function every(ms, fn) {
    function tick() {
      var settled = function () { setTimeout(tick, ms); };
      try {
        Promise.resolve(fn()).then(settled, function (e) { console.warn(e); settled(); });
      } catch (e) {
        console.warn(e);
        settled();
      }
    }
    tick();
  }

  /* ---------- router cluster ---------- */
  function clusterText(c) {
    if (!c || !Array.isArray(c.members)) return DASH;
    if (c.mode === 'single') return '1 (alone)';
    return c.members.length + (c.agree ? ', agree' : ', disagree');
  }

  function clusterClass(c) {
    if (!c || c.mode === 'single') return null;
    return c.agree ? 'chip-on' : 'chip-off';
  }

  function clusterMembers(c) {
    if (!c || c.mode === 'single' || !Array.isArray(c.members)) return '';
    return 'routers: ' + c.members.map(function (m) {
      return m.name + (m.self ? ' (this one)' : '') + (m.name === c.coordinator ? ' [coordinator]' : '')
        + ': ' + (m.reported ? m.pins + ' sticky sessions, ' + m.inFlight + ' in flight' : 'not reported yet');
    }).join('; ');
  }

  /* ---------- replicas card ---------- */

  var replicaRefreshes = 0;
  var policyDirty = false;
  var spillDirty = false;
  var knownPolicies = '';

  function refreshReplicas() {
    return getJson('/api/replicas').then(function (reply) {
      if (!reply.ok || !reply.body) throw new Error('HTTP ' + reply.status + ': ' + errorMessage(reply));
      renderReplicas(reply.body);
      replicaRefreshes++;
      document.body.setAttribute('data-replica-refreshes', String(replicaRefreshes));
      setConnection(true, 'live');
      $('updated').textContent = 'updated ' + fmtClock(Date.now());
    }).catch(function (e) {
      setConnection(false, 'offline');
      $('updated').textContent = String(e.message || e);
    });
  }

  function setConnection(ok, text) {
    var c = $('conn');
    c.className = 'conn ' + (ok ? 'conn-ok' : 'conn-bad');
    c.textContent = text;
  }

  var lastRendered = null;

  function renderReplicas(d) {
    lastRendered = d;
    lastReplicas = Array.isArray(d.replicas) ? d.replicas : [];
    var chips = $('routing-chips');
    clear(chips);
    var manual = d.spillThreshold && d.spillThreshold !== 'auto';
    var spillText = isNum(d.spillThresholdValue) ? d.spillThresholdValue + (manual ? ' (manual)' : ' (auto)')
      : (d.spillThreshold ? d.spillThreshold : DASH);
    append(chips, [
      chip('Affinity', d.affinity ? 'on' : 'off', d.affinity ? 'chip-on' : 'chip-off',
        'sessions are sticky to the replica that holds their prefix cache'),
      chip('Policy', d.policy || DASH),
      chip('Spill threshold', d.affinity ? spillText : 'n/a', null,
        'a step leaves its home replica when that replica has more requests in flight than this'),
      chip('Sticky steps', isNum(d.stickyPct) ? d.stickyPct.toFixed(1) + '%' : DASH, null,
        'steps of known sessions that stayed on their home replica (decision STICKY)'),
      chip('In flight', fmtInt(d.inFlight)),
      chip('Sticky sessions', fmtInt(d.affinityEntries), null,
        'sessions the affinity table keeps on a home replica (its entries); pinned means only a client\u2019s X-LMW-Replica'),
      chip('Admission', d.admission ? 'on' : 'off', d.admission ? 'chip-on' : 'chip-off',
        'sessions whose working set does not fit a replica\u2019s KV budget wait in the router\u2019s queue'),
      chip('Queue', queueText(d.queue), null, 'requests waiting for admission, and how long the oldest has waited'),
      chip('Routers', clusterText(d.cluster), clusterClass(d.cluster),
        'router pods sharing pins and load; agree: every member reported in the same view and sees the same number of pins')
    ]);
    $('discovery').textContent = d.discovery ? 'discovery: ' + d.discovery : '';
    $('cluster-members').textContent = clusterMembers(d.cluster);

    renderCapacity(d.capacity);
    renderTierAdvisor(d.advisor);

    var body = $('replicas-body');
    clear(body);
    var rows = Array.isArray(d.replicas) ? d.replicas : [];
    if (rows.length === 0) {
      append(body, el('tr', { 'class': 'empty-row' }, el('td', { colspan: REPLICA_COLUMNS, text: 'no replicas discovered yet' })));
    }
    var windowSeconds = rows.length && rows[0].recent && isNum(rows[0].recent.windowSeconds) ? rows[0].recent.windowSeconds : 300;
    $('recent-hit-head').textContent = 'Hit % last ' + fmtWindow(windowSeconds);
    rows.forEach(function (r) {
      append(body, replicaRow(r));
      if (allDetailsOpen || openDetails[r.id]) append(body, detailRow(r));
    });
    $('details-toggle').textContent = allDetailsOpen ? 'Hide the replicas\u2019 sessions and spills'
      : 'Show every replica\u2019s sessions and spills';

    var started = Date.parse(d.startedAt);
    var note = 'Counters run since the router started';
    if (isNum(started)) {
      note += ' (' + new Date(started).toLocaleString('en-GB') + ', ' + fmtDuration(Date.now() - started) + ' ago)';
    }
    note += '. Running, waiting, KV cache and prefix hits are the engines\u2019 own metrics.';
    $('counters-note').textContent = note;

    syncPolicyForm(d);
  }

  function queueText(q) {
    if (!q || !isNum(q.length)) return DASH;
    if (q.length === 0) return '0';
    return fmtInt(q.length) + ' (oldest ' + (isNum(q.oldestWaitSeconds) ? q.oldestWaitSeconds.toFixed(0) : '?') + ' s)';
  }

  /** Resident sessions, and their working sets against the replica's KV budget. */
  function residentCell(r) {
    var td = meterCell('resident', isNum(r.workingSetTokens) && isNum(r.kvBudgetTokens) && r.kvBudgetTokens > 0
      ? r.workingSetTokens / r.kvBudgetTokens : null, 'kv',
      fmtInt(r.residentSessions) + ' resident sessions; working sets ' + fmtInt(r.workingSetTokens) + ' of '
        + fmtInt(r.kvBudgetTokens) + ' budget tokens');
    td.insertBefore(el('span', { 'class': 'resident-count', text: fmtInt(r.residentSessions) + ' ' }), td.firstChild);
    return td;
  }

  function numCell(col, v, title) {
    var zero = isNum(v) && v === 0;
    return el('td', { 'data-col': col, 'class': zero ? 'zero' : null, title: title }, fmtInt(v));
  }

  function meterCell(col, fraction, kind, title) {
    var td = el('td', { 'data-col': col, title: title });
    if (!isNum(fraction)) { td.textContent = DASH; return td; }
    var pct = Math.max(0, Math.min(1, fraction)) * 100;
    var fillCls = 'meter-fill ' + kind + (kind === 'kv' && fraction >= 0.9 ? ' hot' : '');
    append(td, el('span', { 'class': 'meter' },
      el('span', { 'class': 'meter-track' }, el('span', { 'class': fillCls, style: 'width:' + pct.toFixed(1) + '%' })),
      el('span', { 'class': 'meter-val', text: fmtPct(fraction) })));
    return td;
  }

  var REPLICA_COLUMNS = 14;
  var openDetails = {};
  var allDetailsOpen = false;
  var lastReplicas = null;

  function fmtWindow(seconds) {
    if (!isNum(seconds)) return DASH;
    return seconds % 60 === 0 ? (seconds / 60) + ' min' : seconds + ' s';
  }

  /** The engine's prefix-cache hit rate since it started, from its raw counters when it reports them. */
  function sinceStartHitRate(r) {
    if (isNum(r.prefixCacheQueries) && r.prefixCacheQueries > 0 && isNum(r.prefixCacheHits)) {
      return r.prefixCacheHits / r.prefixCacheQueries;
    }
    return null;
  }

  function replicaRow(r) {
    var since = sinceStartHitRate(r);
    var sinceTitle = since === null ? 'no prefix-cache queries since the engine started'
      : fmtInt(r.prefixCacheHits) + ' of ' + fmtInt(r.prefixCacheQueries) + ' prompt tokens from the prefix cache since the engine started';
    var recent = r.recent || {};
    var recentTitle = isNum(recent.prefixHitRate)
      ? fmtInt(recent.prefixCacheHits) + ' of ' + fmtInt(recent.prefixCacheQueries) + ' prompt tokens from the prefix cache in the last '
        + fmtWindow(recent.coveredSeconds < recent.windowSeconds ? Math.round(recent.coveredSeconds) : recent.windowSeconds)
      : 'no prefix-cache queries in the window';
    var kvTitle = isNum(r.kvCapacityTokens) ? 'KV capacity ' + fmtInt(r.kvCapacityTokens) + ' tokens' : null;
    var draining = r.drain === 'draining' || r.drain === 'drained';
    var readyCell = el('td', { 'class': 'l', 'data-col': 'ready', 'data-drain': r.drain || 'none',
      title: draining ? (r.drain === 'draining' ? 'takes no new sessions; its requests in flight finish, its sessions move at their next step (DRAIN)'
        : 'drained: nothing in flight here; its sessions move at their next step (DRAIN)') : null },
      el('span', { 'class': 'dot ' + (r.ready ? 'dot-ok' : draining ? 'dot-drain' : 'dot-bad') }),
      r.ready ? 'ready' : draining ? r.drain : 'not ready');
    if (r.metricsFresh === false) {
      append(readyCell, el('span', { 'class': 'stale', title: 'the router uses its own in-flight count while engine metrics are stale',
        text: 'stale' + (isNum(r.metricsAgeMs) ? ' ' + (r.metricsAgeMs / 1000).toFixed(1) + ' s' : '') }));
    }
    var reqTitle = isNum(r.failures) && r.failures > 0 ? r.failures + ' failed' : null;
    var open = allDetailsOpen || openDetails[r.id];
    var idCell = el('td', { 'class': 'l rid', title: r.url || null },
      el('button', { type: 'button', 'class': 'toggle' + (String(r.id).length > 14 ? ' long-id' : ''), 'data-toggle': r.id, 'aria-expanded': open ? 'true' : 'false',
        title: 'its sessions, spills and chart', onclick: function () { toggleDetails(r.id); } },
        (open ? '\u25be ' : '\u25b8 ') + r.id));
    // The engine's GET /version, and a visible notice when it is older than a feature the router uses with it needs.
    var warnings = r.warnings || [];
    append(idCell, el('span', { 'class': 'engine-version' + (warnings.length ? ' engine-too-old' : ''), 'data-col': 'engineVersion',
      title: warnings.length ? warnings.join('\n') : 'the engine\'s GET /version',
      text: 'vLLM ' + (r.engineVersion || 'unknown') + (warnings.length ? ' \u26a0 ' + warnings.length + ' too old' : '') }));
    var lora = loraLine(r.lora);
    if (lora) append(idCell, lora);
    var runWait = el('td', { 'data-col': 'runWait', title: 'engine: running / waiting' },
      isNum(r.running) || isNum(r.waiting) ? fmtInt(r.running) + ' / ' + fmtInt(r.waiting) : DASH);
    return el('tr', { 'data-replica': r.id },
      idCell,
      readyCell,
      numCell('requests', r.requests, reqTitle),
      numCell('inFlight', r.inFlight),
      numCell('stickySessions', r.stickySessions),
      numCell('spilledIn', r.spilledIn),
      numCell('spilledOut', r.spilledOut, spillTitle(r)),
      numCell('clientPinned', r.clientPinned),
      runWait,
      residentCell(r),
      meterCell('kvCacheUsage', r.kvCacheUsage, 'kv', kvTitle),
      recentHitCell(recent, recentTitle, r.hostTier),
      sinceStartCell(since, sinceTitle, r.hostTier),
      el('td', { 'class': 'l spark-cell', 'data-col': 'chart' }, sparkline(r.series || [])));
  }

  /**
   * A replica's LoRA adapters: the slots its recent sessions' adapters need against its max_loras (more means its batches
   * take turns), and per adapter its sessions, whether the engine has a request of it in flight, whether /v1/models lists it.
   */
  function loraLine(lora) {
    if (!lora) return null;
    var over = lora.adaptersInUse > lora.maxLoras;
    var lines = (lora.adapters || []).map(function (a) {
      return a.name + ': ' + a.sessions + (a.sessions === 1 ? ' session' : ' sessions') + (a.busy ? ', in the engine' : '')
        + (a.listed ? '' : ', not listed');
    });
    return el('span', { 'class': 'lora-slots' + (over ? ' lora-over' : ''), 'data-col': 'lora',
      title: 'LoRA adapters of its sessions of the last minutes: ' + lora.adaptersInUse + ' of ' + lora.maxLoras
        + ' slots (max_loras, from ' + lora.maxLorasFrom + ')' + (lines.length ? '\n' + lines.join('\n') : ''),
      text: 'LoRA ' + lora.adaptersInUse + '/' + lora.maxLoras + ' slots' });
  }

  /** GPU hit % of the recent window and, with a host tier, the tier's hit % of the same window under it. */
  function recentHitCell(recent, recentTitle, tier) {
    var cell = meterCell('recentHitRate', isNum(recent.prefixHitRate) ? recent.prefixHitRate : null, 'hit', recentTitle);
    if (tier) {
      cell.appendChild(el('span', { 'class': 'tier-line', 'data-col': 'recentHostTierHitRate',
        title: 'host KV tier, same window: ' + fmtInt(recent.hostTierHits) + ' of ' + fmtInt(recent.hostTierQueries)
          + ' tokens looked up there loaded from it',
        text: 'host ' + fmtPct(isNum(recent.hostTierHitRate) ? recent.hostTierHitRate : null) }));
    }
    return cell;
  }

  /** GPU hit % since the engine started and, under it, its host-memory KV tier's (hits, size, learned bandwidth in the title). */
  function sinceStartCell(since, sinceTitle, tier) {
    if (!tier) {
      return el('td', { 'data-col': 'prefixHitRate', title: sinceTitle, text: fmtPct(since) });
    }
    var tierTitle = 'host KV tier: ' + tier.sizeGib + ' GiB = ' + fmtInt(tier.capacityTokens) + ' tokens; '
      + fmtInt(tier.hitTokens) + ' of ' + fmtInt(tier.queriedTokens) + ' tokens looked up there loaded from it; load '
      + (tier.loadBytesPerSecond / 1e9).toFixed(1) + ' GB/s (engine time, ' + (tier.learned ? 'learned' : 'assumed until loads tell') + ')';
    return el('td', { 'data-col': 'prefixHitRate', title: 'GPU: ' + sinceTitle + '\n' + tierTitle },
      'GPU ' + fmtPct(since),
      el('span', { 'class': 'tier-line', 'data-col': 'hostTierHitRate', text: 'host ' + fmtPct(tier.hitRate) }));
  }

  function spillTitle(r) {
    var to = Array.isArray(r.spilledTo) ? r.spilledTo : [];
    if (to.length === 0) return 'no step spilled off this replica';
    return 'to ' + to.map(function (d) { return d.to + ' \u00d7' + d.count; }).join(', ');
  }

  function toggleDetails(id) {
    if (allDetailsOpen) {
      allDetailsOpen = false;
      (lastReplicas || []).forEach(function (r) { openDetails[r.id] = r.id !== id; });
    } else {
      openDetails[id] = !openDetails[id];
    }
    if (lastRendered) renderReplicas(lastRendered);
  }

  /** Requests (bars) and the engine's hit % (line) per bucket, in a cell. */
  function sparkline(series) {
    return bucketChart(series, { width: 96, height: 24, pad: 1, labels: false });
  }

  /** A chart of a replica's buckets: request bars scaled to the busiest, the hit % as a line on 0–100 %. */
  function bucketChart(series, o) {
    var W = o.width, H = o.height, P = o.pad;
    var L = o.labels ? 30 : P, R = o.labels ? 34 : P, T = o.labels ? 8 : P, B = o.labels ? 14 : P;
    var root = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'class': o.labels ? 'bucket-chart' : 'spark',
      'data-buckets': series.length, role: 'img' });
    var plotW = W - L - R, plotH = H - T - B;
    var slots = 30;
    var maxReq = 0;
    series.forEach(function (b) { maxReq = Math.max(maxReq, b.requests || 0); });
    var top = o.labels ? niceMax(maxReq) : Math.max(1, maxReq);
    var slotW = plotW / slots;
    var lastT = series.length ? series[series.length - 1].t : 0;
    var points = [];
    series.forEach(function (b) {
      var slot = slots - 1 - Math.round((lastT - b.t) / 10000);
      if (slot < 0) return;
      var x = L + slot * slotW;
      var h = (b.requests || 0) / top * plotH;
      var tip = fmtClock(b.t) + ': ' + fmtInt(b.requests) + ' requests'
        + (b.prefixCacheQueries > 0 ? ', ' + fmtPct(b.prefixCacheHits / b.prefixCacheQueries) + ' prefix hits' : '');
      append(root, svg('rect', { 'class': 'spark-req', x: x + 0.5, y: T + plotH - h, width: Math.max(1, slotW - 1), height: Math.max(0, h),
        'data-t': b.t, 'data-requests': b.requests || 0 }, svg('title', { text: tip })));
      if (b.prefixCacheQueries > 0) {
        points.push({ x: x + slotW / 2, y: T + plotH - (b.prefixCacheHits / b.prefixCacheQueries) * plotH,
          rate: b.prefixCacheHits / b.prefixCacheQueries });
      }
    });
    if (points.length) {
      append(root, svg('polyline', { 'class': 'spark-hit', fill: 'none',
        points: points.map(function (p) { return p.x.toFixed(1) + ',' + p.y.toFixed(1); }).join(' '),
        'data-rates': points.map(function (p) { return p.rate.toFixed(4); }).join(' ') }));
    }
    if (o.labels) {
      append(root, svg('line', { 'class': 'base-line', x1: L, x2: W - R, y1: T + plotH, y2: T + plotH }));
      append(root, svg('text', { 'class': 'axis', x: L - 4, y: T + 6, 'text-anchor': 'end', text: fmtInt(top) }));
      append(root, svg('text', { 'class': 'axis', x: L - 4, y: T + plotH, 'text-anchor': 'end', text: '0' }));
      append(root, svg('text', { 'class': 'axis hit-axis', x: W - R + 4, y: T + 6, text: '100%' }));
      append(root, svg('text', { 'class': 'axis hit-axis', x: W - R + 4, y: T + plotH, text: '0%' }));
      append(root, svg('text', { 'class': 'axis', x: L, y: H - 2, text: '\u2212' + fmtWindow(slots * 10) }));
      append(root, svg('text', { 'class': 'axis', x: W - R, y: H - 2, 'text-anchor': 'end', text: 'now' }));
    }
    return root;
  }

  /** Under a replica's row: the recent sessions whose home it is, the steps that spilled off it and where to, its chart. */
  /** Where placement's idea of this replica's cache comes from: the engine's KV events, or the router's estimates. */
  function cacheViewLine(r) {
    var k = r.kvEvents;
    var text = 'cache view: ' + (r.cacheView || 'estimated');
    if (k && r.cacheView === 'events') {
      text += ' (' + fmtInt(k.gpuBlocks) + ' GPU blocks' + (k.cpuBlocks > 0 ? ', ' + fmtInt(k.cpuBlocks) + ' CPU' : '') + ')';
    } else if (k) {
      text += ' (events ' + k.state + ')';
    }
    return el('div', { 'class': 'muted cache-view', 'data-cache-view': r.cacheView || 'estimated',
      title: k ? 'KV events: ' + fmtInt(k.batches) + ' batches, ' + fmtInt(k.gaps) + ' gaps, ' + fmtInt(k.resyncs) + ' resyncs'
        : 'no KV-event publisher followed for this replica', text: text });
  }

  function detailRow(r) {
    var sessions = Array.isArray(r.recentSessions) ? r.recentSessions : [];
    var sessBox = el('div', { 'class': 'detail-block detail-sessions' },
      el('div', { 'class': 'detail-title' }, 'Sessions here ', el('span', { 'class': 'muted',
        text: '(' + fmtInt(r.recentSessionCount) + ' recent' + (r.recentSessionCount > sessions.length ? ', latest ' + sessions.length + ' shown' : '') + ')' })));
    if (sessions.length === 0) append(sessBox, el('div', { 'class': 'muted', text: 'no recent session has its home here' }));
    var list = el('div', { 'class': 'chip-list' });
    sessions.forEach(function (s) {
      append(list, el('button', { type: 'button', 'class': 'recent-key' + (s.sticky ? '' : ' not-sticky'), 'data-session': s.key,
        title: s.key + ': ' + s.steps + ' steps, latest ' + fmtClockMillis(s.lastMillis)
          + (s.sticky ? '; sticky to this replica' : '; not sticky (its latest step ran here)'),
        text: s.key, onclick: function () { $('session-input').value = s.key; showSession(s.key); } }));
    });
    append(sessBox, list);

    var to = Array.isArray(r.spilledTo) ? r.spilledTo : [];
    var spills = Array.isArray(r.recentSpills) ? r.recentSpills : [];
    var spillBox = el('div', { 'class': 'detail-block detail-spills' },
      el('div', { 'class': 'detail-title' }, 'Spilled out ', el('span', { 'class': 'muted', text: fmtInt(r.spilledOut) + ' since the router started' })));
    if (to.length === 0) append(spillBox, el('div', { 'class': 'muted', text: 'no step spilled off this replica' }));
    append(spillBox, el('div', { 'class': 'chip-list' }, to.map(function (d) {
      return el('span', { 'class': 'spill-dest', 'data-to': d.to, 'data-count': d.count }, '\u2192 ', el('b', { text: d.to }), ' \u00d7' + d.count);
    })));
    append(spillBox, spills.map(function (sp) {
      return el('div', { 'class': 'spill-item', 'data-session': sp.session, 'data-to': sp.to },
        el('span', { 'class': 'mono', text: fmtClockMillis(sp.epochMillis) }), ' ',
        el('span', { 'class': 'mono', text: sp.session }), ' \u2192 ', el('b', { text: sp.to }));
    }));

    var chartBox = el('div', { 'class': 'detail-block detail-chart' },
      el('div', { 'class': 'detail-title' }, 'Requests and prefix hits ', el('span', { 'class': 'muted', text: 'per 10 s, last 5 min' })),
      bucketChart(r.series || [], { width: 300, height: 86, pad: 1, labels: true }),
      el('div', { 'class': 'muted legend-mini' }, el('i', { 'class': 'sw sw-req' }), 'requests ', el('i', { 'class': 'sw sw-hit' }), 'hit %'),
      cacheViewLine(r));

    var drainOn = r.drain === 'draining' || r.drain === 'drained';
    var drainStatus = el('div', { 'class': 'muted drain-status' });
    var drainBox = el('div', { 'class': 'detail-block detail-drain' },
      el('div', { 'class': 'detail-title' }, 'Rotation'),
      el('button', { type: 'button', 'class': 'drain-button', 'data-drain-for': r.id, 'data-action': drainOn ? 'undrain' : 'drain',
        title: drainOn ? 'take it back into rotation' : 'no new sessions here; requests in flight finish; its sessions move at their next step',
        text: drainOn ? 'Undrain' : 'Drain', onclick: function (ev) { setDrain(r.id, !drainOn, ev.target, drainStatus); } }),
      drainStatus);

    return el('tr', { 'class': 'detail-row', 'data-detail-for': r.id },
      el('td', { colspan: REPLICA_COLUMNS }, el('div', { 'class': 'detail' }, sessBox, spillBox, chartBox, drainBox)));
  }

  /** POST (drain) or DELETE (undrain) /api/replicas/{id}/drain, then the table again. */
  function setDrain(id, on, button, status) {
    button.disabled = true;
    status.textContent = on ? 'draining\u2026' : 'undraining\u2026';
    getJson('/api/replicas/' + encodeURIComponent(id) + '/drain', { method: on ? 'POST' : 'DELETE' }).then(function (reply) {
      status.textContent = reply.ok ? (reply.body && reply.body.drain) : 'HTTP ' + reply.status + ': ' + errorMessage(reply);
      return reply.ok ? refreshReplicas() : null;
    }).catch(function (e) {
      status.textContent = 'request failed: ' + (e.message || e);
    }).then(function () { button.disabled = false; });
  }

  function renderCapacity(c) {
    var box = $('capacity');
    clear(box);
    if (!c || typeof c !== 'object') { box.hidden = true; box.removeAttribute('data-over-capacity'); return; }
    var demand = fmtInt(c.activeSessions) + ' active sessions need ' + fmtInt(c.demandTokens)
      + ' distinct tokens of context';
    box.title = c.message || '';
    if (c.overCapacity) {
      box.className = 'advisor';
      append(box, el('b', { text: '\u26a0 Capacity advisor: over capacity. ' }),
        demand + ' > ' + fmtInt(c.poolKvTokens) + ' tokens of KV cache in the pool. ',
        'Sessions evict each other\u2019s cached prefixes: add replicas or lower the number of concurrent sessions.');
    } else {
      var share = isNum(c.demandTokens) && isNum(c.poolKvTokens) && c.poolKvTokens > 0
        ? ' (' + Math.round(100 * c.demandTokens / c.poolKvTokens) + '%)' : '';
      box.className = 'advisor fine';
      append(box, 'Capacity: ' + demand + ' of ' + fmtInt(c.poolKvTokens) + ' tokens of KV cache in the pool' + share + '.');
    }
    if (c.admission) {
      append(box, el('span', { 'class': 'admission-note', text: ' ' + c.admission.charAt(0).toUpperCase() + c.admission.slice(1) + '.' }));
    }
    box.hidden = false;
    box.setAttribute('data-over-capacity', c.overCapacity ? 'true' : 'false');
  }

  /** One line: what a host-memory KV tier would buy, from the advisor's replay of the recent steps. */
  function renderTierAdvisor(a) {
    var box = $('tier-advisor');
    clear(box);
    if (!a || typeof a !== 'object' || !a.recommendation) { box.hidden = true; return; }
    var sizes = (Array.isArray(a.predictions) ? a.predictions : []).map(function (p) {
      return p.size + ' ' + fmtPct(p.predictedShare);
    }).join(', ');
    box.title = 'predicted share of prompt tokens from cache per tier size (multiples of the GPU KV cache): ' + sizes
      + '; best any tier could do: ' + fmtPct(a.ceilingShare) + '; replay took ' + Math.round(a.replayMillis || 0) + ' ms';
    append(box, el('b', { text: 'Host tier advisor: ' }), a.message + '.');
    box.hidden = false;
  }

  function syncPolicyForm(d) {
    var select = $('policy-select');
    var names = Array.isArray(d.policies) ? d.policies : [];
    if (names.join(',') !== knownPolicies) {
      knownPolicies = names.join(',');
      clear(select);
      names.forEach(function (n) { append(select, el('option', { value: n, text: n })); });
      policyDirty = false;
    }
    if (!policyDirty && d.policy) select.value = d.policy;
    if (!spillDirty && document.activeElement !== $('spill-input')) {
      $('spill-input').value = d.spillThreshold || 'auto';
    }
  }

  function applyPolicy(ev) {
    ev.preventDefault();
    var status = $('policy-status');
    var spill = $('spill-input').value.trim() || 'auto';
    var headers = { 'Content-Type': 'application/json' };
    var token = $('token-input').value.trim();
    if (token) {
      headers.Authorization = 'Bearer ' + token;
      sessionStorage.setItem('lmwAdminToken', token);
    }
    $('policy-apply').disabled = true;
    status.className = 'policy-status';
    status.textContent = 'applying\u2026';
    getJson('/api/policy', {
      method: 'PUT', headers: headers,
      body: JSON.stringify({ policy: $('policy-select').value, spillThreshold: spill })
    }).then(function (reply) {
      if (reply.ok) {
        policyDirty = false;
        spillDirty = false;
        status.className = 'policy-status ok';
        status.textContent = 'applied: ' + (reply.body && reply.body.policy) + ', spill ' + (reply.body && reply.body.spillThreshold);
        return refreshReplicas();
      }
      status.className = 'policy-status bad';
      status.textContent = 'HTTP ' + reply.status + ': ' + errorMessage(reply);
      return null;
    }).catch(function (e) {
      status.className = 'policy-status bad';
      status.textContent = 'request failed: ' + (e.message || e);
    }).then(function () { $('policy-apply').disabled = false; });
  }

  /* ---------- stats ---------- */

  function refreshStats() {
    return getJson('/api/stats').then(function (reply) {
      if (reply.status === 404) {
        renderStats(null, 'No statistics yet: this router does not serve /api/stats (HTTP 404).');
      } else if (!reply.ok || !reply.body) {
        renderStats(null, 'Statistics unavailable: HTTP ' + reply.status + ': ' + errorMessage(reply));
      } else {
        renderStats(reply.body, null);
      }
    }).catch(function (e) {
      renderStats(null, 'Statistics unavailable: ' + (e.message || e));
    });
  }

  var lastStats = null;

  function renderStats(s, problem) {
    lastStats = s;
    var empty = $('stats-empty');
    empty.hidden = !problem;
    empty.textContent = problem || '';
    var chips = $('stats-chips');
    clear(chips);
    var now = (s && s.now) || {};
    var hour = (s && s.lastHour) || {};
    append(chips, [
      chip('Prompt', fmtRate(now.promptTokensPerSec) + ' tok/s', null, 'prompt tokens per second, now'),
      chip('cached', fmtRate(now.cachedTokensPerSec), null, 'engine-reported cached prompt tokens per second, now'),
      chip('computed', fmtRate(now.computedTokensPerSec), null, 'prompt tokens the engines computed, per second, now'),
      chip('Output', fmtRate(now.outputTokensPerSec) + ' tok/s'),
      chip('Cache hit now', fmtPct(now.cachedShare)),
      chip('Cache hit last hour', fmtPct(hour.cachedShare), 'chip-big',
        fmtInt(hour.cachedTokens) + ' of ' + fmtInt(hour.promptTokens) + ' prompt tokens from cache in the last hour')
    ]);
    var diag = $('diagnostics');
    clear(diag);
    var dg = (s && s.diagnostics) || {};
    append(diag, [
      el('span', null, 'requests ', el('b', { text: fmtInt(dg.requests) })),
      el('span', { title: 'steps whose prompt changed before the end of the previous step\u2019s prompt' },
        'prefix breaks ', el('b', { text: fmtInt(dg.prefixBreaks) })),
      el('span', { title: 'steps whose engine reported fewer cached tokens than placement expected' },
        'cache misses ', el('b', { text: fmtInt(dg.cacheMisses) })),
      el('span', { title: 'steps that waited in the queue longer than the cache saved' },
        'queue ate gain ', el('b', { text: fmtInt(dg.queueAteGain) }))
    ]);
    drawStatsCharts();
  }

  function drawStatsCharts() {
    var s = lastStats;
    var bucketMs = (s && isNum(s.bucketSeconds) ? s.bucketSeconds : 60) * 1000;
    var windowMs = (s && isNum(s.windowSeconds) ? s.windowSeconds : 3600) * 1000;
    var hourPoints = (s && Array.isArray(s.series) ? s.series : []).map(function (b) {
      var sec = bucketMs / 1000;
      return {
        t: b.t, cached: (b.cachedTokens || 0) / sec, computed: (b.computedTokens || 0) / sec,
        output: (b.outputTokens || 0) / sec, requests: b.requests
      };
    });
    var livePoints = (s && Array.isArray(s.recent) ? s.recent : []).map(function (p) {
      return { t: p.t, cached: p.cachedTokensPerSec || 0, computed: p.computedTokensPerSec || 0, output: p.outputTokensPerSec || 0 };
    });
    drawTokenChart($('chart-hour'), hourPoints, { slotMs: bucketMs, windowMs: windowMs, tickMs: 10 * 60000, seconds: false });
    drawTokenChart($('chart-live'), livePoints, { slotMs: 1000, windowMs: 120000, tickMs: 30000, seconds: true });
  }

  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var steps = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
    for (var i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
    return 10 * p;
  }

  /** Stacked prompt bars (cached below, computed on top) over green output bars, on a shared time axis. */
  function drawTokenChart(box, points, o) {
    clear(box);
    var W = Math.max(320, Math.floor(box.clientWidth || 600));
    var H = 250;
    var L = 44, R = 8, T = 14;
    var topH = 140, gap = 30, botH = 44;
    var plotW = W - L - R;
    var topY0 = T, topY1 = T + topH;
    var botY0 = topY1 + gap, botY1 = botY0 + botH;

    var lastEnd = points.length ? points[points.length - 1].t + o.slotMs : null;
    var nowMs = Date.now();
    var end = lastEnd === null ? nowMs
      : (Math.abs(nowMs - lastEnd) < o.windowMs ? Math.max(nowMs, lastEnd) : lastEnd);
    var start = end - o.windowMs;
    var inWindow = points.filter(function (p) { return isNum(p.t) && p.t + o.slotMs > start && p.t < end; });

    var maxPrompt = 0, maxOut = 0;
    inWindow.forEach(function (p) {
      maxPrompt = Math.max(maxPrompt, p.cached + p.computed);
      maxOut = Math.max(maxOut, p.output);
    });
    var topMax = niceMax(maxPrompt), botMax = niceMax(maxOut);

    var root = svg('svg', { width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
    function x(t) { return L + (t - start) / o.windowMs * plotW; }

    // grid and y labels
    [0, 0.5, 1].forEach(function (f) {
      var y = topY1 - f * topH;
      append(root, svg('line', { 'class': f === 0 ? 'base-line' : 'grid-line', x1: L, x2: W - R, y1: y, y2: y }));
      append(root, svg('text', { 'class': 'axis', x: L - 5, y: y + 3, 'text-anchor': 'end', text: fmtRate(f * topMax) }));
    });
    [0, 1].forEach(function (f) {
      var y = botY1 - f * botH;
      append(root, svg('line', { 'class': f === 0 ? 'base-line' : 'grid-line', x1: L, x2: W - R, y1: y, y2: y }));
      append(root, svg('text', { 'class': 'axis', x: L - 5, y: y + 3, 'text-anchor': 'end', text: fmtRate(f * botMax) }));
    });
    append(root, svg('text', { 'class': 'panel-label', x: L + 2, y: topY0 - 3, text: 'prompt tok/s' }));
    append(root, svg('text', { 'class': 'panel-label', x: L + 2, y: botY0 - 4, text: 'output tok/s' }));

    var slotW = plotW * o.slotMs / o.windowMs;
    var barW = Math.max(1, slotW - (slotW > 4 ? Math.min(2, slotW * 0.2) : 0));
    inWindow.forEach(function (p) {
      var x0 = Math.max(L, x(p.t));
      var w = Math.min(barW, W - R - x0);
      if (w <= 0) return;
      var hc = p.cached / topMax * topH;
      var hp = p.computed / topMax * topH;
      var ho = p.output / botMax * botH;
      var prompt = p.cached + p.computed;
      var tip = fmtClock(p.t, true) + '\nprompt ' + fmtRate(prompt) + ' tok/s (cached ' + fmtRate(p.cached)
        + ', computed ' + fmtRate(p.computed) + (prompt > 0 ? ', ' + fmtPct(p.cached / prompt) + ' cached' : '')
        + ')\noutput ' + fmtRate(p.output) + ' tok/s' + (isNum(p.requests) ? '\n' + p.requests + ' requests' : '');
      var g = svg('g', { 'class': 'slot' }, svg('title', { text: tip }));
      if (hc > 0) append(g, svg('rect', { x: x0, y: topY1 - hc, width: w, height: hc, 'class': 'bar-cached' }));
      if (hp > 0) append(g, svg('rect', { x: x0, y: topY1 - hc - hp, width: w, height: hp, 'class': 'bar-computed' }));
      if (ho > 0) append(g, svg('rect', { x: x0, y: botY1 - ho, width: w, height: ho, 'class': 'bar-output' }));
      append(root, g);
    });

    // time axis
    var firstTick = Math.ceil(start / o.tickMs) * o.tickMs;
    for (var t = firstTick; t <= end; t += o.tickMs) {
      var tx = x(t);
      append(root, svg('line', { 'class': 'grid-line', x1: tx, x2: tx, y1: botY1, y2: botY1 + 3 }));
      append(root, svg('text', { 'class': 'axis', x: tx, y: botY1 + 14, 'text-anchor': 'middle', text: fmtClock(t, o.seconds) }));
    }

    if (maxPrompt === 0 && maxOut === 0) {
      append(root, svg('text', { 'class': 'no-data', x: L + plotW / 2, y: topY0 + topH / 2, 'text-anchor': 'middle',
        text: points.length ? 'no tokens in this window' : 'no data yet' }));
    }
    box.setAttribute('data-bars', String(inWindow.length));
    append(box, root);
  }

  /* ---------- sessions ---------- */

  var selectedSession = null;
  var knownRecent = '';

  /** The latest sessions in the order they arrived, with sub-second times; a click shows one's steps. */
  function refreshRecentSessions() {
    return getJson('/api/sessions').then(function (reply) {
      if (!reply.ok || !reply.body || !Array.isArray(reply.body.arrivals)) return;
      var rows = reply.body.arrivals;
      var sig = JSON.stringify(rows) + '|' + selectedSession;
      if (sig === knownRecent) return;
      knownRecent = sig;
      var box = $('arrivals-box');
      var atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
      var body = $('arrivals-body');
      clear(body);
      if (rows.length === 0) append(body, el('tr', { 'class': 'empty-row' }, el('td', { colspan: 8, text: 'no sessions yet' })));
      rows.forEach(function (a, i) { append(body, arrivalRow(a, i)); });
      // Newest at the bottom, like a log: follow it unless the reader scrolled up.
      if (atBottom) box.scrollTop = box.scrollHeight;
    }).catch(function () { /* the replicas poll reports connectivity */ });
  }

  function arrivalRow(a, i) {
    var decision = a.lastDecision ? String(a.lastDecision) : null;
    var spills = Array.isArray(a.spills) ? a.spills : [];
    var spillCell = el('td', { 'class': 'l', 'data-col': 'spills' });
    if (spills.length === 0) spillCell.textContent = DASH;
    spills.forEach(function (sp, k) {
      append(spillCell, k > 0 ? ', ' : null, el('span', { 'class': 'spill-hop', 'data-from': sp.from, 'data-to': sp.to,
        title: 'at ' + fmtClockMillis(sp.epochMillis) }, sp.from + ' \u2192 ' + sp.to));
    });
    return el('tr', { 'data-session': a.key, 'class': 'clickable' + (a.key === selectedSession ? ' active' : ''),
      onclick: function () { $('session-input').value = a.key; showSession(a.key); } },
      el('td', { 'data-col': 'index', text: String(i + 1) }),
      el('td', { 'class': 'l mono', 'data-col': 'arrived', 'data-millis': a.firstMillis, text: fmtClockMillis(a.firstMillis) }),
      el('td', { 'class': 'l mono key-cell', 'data-col': 'session', title: a.key, text: a.key }),
      el('td', { 'class': 'l rid', 'data-col': 'home', title: a.sticky ? 'sticky to this replica' : 'its latest step ran here' },
        orDash(a.home), a.sticky ? null : el('span', { 'class': 'muted', text: ' (not sticky)' })),
      el('td', { 'data-col': 'steps', text: fmtInt(a.steps) }),
      el('td', { 'class': 'l mono', 'data-col': 'latest', text: fmtClockMillis(a.lastMillis) }),
      el('td', { 'class': 'l', 'data-col': 'decision' },
        decision ? el('span', { 'class': 'badge d-' + decision.replace(/[^A-Z_]/g, ''), text: decision }) : DASH),
      spillCell);
  }

  function showSession(key) {
    selectedSession = key;
    // A link to the page with #session=<key> opens this session again.
    history.replaceState(null, '', '#session=' + encodeURIComponent(key));
    knownRecent = '';
    refreshRecentSessions();
    return refreshSession();
  }

  function refreshSession() {
    var key = selectedSession;
    if (!key) return null;
    return getJson('/api/sessions/' + encodeURIComponent(key)).then(function (reply) {
      if (key !== selectedSession) return;
      if (!reply.ok || !reply.body) {
        renderSessionError('HTTP ' + reply.status + ': ' + errorMessage(reply));
        return;
      }
      renderSession(reply.body);
    }).catch(function (e) {
      if (key === selectedSession) renderSessionError('request failed: ' + (e.message || e));
    });
  }

  function renderSessionError(message) {
    renderedSession = '';
    var box = $('session-error');
    box.textContent = message;
    box.hidden = false;
    clear($('session-head'));
    $('steps-table').hidden = true;
  }

  var renderedSession = '';

  function renderSession(s) {
    // Re-render only on change, so a reader's text selection survives the refresh.
    var signature = JSON.stringify(s);
    if (signature === renderedSession && $('session-error').hidden) return;
    renderedSession = signature;
    $('session-error').hidden = true;
    var steps = Array.isArray(s.steps) ? s.steps : [];
    var breaks = isNum(s.prefixBreaks) ? s.prefixBreaks
      : steps.filter(function (st) { return st && st.prefixBreak; }).length;
    var misses = isNum(s.cacheMisses) ? s.cacheMisses
      : steps.filter(function (st) { return st && st.cacheMiss === true; }).length;
    var ateGain = isNum(s.queueAteGain) ? s.queueAteGain
      : steps.filter(function (st) { return st && st.queueAteGain === true; }).length;
    var head = $('session-head');
    clear(head);
    append(head, [
      chip('Session', s.key || DASH, 'mono-chip'),
      chip('key from', s.source || DASH),
      chip('model', s.model || DASH),
      chip('home replica', s.replica || DASH),
      chip('steps', String(steps.length)),
      chip('prefix breaks', fmtInt(breaks), breaks > 0 ? 'chip-off' : null),
      chip('cache misses', fmtInt(misses), misses > 0 ? 'chip-off' : null),
      chip('queue ate gain', fmtInt(ateGain), ateGain > 0 ? 'chip-off' : null)
    ]);
    var body = $('steps-body');
    clear(body);
    steps.forEach(function (st, i) {
      var rows = stepRows(st || {}, i);
      rows.forEach(function (r) { append(body, r); });
    });
    if (steps.length === 0) {
      append(body, el('tr', { 'class': 'empty-row' }, el('td', { colspan: 11, text: 'no steps recorded' })));
    }
    $('steps-table').hidden = false;
  }

  function orDash(v) { return v === null || v === undefined || v === '' ? DASH : String(v); }

  function stepRows(st, i) {
    var decision = st.decision ? String(st.decision) : null;
    var decisionCell = el('td', { 'class': 'l', 'data-col': 'decision' },
      decision ? el('span', { 'class': 'badge d-' + decision.replace(/[^A-Z_]/g, ''), text: decision }) : DASH,
      st.sideRequest === true ? el('span', { 'class': 'badge b-side', title: 'shares the session id but continues none of its'
        + ' conversation (a title, a side call): never a prefix break', text: 'side request' }) : null,
      st.reason ? el('div', { 'class': 'why', text: st.reason }) : null);

    var shared = st.sharedPrefixTokens;
    var sharedText = fmtInt(shared);
    if (isNum(shared) && isNum(st.promptTokens) && st.promptTokens > 0 && i > 0) {
      sharedText += ' (' + Math.round(100 * shared / st.promptTokens) + '%)';
    }

    var cachedCell = el('td', { 'data-col': 'cachedTokens' });
    if (!isNum(st.cachedTokens)) cachedCell.textContent = DASH;
    else if (st.cachedTokens < 0) append(cachedCell, el('span', { 'class': 'muted', text: 'not reported' }));
    else append(cachedCell, fmtInt(st.cachedTokens));
    if (st.cacheMiss === true) {
      cachedCell.insertBefore(el('span', { 'class': 'badge b-miss', title: 'the engine read fewer tokens from cache than expected', text: 'miss' }),
        cachedCell.firstChild);
    }

    var ttfbCell = el('td', { 'class': 'l', 'data-col': 'ttfb' });
    append(ttfbCell, el('b', { text: fmtMs(st.ttfbMillis) }));
    var split = st.ttfbSplit;
    if (split && typeof split === 'object') {
      var splitTitle = 'router / queue / prefill' + (split.queueSource ? '; queue time from ' + split.queueSource : '')
        + (isNum(split.savedMs) ? '; the cache saved ~' + fmtMs(split.savedMs) + ' of prefill' : '');
      append(ttfbCell, ' ', el('span', { 'class': 'split', title: splitTitle },
        el('span', { 'class': 'seg-router', text: fmtMs(split.routerMs) }), ' / ',
        el('span', { 'class': 'seg-queue', text: fmtMs(split.queueMs) }), ' / ',
        el('span', { 'class': 'seg-prefill', text: fmtMs(split.prefillMs) })));
    } else {
      append(ttfbCell, ' ', el('span', { 'class': 'split muted', title: 'router share; queue and prefill not reported' },
        fmtMs(st.routerMillis) + ' / ' + DASH + ' / ' + DASH));
    }
    if (st.queueAteGain === true) {
      append(ttfbCell, el('div', null, el('span', { 'class': 'badge b-gain', title: 'the queue on the home replica cost more than the cache saved', text: 'queue ate gain' })));
    }

    var streamCell = el('td', { 'class': 'l', 'data-col': 'completed' });
    if (st.completed === true) append(streamCell, el('span', { 'class': 'badge b-ok', text: 'completed' }));
    else if (st.completed === false) append(streamCell, el('span', { 'class': 'badge b-bad', text: 'not completed' }));
    else append(streamCell, DASH);
    if (isNum(st.status) && st.status !== 200) append(streamCell, el('span', { 'class': 'muted', text: 'HTTP ' + st.status }));
    if (st.outcome && st.outcome !== 'ok') append(streamCell, el('div', { 'class': 'why', text: st.outcome }));

    var pb = st.prefixBreak && typeof st.prefixBreak === 'object' ? st.prefixBreak : null;
    var row = el('tr', { 'class': pb ? 'break-row' : null, 'data-step': i },
      el('td', { text: String(i + 1) }),
      el('td', { 'class': 'l', 'data-col': 'time', text: fmtClockMillis(st.epochMillis) }),
      el('td', { 'class': 'l rid', 'data-col': 'replica', text: orDash(st.replica) }),
      decisionCell,
      el('td', { 'data-col': 'promptTokens', text: fmtInt(st.promptTokens) }),
      el('td', { 'data-col': 'sharedPrefixTokens', text: sharedText }),
      el('td', { 'data-col': 'expectedCachedTokens', text: fmtInt(st.expectedCachedTokens) }),
      cachedCell,
      el('td', { 'data-col': 'outputTokens', text: fmtInt(st.outputTokens) }),
      ttfbCell,
      streamCell);
    if (!pb) return [row];
    var where = isNum(pb.charInSegment) ? ' (char ' + fmtInt(pb.charInSegment) + ' of it)' : '';
    var note = 'Prefix break at token ' + fmtInt(pb.atToken) + ' (char ' + fmtInt(pb.atChar) + ') in '
      + orDash(pb.segment) + where + '; the previous prompt had ' + fmtInt(pb.previousTokens)
      + ' tokens, everything after the break is computed again.';
    // The 64 characters from the block where the prompts part: what changed is in there.
    var changed = pb.text ? el('div', { 'class': 'break-text' }, 'now reads: ',
      el('code', { 'class': 'mono', 'data-break-text': i, text: '\u2026' + pb.text + '\u2026' })) : null;
    return [row, el('tr', { 'class': 'break-note', 'data-break-for': i },
      el('td', null), el('td', { colspan: 10 }, '\u26a0 ' + note, changed))];
  }

  /* ---------- start ---------- */

  $('policy-form').addEventListener('submit', applyPolicy);
  $('details-toggle').addEventListener('click', function () {
    allDetailsOpen = !allDetailsOpen;
    openDetails = {};
    if (lastRendered) renderReplicas(lastRendered);
  });
  $('policy-select').addEventListener('change', function () { policyDirty = true; });
  $('spill-input').addEventListener('input', function () { spillDirty = true; });
  $('session-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    var key = $('session-input').value.trim();
    if (key) showSession(key);
  });
  var resizeTimer = null;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(drawStatsCharts, 150);
  });

  var linked = /^#session=(.+)$/.exec(location.hash);
  if (linked) {
    try {
      selectedSession = decodeURIComponent(linked[1]);
      $('session-input').value = selectedSession;
    } catch (e) { selectedSession = null; }
  }

  every(REPLICAS_EVERY_MS, refreshReplicas);
  every(STATS_EVERY_MS, refreshStats);
  every(SESSIONS_EVERY_MS, function () {
    return Promise.all([refreshRecentSessions(), refreshSession()]);
  });
}());
