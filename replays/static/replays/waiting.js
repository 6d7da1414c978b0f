/* A queued match: wait for a runner to take it, then reload into the live viewer. */
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("viewer-config").textContent);
  function poll() {
    fetch(config.urls.log, { headers: { Accept: "application/json" } }).then(function (r) { return r.json(); })
      .then(function (body) {
        if (body.status !== "queued") location.reload();
        else setTimeout(poll, 2000);
      }, function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();
