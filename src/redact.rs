//! TODO: redact
