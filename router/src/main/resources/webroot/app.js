/* LM Warden dashboard: polls the router's JSON admin API and renders it. ES modules, no build step, no libraries:
 * dom.js and format.js are the helpers, api.js the admin API, charts.js the SVG charts, replicas.js (with replica-row.js,
 * advisors.js and policy.js) the replicas card, stats.js the statistics card, sessions.js the sessions card. */

import { every } from './api.js';
import { initReplicas, refreshReplicas } from './replicas.js';
import { initSessions, refreshRecentSessions, refreshSession } from './sessions.js';
import { drawStatsCharts, refreshStats } from './stats.js';

const REPLICAS_EVERY_MS = 1000;
const STATS_EVERY_MS = 2000;
const SESSIONS_EVERY_MS = 2000;

initReplicas();
initSessions();
let resizeTimer = null;
window.addEventListener('resize', function () {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(drawStatsCharts, 150);
});

every(REPLICAS_EVERY_MS, refreshReplicas);
every(STATS_EVERY_MS, refreshStats);
every(SESSIONS_EVERY_MS, function () {
  return Promise.all([refreshRecentSessions(), refreshSession()]);
});
