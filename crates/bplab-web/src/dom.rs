//! Small DOM helpers. Every lookup returns `Option`/`Result`: a missing
//! element is a no-op, never a panic.

use std::cell::RefCell;
use std::rc::Rc;

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement, HtmlInputElement};

/// The page's document, if there is one.
pub fn document() -> Option<Document> {
    web_sys::window()?.document()
}

/// Creates `<tag>` with the given attributes.
pub fn el(doc: &Document, tag: &str, attrs: &[(&str, &str)]) -> Result<Element, JsValue> {
    let e = doc.create_element(tag)?;
    for (k, v) in attrs {
        e.set_attribute(k, v)?;
    }
    Ok(e)
}

/// Creates `<tag>` with attributes and text content.
pub fn text_el(doc: &Document, tag: &str, attrs: &[(&str, &str)], text: &str) -> Result<Element, JsValue> {
    let e = el(doc, tag, attrs)?;
    e.set_text_content(Some(text));
    Ok(e)
}

/// Appends `child` to `parent` and returns the child.
pub fn add(parent: &Element, child: Element) -> Result<Element, JsValue> {
    parent.append_child(&child)?;
    Ok(child)
}

/// A listener `on` added: removed and dropped by [`clear_listeners`].
struct Listener {
    target: Element,
    event: String,
    cb: Closure<dyn FnMut(web_sys::Event)>,
}

thread_local! {
    static LISTENERS: RefCell<Vec<Listener>> = const { RefCell::new(Vec::new()) };
}

/// Registers `f` for `event` on `target` until the page is mounted again
/// ([`clear_listeners`]): a re-mount frees every closure of the last one.
pub fn on(target: &Element, event: &str, f: impl FnMut(web_sys::Event) + 'static) -> Result<(), JsValue> {
    let cb = Closure::<dyn FnMut(web_sys::Event)>::new(f);
    target.add_event_listener_with_callback(event, cb.as_ref().unchecked_ref())?;
    LISTENERS.with(|l| l.borrow_mut().push(Listener { target: target.clone(), event: event.to_owned(), cb }));
    Ok(())
}

/// Removes every listener added by [`on`] and drops its closure (and what it held).
pub fn clear_listeners() {
    let all = LISTENERS.with(|l| std::mem::take(&mut *l.borrow_mut()));
    for l in all {
        let _ = l.target.remove_event_listener_with_callback(&l.event, l.cb.as_ref().unchecked_ref());
    }
}

/// How many listeners [`on`] holds now (tests check that a re-mount does not grow it).
pub fn listener_count() -> usize {
    LISTENERS.with(|l| l.borrow().len())
}

/// A callback that runs at most once, whichever of its triggers fires first.
type Once = Rc<RefCell<Option<Box<dyn FnOnce()>>>>;

/// Runs `f` once, in the next animation frame, so that what it draws is
/// painted in that frame (however many answers land before it, the caller
/// draws once); or after 100 ms if no frame comes first (an off-screen
/// cross-origin iframe gets no frames). Without a window, runs it now.
pub fn next_frame(f: impl FnOnce() + 'static) {
    let Some(w) = web_sys::window() else {
        f();
        return;
    };
    let slot: Once = Rc::new(RefCell::new(Some(Box::new(f))));
    let fire = |slot: Once| {
        move || {
            let f = slot.try_borrow_mut().ok().and_then(|mut s| s.take());
            if let Some(f) = f {
                f();
            }
        }
    };
    let by_frame = Closure::once_into_js(fire(slot.clone()));
    let by_timer = Closure::once_into_js(fire(slot.clone()));
    let framed = w.request_animation_frame(by_frame.unchecked_ref()).is_ok();
    let timed = w.set_timeout_with_callback_and_timeout_and_arguments_0(by_timer.unchecked_ref(), 100).is_ok();
    if !framed && !timed {
        fire(slot)();
    }
}

/// The element as an input, if it is one.
pub fn input(e: &Element) -> Option<HtmlInputElement> {
    e.dyn_ref::<HtmlInputElement>().cloned()
}

/// Shows (`Some`) or hides (`None`) a message element.
pub fn show_msg(e: &Element, msg: Option<&str>) {
    if let Some(h) = e.dyn_ref::<HtmlElement>() {
        h.set_hidden(msg.is_none());
    }
    e.set_text_content(msg);
}

/// Logs to the console as an error (kept for the panic hook and bugs).
pub fn log_error(msg: &str) {
    web_sys::console::error_1(&JsValue::from_str(msg));
}
