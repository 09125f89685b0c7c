//! A validating JSON scanner that builds nothing: it answers "is this line one JSON object?"
//! at close to memory speed, so `extract-final` can check every line without parsing it.
//!
//! Strings, which make up most of a chat stream, are skipped eight bytes at a time: a word is
//! only looked at byte by byte when it holds a quote, a backslash or a control character.
//! UTF-8 is checked separately by the caller (the standard library's check is vectorised).

/// Why a line is not a JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// Byte offset where the problem was found.
    pub offset: usize,
    /// What was expected there.
    pub expected: &'static str,
}

/// The deepest nesting accepted; deeper input is reported invalid rather than risking the stack
/// (the scanner itself does not recurse, but the parsers that may read the line later do).
pub const MAX_DEPTH: usize = 128;

/// Check that `s` is exactly one JSON object, with optional surrounding white space.
pub fn check_object(s: &[u8]) -> Result<(), Invalid> {
    let mut p = Scanner { s, i: 0 };
    p.ws();
    if p.peek() != Some(b'{') {
        return Err(p.err("'{' (a JSON object)"));
    }
    p.value()?;
    p.ws();
    if p.i != s.len() {
        return Err(p.err("end of line after the object"));
    }
    Ok(())
}

struct Scanner<'a> {
    s: &'a [u8],
    i: usize,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Bytes of `w` equal to zero, as high bits (exact, no false positives).
#[inline]
fn zero_bytes(w: u64) -> u64 {
    // Exact form: no borrow between lanes.
    !(((w & !HI).wrapping_add(!HI)) | w | !HI)
}

/// Whether any byte of `w` is `"`, `\` or below 0x20.
#[inline]
fn has_special(w: u64) -> bool {
    let quote = zero_bytes(w ^ (LO * b'"' as u64));
    let backslash = zero_bytes(w ^ (LO * b'\\' as u64));
    // Bytes < 0x20: the top three bits are zero.
    let control = zero_bytes(w & (LO * 0xE0));
    (quote | backslash | control) != 0
}

