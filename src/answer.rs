//! The final-answer rule, fed frame by frame (shared by `chat` and `extract-final`).
//!
//! The answer is the last assistant frame whose `graphPath[0]` is `"final"` and whose
//! `graphPath` has at most two elements. When that frame is a delta, the text is rebuilt from
//! that message's chunks and the answer is flagged incomplete. Optionally (`--fallback`), the
//! last complete assistant message with content stands in when there is no final frame.
//!
//! Most lines of a stream cannot be final frames, and a cheap byte test tells them apart: a
//! final frame must contain the bytes `final` (or a `\u006X` escape, which could spell it).
//! Only lines that pass are parsed, into borrowed fields.

use serde::de::{self, Deserializer, IgnoredAny, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

/// The answer found in a stream.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The answer's text.
    pub text: String,
    /// The whole message object (with `content` rebuilt when it came from chunks).
    pub message: Value,
    /// Rebuilt from chunks: the complete frame never arrived.
    pub incomplete: bool,
    /// Taken by the fallback rule, not from a `final` frame.
    pub from_fallback: bool,
}

/// The fields of a frame the rule needs, borrowed from the line where possible.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Probe<'a> {
    #[serde(borrow, default)]
    id: Option<Text<'a>>,
    #[serde(borrow, default)]
    role: Option<Text<'a>>,
    #[serde(borrow, default)]
    content: Option<Text<'a>>,
    #[serde(default, deserialize_with = "flag")]
    is_delta: bool,
    #[serde(borrow, default, deserialize_with = "path_head")]
    graph_path: Option<(Option<Text<'a>>, usize)>,
    #[serde(default)]
    tool_call: Option<IgnoredAny>,
}

/// A string field, borrowed when unescaped; a non-string value is kept as its JSON text.
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed("")))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let v = Value::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let v = Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(Text(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_any(V)
    }
}

impl Text<'_> {
    fn as_str(&self) -> &str {
        &self.0
    }
}

fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    Ok(matches!(Value::deserialize(d)?, Value::Bool(true)))
}

/// `graphPath` as (first element, length); a non-array reads as absent.
fn path_head<'de: 'a, 'a, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<(Option<Text<'a>>, usize)>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<(Option<Text<'de>>, usize)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an array")
        }
        fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let first: Option<Text<'de>> = seq.next_element()?;
            let mut len = usize::from(first.is_some());
            while seq.next_element::<IgnoredAny>()?.is_some() {
                len += 1;
            }
            Ok(Some((first, len)))
        }
        fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(V)
}

/// The last frame that matched a rule, kept as its raw line.
#[derive(Debug, Default)]
struct Last {
    raw: Vec<u8>,
    id: String,
    delta: bool,
}

/// Follows a stream frame by frame and knows its final answer at any point.
#[derive(Debug)]
pub struct FinalTracker {
    fallback: bool,
    final_frame: Option<Last>,
    /// Chunks of `final` messages whose complete frame has not arrived, by message id.
    chunks: HashMap<String, String>,
    fallback_frame: Option<Last>,
    final_finder: memchr::memmem::Finder<'static>,
    escape_finder: memchr::memmem::Finder<'static>,
    assistant_finder: memchr::memmem::Finder<'static>,
}

impl FinalTracker {
    /// A tracker; with `fallback`, the last complete assistant message with content counts when
    /// no final frame exists.
    pub fn new(fallback: bool) -> FinalTracker {
        FinalTracker {
            fallback,
            final_frame: None,
            chunks: HashMap::new(),
            fallback_frame: None,
            final_finder: memchr::memmem::Finder::new(b"final"),
            escape_finder: memchr::memmem::Finder::new(b"\\u006"),
            assistant_finder: memchr::memmem::Finder::new(b"assistant"),
        }
    }

    /// Whether a line could matter to the rule; lines that cannot are never parsed.
    pub fn is_candidate(&self, line: &[u8]) -> bool {
        self.final_finder.find(line).is_some()
            || (self.fallback && self.assistant_finder.find(line).is_some())
            || memchr::memchr(b'\\', line).is_some() && self.has_letter_escape(line)
    }

    /// A `\u00XX` escape could spell any of the letters the filters look for.
    fn has_letter_escape(&self, line: &[u8]) -> bool {
        self.escape_finder.find(line).is_some()
            || (self.fallback && memchr::memmem::find(line, b"\\u007").is_some())
    }

    /// Feed one line. Lines that cannot matter return `Ok(false)` without being parsed (the
    /// caller checks them); a candidate that is not a JSON object is an error.
    pub fn observe(&mut self, line: &[u8]) -> Result<bool, serde_json::Error> {
        if !self.is_candidate(line) {
            return Ok(false);
        }
        let probe: Probe<'_> = serde_json::from_slice(line)?;
        self.apply(&probe, line);
        Ok(true)
    }

    fn apply(&mut self, probe: &Probe<'_>, line: &[u8]) {
        if probe.role.as_ref().map(Text::as_str) != Some("assistant") {
            return;
        }
        let id = probe.id.as_ref().map(Text::as_str).unwrap_or("");
        let is_final = matches!(&probe.graph_path, Some((Some(head), len)) if head.as_str() == "final" && *len <= 2);
        let content = probe.content.as_ref().map(Text::as_str);
        if is_final {
            if probe.is_delta {
                self.chunks
                    .entry(id.to_owned())
                    .or_default()
                    .push_str(content.unwrap_or(""));
            } else {
                self.chunks.remove(id);
            }
            remember(&mut self.final_frame, line, id, probe.is_delta);
        } else if self.fallback
            && !probe.is_delta
            && probe.tool_call.is_none()
            && content.is_some_and(|c| !c.trim().is_empty())
        {
            remember(&mut self.fallback_frame, line, id, false);
        }
    }

