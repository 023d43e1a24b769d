/* One replica's row of the replicas table, and the detail row under it. */

import { getJson, errorMessage } from './api.js';
import { bucketChart, sparkline } from './charts.js';
import { $, append, el } from './dom.js';
import { DASH, fmtClockMillis, fmtInt, fmtPct, fmtWindow, isNum } from './format.js';
import { showSession } from './sessions.js';

/** Columns of the table, for the rows that span it. */
export const REPLICA_COLUMNS = 14;

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

/** The engine's prefix-cache hit rate since it started, from its raw counters when it reports them. */
function sinceStartHitRate(r) {
  if (isNum(r.prefixCacheQueries) && r.prefixCacheQueries > 0 && isNum(r.prefixCacheHits)) {
    return r.prefixCacheHits / r.prefixCacheQueries;
  }
  return null;
}

export function replicaRow(r, open, onToggle) {
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
  var idCell = el('td', { 'class': 'l rid', title: r.url || null },
    el('button', { type: 'button', 'class': 'toggle' + (String(r.id).length > 14 ? ' long-id' : ''), 'data-toggle': r.id, 'aria-expanded': open ? 'true' : 'false',
      title: 'its sessions, spills and chart', onclick: function () { onToggle(r.id); } },
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

/** Under a replica's row: the recent sessions whose home it is, the steps that spilled off it and where to, its chart, its drain button. */
export function detailRow(r, onChanged) {
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
      text: drainOn ? 'Undrain' : 'Drain', onclick: function (ev) { setDrain(r.id, !drainOn, ev.target, drainStatus, onChanged); } }),
    drainStatus);

  return el('tr', { 'class': 'detail-row', 'data-detail-for': r.id },
    el('td', { colspan: REPLICA_COLUMNS }, el('div', { 'class': 'detail' }, sessBox, spillBox, chartBox, drainBox)));
}

/** POST (drain) or DELETE (undrain) /api/replicas/{id}/drain, then the table again. */
function setDrain(id, on, button, status, onChanged) {
  button.disabled = true;
  status.textContent = on ? 'draining\u2026' : 'undraining\u2026';
  getJson('/api/replicas/' + encodeURIComponent(id) + '/drain', { method: on ? 'POST' : 'DELETE' }).then(function (reply) {
    status.textContent = reply.ok ? (reply.body && reply.body.drain) : 'HTTP ' + reply.status + ': ' + errorMessage(reply);
    return reply.ok ? onChanged() : null;
  }).catch(function (e) {
    status.textContent = 'request failed: ' + (e.message || e);
  }).then(function () { button.disabled = false; });
}
