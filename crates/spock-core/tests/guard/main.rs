//! The guard on its own (the core crate, nothing above it): the command rules, their table, the
//! wrapper properties, and every corpus round, read from `tests/guard/round*/` at the
//! repository root (where each round's generator, proofs and report are kept).
//!
//! One test binary (`cargo test -p spock-core --test guard`), one module per area: a new test goes into
//! the module of the area it tests, or a new module listed here. It reads the
//! core only, so a change above the core does not rebuild it.
mod corpus;
mod props;
mod shell;
mod table;
