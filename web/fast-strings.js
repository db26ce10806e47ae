// Short strings from the wasm without the cost of a TextDecoder call.
//
// Every string the wasm hands to JS (a tag, an attribute, a chart label, a colour) is decoded
// by the wasm-bindgen glue's one `new TextDecoder('utf-8', …)`, made when the glue loads. A
// decode() call costs several times what a loop over a few bytes does, and a page load makes
// tens of thousands of them, nearly all short and ASCII. So before the glue loads (a classic
// script inlined by Trunk, rel="inline"), this puts a subclass in `globalThis.TextDecoder`
// whose decode() builds a UTF-8 decoder's input of at most 48 bytes, all ASCII, by that loop
// (ASCII bytes are their own UTF-16 code units), and hands everything else to the browser's:
// the same string for every input, whoever calls it. The glue itself is not changed.
(() => {
  'use strict';
  const Native = globalThis.TextDecoder;
  if (typeof Native !== 'function') return;
  const SHORT = 48;
  globalThis.TextDecoder = class TextDecoder extends Native {
    #utf8;
    // A streaming decode may hold the first bytes of a character for the next call.
    #streaming = false;

    constructor(label, options) {
      super(label, options);
      this.#utf8 = this.encoding === 'utf-8';
    }

    decode(input, options) {
      if (options === undefined && this.#utf8 && !this.#streaming && input instanceof Uint8Array && input.length <= SHORT) {
        let s = '';
        for (let i = 0; i < input.length; i++) {
          const c = input[i];
          if (c > 127) return super.decode(input);
          s += String.fromCharCode(c);
        }
        return s;
      }
      this.#streaming = options != null && Boolean(options.stream);
      return super.decode(input, options);
    }
  };
})();
