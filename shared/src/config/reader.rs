//! Reading variables: every problem collected, reported together.

use std::fmt;

#[derive(Debug, thiserror::Error)]
#[error("invalid configuration:\n  - {}", .0.join("\n  - "))]
pub struct ConfigError(pub Vec<String>);

/// Reads variables by name; `std::env::var` in the binaries, a map in tests.
pub trait Lookup {
    fn get(&self, name: &str) -> Option<String>;
}

impl<F: Fn(&str) -> Option<String>> Lookup for F {
    fn get(&self, name: &str) -> Option<String> {
        self(name).filter(|v| !v.trim().is_empty())
    }
}

pub(crate) struct Reader<'a> {
    lookup: &'a dyn Lookup,
    pub(crate) errors: Vec<String>,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(lookup: &'a dyn Lookup) -> Self {
        Self {
            lookup,
            errors: Vec::new(),
        }
    }

    pub(crate) fn string(&self, name: &str) -> Option<String> {
        self.lookup.get(name).map(|v| v.trim().to_string())
    }

    pub(crate) fn string_or(&self, name: &str, default: &str) -> String {
        self.string(name).unwrap_or_else(|| default.to_string())
    }

    pub(crate) fn parsed<T: std::str::FromStr>(&mut self, name: &str, default: T) -> T
    where
        T::Err: fmt::Display,
    {
        match self.string(name) {
            None => default,
            Some(raw) => raw.parse().unwrap_or_else(|e| {
                self.errors.push(format!("{name}={raw:?}: {e}"));
                default
            }),
        }
    }

    pub(crate) fn flag(&mut self, name: &str, default: bool) -> bool {
        match self.string(name).map(|v| v.to_ascii_lowercase()) {
            None => default,
            Some(v) if v == "true" || v == "1" || v == "yes" => true,
            Some(v) if v == "false" || v == "0" || v == "no" => false,
            Some(v) => {
                self.errors
                    .push(format!("{name}={v:?}: expected true or false"));
                default
            }
        }
    }
}
