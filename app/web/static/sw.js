// The player's pages without a connection (docs/web.md "Offline results"). Served as /sw.js and
// registered with the scope /e/, so it sees the requests of the player's page (/e/{id}/me) and of a
// slip's report page (/e/{id}/m/{match}). It keeps the last copy of those pages and of the pages'
// static files, and answers from that copy when the network fails or hangs; every other request
// (the API, the live stream, the player's own view, which carries a token) goes to the network
// untouched. Results entered offline are not kept here: the page keeps them (static/offline.js).
"use strict";

var CACHE = "arbiter-offline-1";
var STATIC = ["/static/web/site.css", "/static/web/offline.js", "/static/web/player.js", "/static/web/clock.js"];
var PAGE = /^\/e\/[^/]+\/(me|m\/[^/]+)$/;
var PATIENCE_MS = 3000; // a hall's Wi-Fi that hangs: the kept copy after this long, the network's later

function kept(url) {
  return url.origin === self.location.origin && (url.pathname.indexOf("/static/web/") === 0 || PAGE.test(url.pathname));
}

function store(request, response) {
  if (!response || response.status !== 200 || response.type !== "basic") return Promise.resolve();
  var copy = response.clone();
  return caches.open(CACHE).then(function (c) { return c.put(request, copy); });
}

function remembered(request) {
  return caches.open(CACHE).then(function (c) {
    return c.match(request).then(function (hit) {
      // a page asked in another language (?lang=ja) is still the page
      return hit || (request.mode === "navigate" ? c.match(request, { ignoreSearch: true }) : undefined);
    });
  });
}

// the network first (pages and scripts change while an event runs), the kept copy when it fails,
// or when it has not answered in PATIENCE_MS and a copy exists
function answer(event) {
  var request = event.request;
  var network = fetch(request);
  event.waitUntil(network.then(function (response) { return store(request, response); }).catch(function () {}));
  return new Promise(function (resolve, reject) {
    var done = false;
    function fallback() {
      return remembered(request).then(function (hit) {
        if (hit && !done) { done = true; resolve(hit); }
        return hit;
      });
    }
    var timer = setTimeout(fallback, PATIENCE_MS);
    network.then(function (response) {
      clearTimeout(timer);
      if (!done) { done = true; resolve(response); }
    }, function (error) {
      clearTimeout(timer);
      fallback().then(function (hit) { if (!hit && !done) { done = true; reject(error); } });
    });
  });
}

self.addEventListener("install", function (event) {
  // each file on its own: one missing file must not leave the others uncached
  event.waitUntil(caches.open(CACHE).then(function (c) {
    return Promise.all(STATIC.map(function (path) { return c.add(path).catch(function () {}); }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) { return n.indexOf("arbiter-offline-") === 0 && n !== CACHE; })
      .map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") return;
  var url = new URL(request.url);
  if (!kept(url)) return;
  event.respondWith(answer(event));
});

// a page opened before this worker controlled it asks for its own copy to be kept (and is told
// when it is), so the very first visit already works offline
self.addEventListener("message", function (event) {
  var data = event.data || {};
  var port = event.ports && event.ports[0];
  if (!data.keep) return;
  var paths = [].concat(data.keep).filter(function (p) { return kept(new URL(p, self.location.origin)); });
  event.waitUntil(caches.open(CACHE).then(function (c) {
    return Promise.all(paths.map(function (p) {
      return fetch(p, { credentials: "same-origin" }).then(function (r) {
        return r.status === 200 ? c.put(p, r) : undefined;
      }).catch(function () {});
    }));
  }).then(function () { if (port) port.postMessage({ kept: paths }); }));
});
