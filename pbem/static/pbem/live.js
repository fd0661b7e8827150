// Live turns on the seat page: a long poll (one request at a time, each bounded by the server)
// that learns when the game moves on. Then the page reloads itself, unless the player is in the
// middle of typing a command: then a notice with a reload link appears instead.
// Without JavaScript the page refreshes itself now and then (a <noscript> meta refresh).
(function () {
  "use strict";
  var root = document.querySelector("[data-live-url]");
  if (!root || !window.fetch) return;
  var url = root.getAttribute("data-live-url");
  var version = parseInt(root.getAttribute("data-version"), 10);
  var delay = 1000;

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
    notice.querySelector("span").textContent = answer.my_turn ? "It is your turn now." : "The game has moved on.";
  }

  function poll() {
    fetch(url + "?version=" + version, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (answer) {
        delay = 1000;
        if (answer.changed) { version = answer.version; moved(answer); }
        if (answer.status === "running" || answer.status === "open" || answer.status === "paused") poll();
      })
      .catch(function () { delay = Math.min(delay * 2, 60000); setTimeout(poll, delay); });
  }
  poll();
})();
