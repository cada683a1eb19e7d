/* fw presence: tells the server, once per interval, whether the person used this page since the
 * previous tick ("active") and how long that tick really took ("gap", seconds: far more than the
 * interval means the machine slept). A hidden tab does not report: a tab nobody looks at is not a
 * sign of anybody. When the session is over (401) the script stops and fires the cancelable event
 * "fw:signed-out" on window; unless a listener calls preventDefault(), the page reloads, so a
 * screen left alone stops showing what only its owner should see.
 *
 * Served at {auth.logout_path}/presence.js; load it on every page a signed-in person uses:
 *   <script src="/auth/logout/presence.js" defer></script>
 * window.fwPresence.stop() / start() pause and resume it.
 */
(() => {
  "use strict";
  if (window.fwPresence) return;
  const config = __FW_PRESENCE_CONFIG__;
  const INPUT = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart", "scroll"];
  let input = false;
  let last = 0;
  let timer = null;
  let over = false;

  const seen = () => { input = true; };
  for (const type of INPUT) {
    window.addEventListener(type, seen, { capture: true, passive: true });
  }

  async function report() {
    const now = Date.now();
    const gap = Math.max(0, (now - last) / 1000);
    last = now;
    const active = input;
    input = false;
    let response;
    try {
      response = await fetch(config.endpoint, {
        method: "POST",
        credentials: "same-origin",
        cache: "no-store",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ active, gap }),
      });
    } catch (error) {
      return; // unreachable for now: the server counts the silence, the next tick tries again
    }
    if (response.status === 401) signedOut();
  }

  function start() {
    if (timer !== null || over) return;
    last = Date.now();
    timer = setInterval(report, config.interval);
  }

  function stop() {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
  }

  function signedOut() {
    over = true;
    stop();
    const event = new CustomEvent("fw:signed-out", { cancelable: true });
    if (window.dispatchEvent(event)) window.location.reload();
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") {
      stop();
    } else if (!over) {
      start();
      report(); // back in view: learn at once whether the session is still there
    }
  });

  window.fwPresence = { start, stop, get over() { return over; } };
  if (document.visibilityState !== "hidden") start();
})();
