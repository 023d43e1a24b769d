/* Numbers, shares, durations and clock times as the dashboard writes them; a dash for what is unknown. */

export const DASH = '\u2013';

export function isNum(v) { return typeof v === 'number' && isFinite(v); }

export function orDash(v) { return v === null || v === undefined || v === '' ? DASH : String(v); }

export function fmtInt(v) { return isNum(v) ? Math.round(v).toLocaleString('en-US') : DASH; }

export function fmtPct(fraction, digits) {
  if (!isNum(fraction)) return DASH;
  return (fraction * 100).toFixed(digits === undefined ? 1 : digits) + '%';
}

export function fmtRate(v) {
  if (!isNum(v)) return DASH;
  const a = Math.abs(v);
  if (a >= 1e6) return (v / 1e6).toFixed(1) + 'M';
  if (a >= 1e4) return (v / 1e3).toFixed(0) + 'k';
  if (a >= 1e3) return (v / 1e3).toFixed(1) + 'k';
  if (a >= 100 || v === 0) return v.toFixed(0);
  return v.toFixed(1);
}

export function fmtMs(v) {
  if (!isNum(v) || v < 0) return DASH;
  if (v >= 10000) return (v / 1000).toFixed(1) + ' s';
  if (v >= 1000) return (v / 1000).toFixed(2) + ' s';
  return v.toFixed(v < 10 ? 1 : 0) + ' ms';
}

function pad2(n) { return n < 10 ? '0' + n : '' + n; }

export function fmtClock(ms, withSeconds) {
  if (!isNum(ms)) return DASH;
  const d = new Date(ms);
  return pad2(d.getHours()) + ':' + pad2(d.getMinutes()) + (withSeconds === false ? '' : ':' + pad2(d.getSeconds()));
}

/** HH:MM:SS.mmm: steps of one session come within the same second. */
export function fmtClockMillis(ms) {
  if (!isNum(ms)) return DASH;
  return fmtClock(ms) + '.' + String(Math.floor(ms % 1000)).padStart(3, '0');
}

export function fmtDuration(ms) {
  if (!isNum(ms) || ms < 0) return DASH;
  const s = Math.floor(ms / 1000);
  if (s < 60) return s + ' s';
  const m = Math.floor(s / 60);
  if (m < 60) return m + ' min';
  const h = Math.floor(m / 60);
  if (h < 48) return h + ' h ' + (m % 60) + ' min';
  return Math.floor(h / 24) + ' d ' + (h % 24) + ' h';
}

export function fmtWindow(seconds) {
  if (!isNum(seconds)) return DASH;
  return seconds % 60 === 0 ? (seconds / 60) + ' min' : seconds + ' s';
}

/** A round axis maximum at or above v. */
export function niceMax(v) {
  if (!(v > 0)) return 1;
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  const steps = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];
  for (let i = 0; i < steps.length; i++) if (steps[i] * p >= v) return steps[i] * p;
  return 10 * p;
}
