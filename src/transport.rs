//! TODO: transport
