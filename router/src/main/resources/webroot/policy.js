/* The policy form: the policy and spill threshold in force, and PUT /api/policy to change them. */

import { errorMessage, getJson, rememberToken } from './api.js';
import { $, append, clear, el } from './dom.js';

/** Edits the reader has not applied yet are not overwritten by the next refresh. */
let policyDirty = false;
let spillDirty = false;
let knownPolicies = '';

export function syncPolicyForm(d) {
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

function applyPolicy(ev, onApplied) {
  ev.preventDefault();
  var status = $('policy-status');
  var spill = $('spill-input').value.trim() || 'auto';
  var headers = { 'Content-Type': 'application/json' };
  var token = $('token-input').value.trim();
  if (token) {
    headers.Authorization = 'Bearer ' + token;
    rememberToken(token);
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
      return onApplied();
    }
    status.className = 'policy-status bad';
    status.textContent = 'HTTP ' + reply.status + ': ' + errorMessage(reply);
    return null;
  }).catch(function (e) {
    status.className = 'policy-status bad';
    status.textContent = 'request failed: ' + (e.message || e);
  }).then(function () { $('policy-apply').disabled = false; });
}


/** @param onApplied what to refresh once a change is applied */
export function initPolicyForm(onApplied) {
  $('policy-form').addEventListener('submit', function (ev) { applyPolicy(ev, onApplied); });
  $('policy-select').addEventListener('change', function () { policyDirty = true; });
  $('spill-input').addEventListener('input', function () { spillDirty = true; });
}
