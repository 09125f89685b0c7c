//! Deserializers that never fail on a value of the wrong type: they read it as absent.
//! A newer or odder server must not make a known field break the whole frame.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// A string, or None when the value is missing, null or not a string.
pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// A boolean; the strings "true"/"false" (any case) count too, as some SCIM servers send them.
pub fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Bool(b) => Some(b),
        Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
        Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
        _ => None,
    })
}

/// An integer; numeric strings count too.
pub fn integer<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

/// A list of strings; non-string entries are rendered as JSON text.
pub fn strings<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => Some(
            items
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => s,
                    other => other.to_string(),
                })
                .collect(),
        ),
        _ => None,
    })
}

/// Any value except null.
pub fn value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Null => None,
        v => Some(v),
    })
}