impl Scanner<'_> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn err(&self, expected: &'static str) -> Invalid {
        Invalid {
            offset: self.i,
            expected,
        }
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    /// One value, without recursion: a stack of open containers (true = object).
    fn value(&mut self) -> Result<(), Invalid> {
        let mut stack: Vec<bool> = Vec::new();
        loop {
            // Expect a value.
            self.ws();
            match self.peek() {
                Some(b'{') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b'}') {
                        self.i += 1;
                    } else {
                        if stack.len() >= MAX_DEPTH {
                            return Err(self.err("less nesting"));
                        }
                        stack.push(true);
                        self.key()?;
                        continue;
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    self.ws();
                    if self.peek() == Some(b']') {
                        self.i += 1;
                    } else {
                        if stack.len() >= MAX_DEPTH {
                            return Err(self.err("less nesting"));
                        }
                        stack.push(false);
                        continue;
                    }
                }
                Some(b'"') => self.string()?,
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                _ => return Err(self.err("a value")),
            }
            // After a value: close containers or move to the next element.
            loop {
                let Some(&is_object) = stack.last() else {
                    return Ok(());
                };
                self.ws();
                match (self.peek(), is_object) {
                    (Some(b','), true) => {
                        self.i += 1;
                        self.ws();
                        self.key()?;
                        break;
                    }
                    (Some(b','), false) => {
                        self.i += 1;
                        break;
                    }
                    (Some(b'}'), true) | (Some(b']'), false) => {
                        self.i += 1;
                        stack.pop();
                    }
                    (_, true) => return Err(self.err("',' or '}'")),
                    (_, false) => return Err(self.err("',' or ']'")),
                }
            }
        }
    }

    /// `"key"` then `:`.
    fn key(&mut self) -> Result<(), Invalid> {
        if self.peek() != Some(b'"') {
            return Err(self.err("a string key"));
        }
        self.string()?;
        self.ws();
        if self.peek() != Some(b':') {
            return Err(self.err("':'"));
        }
        self.i += 1;
        Ok(())
    }

    fn string(&mut self) -> Result<(), Invalid> {
        self.i += 1; // opening quote
        let s = self.s;
        loop {
            // Skip plain words eight bytes at a time.
            while self.i + 8 <= s.len() {
                let w = u64::from_le_bytes(s[self.i..self.i + 8].try_into().unwrap());
                if has_special(w) {
                    break;
                }
                self.i += 8;
            }
            match s.get(self.i) {
                None => return Err(self.err("a closing '\"'")),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.i += 1;
                    match s.get(self.i) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => self.i += 1,
                        Some(b'u') => {
                            let hex = s.get(self.i + 1..self.i + 5);
                            if !hex.is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) {
                                return Err(self.err("four hex digits after \\u"));
                            }
                            self.i += 5;
                        }
                        _ => return Err(self.err("a valid escape")),
                    }
                }
                Some(&b) if b < 0x20 => return Err(self.err("no control character in a string")),
                Some(_) => self.i += 1,
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), Invalid> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            Err(self.err("true, false or null"))
        }
    }

    fn number(&mut self) -> Result<(), Invalid> {
        let digits = |p: &mut Self| {
            let start = p.i;
            while p.peek().is_some_and(|b| b.is_ascii_digit()) {
                p.i += 1;
            }
            p.i > start
        };
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.err("a digit")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !digits(self) {
                return Err(self.err("a digit after '.'"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !digits(self) {
                return Err(self.err("a digit in the exponent"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &[&str] = &[
        "{}",
        " { } ",
        r#"{"a":1}"#,
        r#"{"a":[1,2.5,-3e10,0,-0.1E+2,true,false,null,"x",{},[]]}"#,
        r#"{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00 long text long text long text"}"#,
        r#"{"nested":{"a":{"b":{"c":[[[{"d":"e"}]]]}}}}"#,
        "{\"unicode\":\"h\u{e9}llo w\u{f6}rld \u{1F600}\"}",
    ];

    const INVALID: &[&str] = &[
        "",
        "[]",
        "1",
        "\"x\"",
        "{",
        "}",
        r#"{"a"}"#,
        r#"{"a":}"#,
        r#"{"a":1,}"#,
        r#"{"a":1 "b":2}"#,
        r#"{a:1}"#,
        r#"{"a":01}"#,
        r#"{"a":1.}"#,
        r#"{"a":-}"#,
        r#"{"a":1e}"#,
        r#"{"a":tru}"#,
        r#"{"a":"\x"}"#,
        r#"{"a":"\u12"}"#,
        "{\"a\":\"tab\there\"}",
        r#"{"a":[1,]}"#,
        r#"{"a":[1}"#,
        r#"{} {}"#,
        r#"{"a":1}x"#,
        r#"{"a":"unterminated}"#,
        r#"{"a":NaN}"#,
    ];

    #[test]
    fn agrees_with_serde_json() {
        for s in VALID {
            assert!(check_object(s.as_bytes()).is_ok(), "{s}");
            assert!(serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(s).is_ok());
        }
        for s in INVALID {
            assert!(check_object(s.as_bytes()).is_err(), "{s}");
            assert!(
                serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(s).is_err(),
                "{s}"
            );
        }
    }

    #[test]
    fn every_prefix_of_a_valid_object_is_invalid() {
        let s = br#"{"id":"x","content":"some \"quoted\" text with \u00e9","n":[1,2,{"k":null}]}"#;
        for end in 0..s.len() {
            assert!(
                check_object(&s[..end]).is_err(),
                "{}",
                String::from_utf8_lossy(&s[..end])
            );
        }
        assert!(check_object(s).is_ok());
    }

    #[test]
    fn special_bytes_are_found_in_every_lane() {
        for lane in 0..8 {
            for special in [b'"', b'\\', 0x00, 0x1f] {
                let mut w = [b'a'; 8];
                w[lane] = special;
                assert!(
                    has_special(u64::from_le_bytes(w)),
                    "lane {lane} byte {special}"
                );
            }
            let mut w = [b'a'; 8];
            w[lane] = 0xC3; // UTF-8 lead bytes are plain string content
            assert!(!has_special(u64::from_le_bytes(w)));
            w[lane] = b' ';
            assert!(!has_special(u64::from_le_bytes(w)));
        }
    }

    #[test]
    fn depth_is_bounded() {
        let deep = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        assert!(check_object(deep.as_bytes()).is_err());
        let ok = format!("{{\"a\":{}{}}}", "[".repeat(10), "]".repeat(10));
        assert!(check_object(ok.as_bytes()).is_ok());
    }
}
