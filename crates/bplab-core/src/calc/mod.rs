//! Explainable calculators: Little's law and the admission limit.
