/* The statistics card: token rates now and over the last hour, the diagnostics, and their charts. */

import { getJson, errorMessage } from './api.js';
import { drawTokenChart } from './charts.js';
import { $, append, chip, clear, el } from './dom.js';
import { fmtInt, fmtPct, fmtRate, isNum } from './format.js';

export function refreshStats() {
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

/** The last /api/stats answer, drawn again when the window is resized. */
let lastStats = null;

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

export function drawStatsCharts() {
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
