/* The sessions card: the latest sessions in arrival order, and one session's steps with what each found in cache. */

import { getJson, errorMessage } from './api.js';
import { $, append, chip, clear, el } from './dom.js';
import { DASH, fmtClockMillis, fmtInt, fmtMs, isNum, orDash } from './format.js';

/** The session whose steps are shown, and the signature of the arrivals list last drawn. */
let selectedSession = null;
let knownRecent = '';
/** The signature of the session last drawn: redrawn only on change, so a reader's text selection survives. */
let renderedSession = '';

/** The latest sessions in the order they arrived, with sub-second times; a click shows one's steps. */
export function refreshRecentSessions() {
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

export function showSession(key) {
  selectedSession = key;
  // A link to the page with #session=<key> opens this session again.
  history.replaceState(null, '', '#session=' + encodeURIComponent(key));
  knownRecent = '';
  refreshRecentSessions();
  return refreshSession();
}

export function refreshSession() {
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


/** The session form, and a page opened as #session=<key> shows that session. */
export function initSessions() {
  $('session-form').addEventListener('submit', function (ev) {
    ev.preventDefault();
    const key = $('session-input').value.trim();
    if (key) showSession(key);
  });
  const linked = /^#session=(.+)$/.exec(location.hash);
  if (linked) {
    try {
      selectedSession = decodeURIComponent(linked[1]);
      $('session-input').value = selectedSession;
    } catch (e) { selectedSession = null; }
  }
}
