//! The stochastic engine: seeded Poisson traffic, service-time
//! distributions, many workers behind one FIFO line.
