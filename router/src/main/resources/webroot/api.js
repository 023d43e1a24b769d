/* The router's JSON admin API, read from the browser, and the polling loop. */

const TOKEN_KEY = 'lmwAdminToken';

// With an admin token set, open the page as /#token=<token>: it is kept for this tab and sent as a Bearer token.
const linkedToken = /(?:^#|&)token=([^&]+)/.exec(location.hash);
if (linkedToken) {
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(linkedToken[1]));
  history.replaceState(null, '', location.pathname);
}

/** Keeps a token typed into the page for this tab's next requests. */
export function rememberToken(token) { sessionStorage.setItem(TOKEN_KEY, token); }

export function getJson(url, init) {
  const options = Object.assign({ cache: 'no-store' }, init || {});
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) options.headers = Object.assign({ Authorization: 'Bearer ' + token }, options.headers || {});
  return fetch(url, options).then(function (r) {
    return r.text().then(function (text) {
      let body = null;
      try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
      return { status: r.status, ok: r.ok, body: body, text: text };
    });
  });
}

export function errorMessage(reply) {
  if (reply.body && reply.body.error && reply.body.error.message) return reply.body.error.message;
  return reply.text ? reply.text.slice(0, 300) : 'no body';
}

/** Runs fn now and then every ms after it settles, so a slow router never piles requests up. */
export function every(ms, fn) {
  function tick() {
    const settled = function () { setTimeout(tick, ms); };
    try {
      Promise.resolve(fn()).then(settled, function (e) { console.warn(e); settled(); });
    } catch (e) {
      console.warn(e);
      settled();
    }
  }
  tick();
}
