// Added by `ccwiki serve` to the pages it serves (never to a built site):
// reload the page when the wiki has been rebuilt.
(function () {
  var events = new EventSource("/__ccwiki/events");
  events.onopen = function () {
    // Says the page is listening (the browser test reads it).
    document.documentElement.setAttribute("data-ccwiki-live", "open");
  };
  events.addEventListener("reload", function () {
    location.reload();
  });
})();
