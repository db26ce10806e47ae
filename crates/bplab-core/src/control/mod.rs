//! Admission controllers behind one trait: fixed, AIMD, Vegas, Gradient2,
//! Gradient (Netflix concurrency-limits semantics) and request-queue CoDel.
