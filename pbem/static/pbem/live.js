// Live turns on the seat page: it asks now and then (data-poll-seconds; less often while the tab
// is hidden) whether the game's version passed the one shown. Each question is answered at once
// (timeout=0), so an open page never holds a web worker. When the game has moved on the page
// reloads itself, unless the player is in the middle of typing: then a notice with a reload
// link appears instead.
// Without JavaScript the page refreshes itself now and then (a <noscript> meta refresh).
(function () {
  "use strict";
  var root = document.querySelector("[data-live-url]");
  if (!root || !window.fetch) return;
  var url = root.getAttribute("data-live-url");
  var version = parseInt(root.getAttribute("data-version"), 10);
  var every = 1000 * (parseFloat(root.getAttribute("data-poll-seconds")) || 10);
  var delay = every;

  function busy() {
    var text = document.querySelector("textarea[name=text]");
    var say = document.querySelector("input[name=message]");
    return (text && text.value.trim() !== "") || (say && say.value.trim() !== "") ||
      (document.activeElement && /^(TEXTAREA|INPUT)$/.test(document.activeElement.tagName));
  }

  function moved(answer) {
    if (!busy()) { window.location.reload(); return; }
    var notice = document.getElementById("live-notice");
    notice.hidden = false;
    notice.querySelector("span").textContent = answer.my_turn
      ? root.getAttribute("data-my-turn") || "It is your turn now."
      : root.getAttribute("data-moved-on") || "The game has moved on.";
  }

  function later() { setTimeout(poll, document.hidden ? Math.max(delay, 60000) : delay); }

  function poll() {
    fetch(url + "?timeout=0&version=" + version, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (answer) {
        delay = every;
        if (answer.changed) { version = answer.version; moved(answer); }
        if (answer.status === "running" || answer.status === "open" || answer.status === "paused") later();
      })
      .catch(function () { delay = Math.min(delay * 2, 300000); later(); });
  }
  later();
})();
