//! TODO: config
