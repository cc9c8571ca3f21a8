//! Input guards: what may reach a device shell or the local filesystem, checked before it does.
