/* The replicas card: routing chips, the advisors' lines, and the table of replicas, polled from /api/replicas. */

import { renderCapacity, renderTierAdvisor } from './advisors.js';
import { errorMessage, getJson } from './api.js';
import { $, append, chip, clear, el, updateRowsByKey } from './dom.js';
import { DASH, fmtClock, fmtDuration, fmtInt, fmtWindow, isNum } from './format.js';
import { initPolicyForm, syncPolicyForm } from './policy.js';
import { detailRow, REPLICA_COLUMNS, replicaRow } from './replica-row.js';

/** Which replicas' detail rows are open (by id), or all of them; the last answer, drawn again when one is toggled. */
let openDetails = {};
let allDetailsOpen = false;
let lastAnswer = null;
let refreshes = 0;

export function refreshReplicas() {
  return getJson('/api/replicas').then(function (reply) {
    if (!reply.ok || !reply.body) throw new Error('HTTP ' + reply.status + ': ' + errorMessage(reply));
    renderReplicas(reply.body);
    refreshes++;
    document.body.setAttribute('data-replica-refreshes', String(refreshes));
    setConnection(true, 'live');
    $('updated').textContent = 'updated ' + fmtClock(Date.now());
  }).catch(function (e) {
    setConnection(false, 'offline');
    $('updated').textContent = String(e.message || e);
  });
}

function setConnection(ok, text) {
  const c = $('conn');
  c.className = 'conn ' + (ok ? 'conn-ok' : 'conn-bad');
  c.textContent = text;
}

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

function queueText(q) {
  if (!q || !isNum(q.length)) return DASH;
  if (q.length === 0) return '0';
  return fmtInt(q.length) + ' (oldest ' + (isNum(q.oldestWaitSeconds) ? q.oldestWaitSeconds.toFixed(0) : '?') + ' s)';
}

/** Admission: off (not configured), idle (on, the KV budget does not apply now: the pool does not thrash), engaged. */
function admissionChip(d) {
  if (!d.admission) {
    return chip('Admission', 'off', 'chip-off', 'admission is switched off: every step goes where the policy sends it');
  }
  const engaged = !!(d.queue && d.queue.thrash && d.queue.thrash.engaged);
  return engaged
    ? chip('Admission', 'engaged', 'chip-on', 'the pool thrashes and holding sessions pays: sessions whose working set does '
      + 'not fit a replica\u2019s KV budget wait in the router\u2019s queue')
    : chip('Admission', 'idle', null, 'admission is on; the KV budget does not apply now (the pool does not thrash, or '
      + 'holding sessions would not pay), so every step goes where the policy sends it');
}

function renderChips(d) {
  const chips = $('routing-chips');
  clear(chips);
  const manual = d.spillThreshold && d.spillThreshold !== 'auto';
  const spillText = isNum(d.spillThresholdValue) ? d.spillThresholdValue + (manual ? ' (manual)' : ' (auto)')
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
    admissionChip(d),
    chip('Queue', queueText(d.queue), null, 'requests waiting for admission, and how long the oldest has waited'),
    chip('Routers', clusterText(d.cluster), clusterClass(d.cluster),
      'router pods sharing pins and load; agree: every member reported in the same view and sees the same number of pins')
  ]);
  $('discovery').textContent = d.discovery ? 'discovery: ' + d.discovery : '';
  $('cluster-members').textContent = clusterMembers(d.cluster);
}

/** The table's rows by key: a replica's row, its detail row when open; only what changed is written. */
function renderTable(replicas) {
  const rows = [];
  if (replicas.length === 0) {
    rows.push({ key: 'empty', node: el('tr', { 'class': 'empty-row' }, el('td', { colspan: REPLICA_COLUMNS, text: 'no replicas discovered yet' })) });
  }
  replicas.forEach(function (r) {
    const open = allDetailsOpen || !!openDetails[r.id];
    rows.push({ key: 'replica:' + r.id, node: replicaRow(r, open, toggleDetails) });
    if (open) rows.push({ key: 'detail:' + r.id, node: detailRow(r, refreshReplicas) });
  });
  updateRowsByKey($('replicas-body'), rows);
  const windowSeconds = replicas.length && replicas[0].recent && isNum(replicas[0].recent.windowSeconds)
    ? replicas[0].recent.windowSeconds : 300;
  $('recent-hit-head').textContent = 'Hit % last ' + fmtWindow(windowSeconds);
  $('details-toggle').textContent = allDetailsOpen ? 'Hide the replicas\u2019 sessions and spills'
    : 'Show every replica\u2019s sessions and spills';
}

function renderReplicas(d) {
  lastAnswer = d;
  renderChips(d);
  renderCapacity(d.capacity);
  renderTierAdvisor(d.advisor);
  renderTable(Array.isArray(d.replicas) ? d.replicas : []);
  const started = Date.parse(d.startedAt);
  let note = 'Counters run since the router started';
  if (isNum(started)) {
    note += ' (' + new Date(started).toLocaleString('en-GB') + ', ' + fmtDuration(Date.now() - started) + ' ago)';
  }
  note += '. Running, waiting, KV cache and prefix hits are the engines\u2019 own metrics.';
  $('counters-note').textContent = note;
  syncPolicyForm(d);
}

/** Opens or closes one replica's details; with all open, closing one leaves the others open. */
function toggleDetails(id) {
  const replicas = lastAnswer && Array.isArray(lastAnswer.replicas) ? lastAnswer.replicas : [];
  if (allDetailsOpen) {
    allDetailsOpen = false;
    replicas.forEach(function (r) { openDetails[r.id] = r.id !== id; });
  } else {
    openDetails[id] = !openDetails[id];
  }
  if (lastAnswer) renderReplicas(lastAnswer);
}

export function initReplicas() {
  $('details-toggle').addEventListener('click', function () {
    allDetailsOpen = !allDetailsOpen;
    openDetails = {};
    if (lastAnswer) renderReplicas(lastAnswer);
  });
  initPolicyForm(refreshReplicas);
}
