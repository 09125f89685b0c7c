//! Fields that never fail on a value of the wrong type: they read it as absent.
//! A newer or odder server must not make a known field break the whole frame.
//!
//! A field typed `Lenient<T>` needs no `deserialize_with`: it reads as `Some(T)` when the JSON
//! holds a `T` (as [`Loose::from_loose`] understands one) and as `None` otherwise, and it writes
//! as `Option<T>`. It derefs to `Option<T>`, so readers use the `Option` methods they know.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::ops::{Deref, DerefMut};

/// An `Option<T>` that reads leniently.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lenient<T>(pub Option<T>);

impl<T> Lenient<T> {
    /// The value, if the JSON held one.
    pub fn into_inner(self) -> Option<T> {
        self.0
    }
}

impl<T> Default for Lenient<T> {
    fn default() -> Self {
        Lenient(None)
    }
}

impl<T> Deref for Lenient<T> {
    type Target = Option<T>;
    fn deref(&self) -> &Option<T> {
        &self.0
    }
}

impl<T> DerefMut for Lenient<T> {
    fn deref_mut(&mut self) -> &mut Option<T> {
        &mut self.0
    }
}

impl<T> From<Option<T>> for Lenient<T> {
    fn from(v: Option<T>) -> Self {
        Lenient(v)
    }
}

impl<T> From<Lenient<T>> for Option<T> {
    fn from(v: Lenient<T>) -> Self {
        v.0
    }
}

impl<T: PartialEq> PartialEq<Option<T>> for Lenient<T> {
    fn eq(&self, other: &Option<T>) -> bool {
        self.0 == *other
    }
}

impl<'de, T: Loose> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Lenient(T::from_loose(Value::deserialize(d)?)))
    }
}

impl<T: Serialize> Serialize for Lenient<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// A type that a JSON value of the wrong shape reads as absent rather than as an error.
pub trait Loose: Sized {
    /// The value as `Self`, if it is one.
    fn from_loose(v: Value) -> Option<Self>;
}

/// A string.
impl Loose for String {
    fn from_loose(v: Value) -> Option<String> {
        match v {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A boolean; the strings "true"/"false" (any case) count too, as some SCIM servers send them.
impl Loose for bool {
    fn from_loose(v: Value) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(b),
            Value::String(s) if s.eq_ignore_ascii_case("true") => Some(true),
            Value::String(s) if s.eq_ignore_ascii_case("false") => Some(false),
            _ => None,
        }
    }
}

/// An integer; a float is truncated, and numeric strings count too.
impl Loose for i64 {
    fn from_loose(v: Value) -> Option<i64> {
        match v {
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
            Value::String(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}

/// A list of strings; non-string entries are kept as their JSON text.
impl Loose for Vec<String> {
    fn from_loose(v: Value) -> Option<Vec<String>> {
        match v {
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
        }
    }
}

/// Any value except null.
impl Loose for Value {
    fn from_loose(v: Value) -> Option<Value> {
        (!v.is_null()).then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, Serialize, Default)]
    #[serde(default)]
    struct Probe {
        s: Lenient<String>,
        b: Lenient<bool>,
        n: Lenient<i64>,
        l: Lenient<Vec<String>>,
        v: Lenient<Value>,
    }

    fn probe(v: Value) -> Probe {
        serde_json::from_value(v).expect("a lenient struct reads any object")
    }

    #[test]
    fn values_of_the_right_shape_are_read() {
        let p = probe(json!({"s": "x", "b": "TRUE", "n": "  42 ", "l": ["a", 1], "v": {"k": 1}}));
        assert_eq!(p.s, Some("x".to_string()));
        assert_eq!(p.b, Some(true));
        assert_eq!(p.n, Some(42));
        assert_eq!(p.l, Some(vec!["a".to_string(), "1".to_string()]));
        assert_eq!(p.v, Some(json!({"k": 1})));
        assert_eq!(probe(json!({"n": 7.9})).n, Some(7));
    }

    #[test]
    fn values_of_the_wrong_shape_or_null_read_as_absent() {
        let p = probe(json!({"s": 1, "b": "yes", "n": "x", "l": "a", "v": null}));
        assert!(p.s.is_none() && p.b.is_none() && p.n.is_none());
        assert!(p.l.is_none() && p.v.is_none());
        assert!(probe(json!({})).s.is_none());
    }

    #[test]
    fn it_writes_as_an_option() {
        let p = Probe {
            s: Some("x".to_string()).into(),
            ..Probe::default()
        };
        let out = serde_json::to_value(&p).unwrap();
        assert_eq!(out["s"], json!("x"));
        assert_eq!(out["b"], Value::Null);
    }
}
