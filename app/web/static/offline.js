// What the player's pages keep in this browser (docs/web.md "Offline results"): the results
// entered and not yet sent (the outbox, in IndexedDB, each with the Idempotency-Key it was given
// when entered), and the last copy of the player's part of the page. It also registers the
// service worker (/sw.js, scope /e/) that keeps the pages themselves.
(function () {
  "use strict";
  var DB = "arbiter-offline", OUTBOX = "outbox", VIEWS = "views";
  var memory = { outbox: {}, views: {} }; // where IndexedDB is refused (some private windows)
  var opened = null;

  function database() {
    if (opened) return opened;
    opened = new Promise(function (resolve) {
      if (!window.indexedDB) { resolve(null); return; }
      var req;
      try { req = indexedDB.open(DB, 1); } catch (e) { resolve(null); return; }
      req.onupgradeneeded = function () {
        var db = req.result;
        if (!db.objectStoreNames.contains(OUTBOX)) db.createObjectStore(OUTBOX, { keyPath: "key" });
        if (!db.objectStoreNames.contains(VIEWS)) db.createObjectStore(VIEWS, { keyPath: "event" });
      };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { resolve(null); };
    });
    return opened;
  }

  // one request on one store; resolves with its result once the transaction has committed
  function run(store, mode, make) {
    return database().then(function (db) {
      if (!db) {
        var keyOf = store === OUTBOX ? "key" : "event";
        return make({
          put: function (v) { memory[store][v[keyOf]] = v; },
          get: function (k) { return memory[store][k]; },
          delete: function (k) { delete memory[store][k]; },
          getAll: function () { return Object.keys(memory[store]).map(function (k) { return memory[store][k]; }); }
        });
      }
      return new Promise(function (resolve, reject) {
        var tx = db.transaction(store, mode), req = make(tx.objectStore(store)), value;
        if (req) req.onsuccess = function () { value = req.result; };
        tx.oncomplete = function () { resolve(value); };
        tx.onerror = tx.onabort = function () { reject(tx.error); };
      });
    });
  }

  // a key made once, when the result is entered, and sent with every try of it
  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join("");
  }

  // one sender at a time in this browser (two open tabs would send the same result twice; the
  // server would replay the second, but one try is enough)
  function exclusive(work) {
    if (navigator.locks && navigator.locks.request) return navigator.locks.request("arbiter-outbox", work);
    return work();
  }

  window.ArbiterOffline = {
    newKey: newKey,
    exclusive: exclusive,
    put: function (record) { return run(OUTBOX, "readwrite", function (s) { return s.put(record); }); },
    remove: function (key) { return run(OUTBOX, "readwrite", function (s) { return s.delete(key); }); },
    list: function (eventId) {
      return run(OUTBOX, "readonly", function (s) { return s.getAll(); }).then(function (all) {
        return (all || []).filter(function (r) { return r.event === eventId; })
          .sort(function (a, b) { return a.entered - b.entered; });
      });
    },
    saveView: function (eventId, html) {
      return run(VIEWS, "readwrite", function (s) { return s.put({ event: eventId, html: html, at: Date.now() }); });
    },
    lastView: function (eventId) { return run(VIEWS, "readonly", function (s) { return s.get(eventId); }); }
  };

  // the service worker keeps this page and its files; a page opened before the worker took
  // control asks it to keep this page's own copy too, and says so once it is kept
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js", { scope: "/e/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      if (!reg.active || !window.MessageChannel) return;
      var channel = new MessageChannel();
      channel.port1.onmessage = function () { document.documentElement.setAttribute("data-offline-ready", ""); };
      var files = [].map.call(document.querySelectorAll("script[src], link[rel=stylesheet][href]"), function (el) {
        return new URL(el.getAttribute("src") || el.getAttribute("href"), location.href).pathname;
      });
      reg.active.postMessage({ keep: [location.pathname + location.search].concat(files) }, [channel.port2]);
    }).catch(function () { /* no worker (a plain http address other than localhost): online only */ });
  }
})();
