/* The capacity advisor's line (KV demand against the pool) and the host-tier advisor's (what a host KV tier would buy). */

import { $, append, clear, el } from './dom.js';
import { fmtInt, fmtPct, isNum } from './format.js';

export function renderCapacity(c) {
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
export function renderTierAdvisor(a) {
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
