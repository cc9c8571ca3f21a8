//! TODO: audit