    /// The answer so far, if any.
    pub fn answer(&self) -> Option<Answer> {
        if let Some(last) = &self.final_frame {
            let mut message: Value = serde_json::from_slice(&last.raw).ok()?;
            let text = if last.delta {
                let rebuilt = self.chunks.get(&last.id).cloned().unwrap_or_default();
                message["content"] = Value::String(rebuilt.clone());
                rebuilt
            } else {
                content_text(&message)
            };
            return Some(Answer {
                text,
                message,
                incomplete: last.delta,
                from_fallback: false,
            });
        }
        let last = self.fallback_frame.as_ref()?;
        let message: Value = serde_json::from_slice(&last.raw).ok()?;
        Some(Answer {
            text: content_text(&message),
            message,
            incomplete: false,
            from_fallback: true,
        })
    }
}

fn remember(slot: &mut Option<Last>, line: &[u8], id: &str, delta: bool) {
    let last = slot.get_or_insert_with(Last::default);
    last.raw.clear();
    last.raw.extend_from_slice(line);
    last.id.clear();
    last.id.push_str(id);
    last.delta = delta;
}

/// The `content` of a message as text (non-string content as JSON).
pub fn content_text(message: &Value) -> String {
    match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(lines: &[&str], fallback: bool) -> Option<Answer> {
        let mut t = FinalTracker::new(fallback);
        for l in lines {
            t.observe(l.as_bytes()).unwrap();
        }
        t.answer()
    }

    const D1: &str =
        r#"{"id":"f","role":"assistant","content":"Hel","isDelta":true,"graphPath":["final"]}"#;
    const D2: &str =
        r#"{"id":"f","role":"assistant","content":"lo","isDelta":true,"graphPath":["final"]}"#;
    const C: &str =
        r#"{"id":"f","role":"assistant","content":"Hello!","isDelta":false,"graphPath":["final"]}"#;

    #[test]
    fn the_complete_frame_wins() {
        let a = run(&[D1, D2, C], false).unwrap();
        assert_eq!(a.text, "Hello!");
        assert!(!a.incomplete);
        assert_eq!(a.message["id"], "f");
    }

    #[test]
    fn a_trailing_delta_is_rebuilt_and_flagged() {
        let a = run(&[D1, D2], false).unwrap();
        assert_eq!(a.text, "Hello");
        assert!(a.incomplete);
        assert_eq!(a.message["content"], "Hello");
    }

    #[test]
    fn the_last_final_frame_wins_and_deep_paths_do_not_count() {
        let other = r#"{"id":"g","role":"assistant","content":"Second","isDelta":false,"graphPath":["final","x"]}"#;
        let deep = r#"{"id":"h","role":"assistant","content":"Deep","isDelta":false,"graphPath":["final","x","y"]}"#;
        let user = r#"{"id":"u","role":"user","content":"final?","graphPath":["final"]}"#;
        assert_eq!(run(&[C, other, deep, user], false).unwrap().text, "Second");
    }

    #[test]
    fn fallback_is_opt_in() {
        let agent = r#"{"id":"a","role":"assistant","content":"From the agent","isDelta":false,"graphPath":["data_analyst_agent"]}"#;
        let tool = r#"{"id":"t","role":"assistant","content":"x","isDelta":false,"toolCall":{"name":"q"},"graphPath":["data_analyst_agent","tools"]}"#;
        assert!(run(&[agent], false).is_none());
        let a = run(&[agent, tool], true).unwrap();
        assert_eq!(a.text, "From the agent");
        assert!(a.from_fallback);
        assert_eq!(run(&[agent, C], true).unwrap().text, "Hello!");
    }

    #[test]
    fn escaped_keys_and_values_are_not_missed() {
        let escaped = r#"{"id":"f","role":"assistant","content":"Hi","isDelta":false,"graphPath":["\u0066inal"]}"#;
        assert_eq!(run(&[escaped], false).unwrap().text, "Hi");
        let escaped_role = r#"{"id":"a","role":"\u0061ssistant","content":"Hi","isDelta":false,"graphPath":["x"]}"#;
        assert_eq!(run(&[escaped_role], true).unwrap().text, "Hi");
    }

    #[test]
    fn odd_types_do_not_break_the_rule() {
        let structured = r#"{"id":"f","role":"assistant","content":{"table":[1]},"isDelta":"no","graphPath":["final"]}"#;
        assert_eq!(run(&[structured], false).unwrap().text, r#"{"table":[1]}"#);
        let bad_path = r#"{"id":"f","role":"assistant","content":"x","graphPath":"final"}"#;
        assert!(run(&[bad_path], false).is_none());
    }

    #[test]
    fn malformed_candidates_are_errors() {
        let mut t = FinalTracker::new(false);
        assert!(t.observe(br#"{"graphPath":["final"]"#).is_err());
        assert!(!t.observe(br#"{"other":1}"#).unwrap());
    }
}
