//! The house: the layers the code keeps (imports, crates, circles) and that nothing is read from
//! outside the repository.
//!
//! One test binary (`cargo test --test house`), one module per area: a new test goes into
//! the module of the area it tests, or a new module listed here. Helpers shared by several
//! binaries are in `tests/support/` (one module each), never copied.
#[path = "../support/mod.rs"]
mod support;

mod layers;
mod self_contained;
