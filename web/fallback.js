// A visible message instead of a blank page when the lab cannot start.
//
// Classic (non-module) script, inlined into the page by Trunk
// (an inline asset, rel="inline"), so it runs even when the module and
// the wasm cannot load. It watches the lab's root `<main id="bplab">` from
// outside and says what happened, and the two ways forward, when:
//   - the page was opened from a file (file://): browsers refuse to load a
//     module or a wasm file for a page opened from disk (not in bplab.html,
//     the single-file build, which has nothing to load);
//   - WebAssembly is unavailable (old browser, or disabled by policy);
//   - the module script, its preload or the wasm fails to load, or an
//     uncaught error or rejected promise happens before the lab has mounted
//     (a failed wasm fetch is reported as such whichever of its two events,
//     the preload's error or the init's rejection, arrives first);
//   - the root is still empty 10 s after the document has been parsed.
// The message is removed again if the lab mounts after all.
(function () {
  'use strict';
  var ROOT_ID = 'bplab';
  var BOX_ID = 'bplab-fallback';
  var TIMEOUT_MS = 10000;
  var single = document.documentElement.hasAttribute('data-single-file');
  var pending = null;
  var observer = null;

  function root() {
    return document.getElementById(ROOT_ID);
  }

  // Mounted once the root holds anything but its <noscript> placeholder.
  function mounted() {
    var r = root();
    if (!r) return false;
    for (var c = r.firstElementChild; c; c = c.nextElementSibling) {
      if (c.tagName !== 'NOSCRIPT') return true;
    }
    return false;
  }

  function el(tag, text, attrs) {
    var e = document.createElement(tag);
    if (text) e.textContent = text;
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    return e;
  }

  // "Run scripts/serve.sh ..." with the command in <code>.
  function item(parts) {
    var li = el('li');
    for (var i = 0; i < parts.length; i++) {
      var p = parts[i];
      li.appendChild(typeof p === 'string' ? document.createTextNode(p) : p);
    }
    return li;
  }

  function render(what) {
    var old = document.getElementById(BOX_ID);
    if (old) old.parentNode.removeChild(old);
    var box = el('section', '', { id: BOX_ID, class: 'fallback', role: 'alert', 'aria-labelledby': BOX_ID + '-title' });
    // Styled inline: from file:// the stylesheet is blocked along with the module.
    box.style.cssText = 'border:2px solid #a40e26;background:#ffebe9;color:#1b1f24;border-radius:8px;' +
      'padding:0.75rem 1rem;margin:1rem 0;max-width:80ch;font-family:system-ui,sans-serif;line-height:1.45';
    box.appendChild(el('h2', 'The lab could not start', { id: BOX_ID + '-title', style: 'margin-top:0;color:#a40e26' }));
    box.appendChild(el('p', what));
    box.appendChild(el('p', 'Two ways forward:'));
    var ways = el('ul');
    ways.appendChild(item([
      'Serve it: run ', el('code', 'scripts/serve.sh'),
      ' in the bplab checkout and open http://127.0.0.1:8080/ (any static web server over dist/ works too).',
    ]));
    var here = location.search + location.hash;
    if (single) {
      ways.appendChild(item([
        'Or open this same file, ', el('code', 'bplab.html'),
        ', in a current browser with WebAssembly enabled.',
      ]));
    } else {
      ways.appendChild(item([
        'Or open ', el('a', 'bplab.html', { href: 'bplab.html' + here }),
        ', the whole lab in one file, next to this page in dist/: it works straight from disk (file://).',
      ]));
    }
    box.appendChild(ways);
    var r = root();
    if (r && r.parentNode) r.parentNode.insertBefore(box, r);
    else document.body.appendChild(box);
  }

  // Shows the message once the body exists, unless the lab has mounted.
  function fail(what) {
    if (mounted()) return;
    if (pending !== null) return; // the first reason is the most precise one
    pending = what;
    if (document.body) render(what);
    else document.addEventListener('DOMContentLoaded', function () { if (!mounted()) render(pending); });
  }

  // The lab mounted (perhaps late): take the message down and stop watching.
  function settle() {
    if (!mounted()) return;
    var box = document.getElementById(BOX_ID);
    if (box) box.parentNode.removeChild(box);
    if (observer) observer.disconnect();
  }

  function describe(reason) {
    if (!reason) return 'unknown error';
    return String(reason.message || reason).slice(0, 300);
  }

  if (location.protocol === 'file:' && !single) {
    fail('This page was opened from a file (file://). Browsers do not let a page opened from disk ' +
      'load its script module and WebAssembly file, so the lab cannot run here.');
  }
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') {
    fail('This browser has no WebAssembly (it is too old, or WebAssembly is disabled), and every ' +
      'number in the lab is computed by a WebAssembly module.');
  }

  // The wasm file's URL, as the page names it (Trunk's preload link), if any.
  function wasmUrl() {
    var links = document.getElementsByTagName('link');
    for (var i = 0; i < links.length; i++) {
      if (/\.wasm(\?|#|$)/.test(links[i].href || '')) return links[i].href;
    }
    return '';
  }

  function notLoaded(what, url) {
    return 'The lab\'s ' + what + ' could not be loaded' + (url ? ' (' + url + ').' : '.');
  }

  // A failed fetch (the network, a blocked or missing file) rejects with a
  // TypeError whose wording is the browser's own. During start-up the only
  // fetch is the wasm's, and its preload fails too: both say the same thing,
  // so the message does not depend on which of the two events comes first.
  function fetchFailed(reason) {
    return !!reason && reason.name === 'TypeError' &&
      /fetch|network|load failed/i.test(String(reason.message || ''));
  }

  function started(reason) {
    if (fetchFailed(reason)) return notLoaded('WebAssembly file', wasmUrl());
    return 'The lab\'s WebAssembly module could not be loaded or instantiated: ' + describe(reason) + '.';
  }

  // Resource errors (the module script, its preload, the wasm preload) do not
  // bubble: listen in the capture phase.
  window.addEventListener('error', function (e) {
    if (mounted()) return;
    var t = e.target;
    if (t && t !== window && (t.tagName === 'SCRIPT' || t.tagName === 'LINK')) {
      var url = t.src || t.href || '';
      fail(notLoaded(/\.wasm(\?|#|$)/.test(url) ? 'WebAssembly file' : 'script module', url));
    } else if (fetchFailed(e.error)) {
      fail(started(e.error));
    } else if (e.error || e.message) {
      fail('The lab failed while starting (its WebAssembly module could not be loaded or instantiated): ' +
        describe(e.error || e.message) + '.');
    }
  }, true);
  window.addEventListener('unhandledrejection', function (e) {
    if (mounted()) return;
    fail(started(e.reason));
  });
  // The single-file build reports its own start-up failure here.
  window.addEventListener('bplab-start-failed', function (e) {
    fail('The lab\'s WebAssembly module could not be instantiated: ' + describe(e.detail) + '.');
  });

  function watch() {
    var r = root();
    if (r && typeof MutationObserver === 'function') {
      observer = new MutationObserver(settle);
      observer.observe(r, { childList: true });
    }
    settle();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch);
  else watch();

  // Backstop: still empty a while after the document has been parsed.
  document.addEventListener('DOMContentLoaded', function () {
    setTimeout(function () {
      fail('The lab did not start within ' + TIMEOUT_MS / 1000 + ' s of the page loading ' +
        '(its module or WebAssembly file may be missing, blocked or too slow to load).');
    }, TIMEOUT_MS);
  });
})();
