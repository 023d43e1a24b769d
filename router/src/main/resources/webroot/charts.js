/* The dashboard's SVG charts: a replica's 10 s buckets (requests and hit %), and the token-rate panels. */

import { append, clear, svg } from './dom.js';
import { fmtClock, fmtInt, fmtPct, fmtRate, fmtWindow, isNum, niceMax } from './format.js';

/** Requests (bars) and the engine's hit % (line) per bucket, in a cell. */
export function sparkline(series) {
  return bucketChart(series, { width: 96, height: 24, pad: 1, labels: false });
}

/** A chart of a replica's buckets: request bars scaled to the busiest, the hit % as a line on 0–100 %. */
export function bucketChart(series, o) {
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

/** Stacked prompt bars (cached below, computed on top) over green output bars, on a shared time axis. */
export function drawTokenChart(box, points, o) {
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
