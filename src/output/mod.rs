//! The output layer: render pages with Tera and write the site atomically.

pub mod cards;
mod folders;
pub mod manifest;
pub mod markdown;
pub mod pages;
pub mod render;
pub mod splice;
mod swap;
pub mod theme;
pub mod timeline;
pub mod turns;
pub mod write;
