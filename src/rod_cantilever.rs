//! Cantilever rod under gravity versus Euler–Bernoulli (being written).
