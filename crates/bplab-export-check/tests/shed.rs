//! The generated layers behave as the export says: `IN_SYSTEM_LIMIT`
//! requests are admitted, the next is refused at once with `Overloaded`
//! (not left waiting), and a finished request frees its place.

use std::convert::Infallible;
use std::future::{Future, pending};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use bplab_export_check::{IN_SYSTEM_LIMIT, QUEUE_LIMIT, WORKERS, layers};
use tower::load_shed::error::Overloaded;
use tower::{Service, service_fn};

#[test]
fn numbers_are_the_lessons() {
    assert_eq!((WORKERS, QUEUE_LIMIT, IN_SYSTEM_LIMIT), (1, 9, 10));
}

#[test]
fn excess_is_refused_immediately() {
    let mut cx = Context::from_waker(Waker::noop());
    // A service that never answers: every admitted request holds its place.
    let mut svc = layers().service(service_fn(|_: ()| pending::<Result<(), Infallible>>()));
    let mut held = Vec::new();
    for _ in 0..IN_SYSTEM_LIMIT {
        assert!(matches!(svc.poll_ready(&mut cx), Poll::Ready(Ok(()))));
        let mut f = Box::pin(svc.call(()));
        assert!(f.as_mut().poll(&mut cx).is_pending(), "admitted requests wait for the service");
        held.push(f);
    }
    // One more: load shedding says ready, and the call fails at once.
    assert!(matches!(svc.poll_ready(&mut cx), Poll::Ready(Ok(()))));
    match pin!(svc.call(())).poll(&mut cx) {
        Poll::Ready(Err(e)) => assert!(e.is::<Overloaded>(), "{e}"),
        other => panic!("expected an immediate Overloaded, got {:?}", other.map(|r| r.is_ok())),
    }
    // A request that finishes (here: is dropped) frees its place.
    drop(held.pop());
    assert!(matches!(svc.poll_ready(&mut cx), Poll::Ready(Ok(()))));
    assert!(pin!(svc.call(())).poll(&mut cx).is_pending());
}
