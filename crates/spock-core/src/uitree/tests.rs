//! The tree's tests, by area: rendering (`render`) and selectors (`select`).
mod render;
mod select;
