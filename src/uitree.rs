//! The UI semantics tree: uiautomator XML to a typed tree, selectors, framework detection.
