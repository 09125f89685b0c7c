//! SCIM filters (RFC 7644 section 3.4.2.2): a hand-written recursive-descent parser and the
//! evaluation of a parsed filter against a rendered resource (or, inside a PATCH value path
//! such as `members[value eq "ID"]`, against one value of a multi-valued attribute).
//!
//! ```text
//! filter  = or
//! or      = and *("or" and)
//! and     = unary *("and" unary)
//! unary   = "not" unary / primary            ; not binds tighter than and, and than or
//! primary = "(" filter ")"
//!         / attrPath "[" filter "]"          ; a value path: some value satisfies the inner filter
//!         / attrPath "pr"
//!         / attrPath compareOp compValue     ; eq ne co sw ew gt ge lt le
//! compValue = "string" / number / true / false / null
//! ```
//!
//! Keywords, operators and attribute names are case-insensitive. Strings compare without
//! regard to case except for the attributes the schemas mark `caseExact` (`id`, `externalId`,
//! `meta.version`); `meta.created` and `meta.lastModified` compare as instants.

use crate::protocol::scim::{ENTERPRISE_USER_URN, USER_URN};
use serde_json::Value;
use std::cmp::Ordering;

/// A parsed filter.
#[derive(Debug, PartialEq)]
pub(crate) struct Filter(Expr);

#[derive(Debug, PartialEq)]
enum Expr {
    Or(Vec<Expr>),
    And(Vec<Expr>),
    Not(Box<Expr>),
    Present(Vec<String>),
    Compare(Vec<String>, CmpOp, Value),
    /// `attr[inner]`: some value of `attr` satisfies `inner` (evaluated on that value).
    ValuePath(Vec<String>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CmpOp {
    Eq,
    Ne,
    Co,
    Sw,
    Ew,
    Gt,
    Ge,
    Lt,
    Le,
}

impl CmpOp {
    fn parse(word: &str) -> Option<CmpOp> {
        Some(match word.to_ascii_lowercase().as_str() {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "co" => CmpOp::Co,
            "sw" => CmpOp::Sw,
            "ew" => CmpOp::Ew,
            "gt" => CmpOp::Gt,
            "ge" => CmpOp::Ge,
            "lt" => CmpOp::Lt,
            "le" => CmpOp::Le,
            _ => return None,
        })
    }

    fn ordering(self) -> bool {
        matches!(self, CmpOp::Gt | CmpOp::Ge | CmpOp::Lt | CmpOp::Le)
    }
}

#[derive(Debug, PartialEq)]
enum Token {
    Open,
    Close,
    OpenBracket,
    CloseBracket,
    /// A quoted string, unescaped (JSON string rules).
    Str(String),
    /// Anything else: an attribute path, a keyword, an operator, a number, true/false/null.
    Word(String),
}

fn tokens(s: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' | ')' | '[' | ']' => {
                chars.next();
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    '[' => Token::OpenBracket,
                    _ => Token::CloseBracket,
                });
            }
            '"' => {
                chars.next();
                let mut escaped = false;
                let end = loop {
                    match chars.next() {
                        Some((_, '\\')) if !escaped => escaped = true,
                        Some((i, '"')) if !escaped => break i,
                        Some(_) => escaped = false,
                        None => return Err("unterminated string".into()),
                    }
                };
                let raw = &s[start..=end];
                let text: String = serde_json::from_str(raw)
                    .map_err(|_| format!("{raw} is not a valid JSON string"))?;
                out.push(Token::Str(text));
            }
            _ => {
                let mut end = s.len();
                while let Some(&(i, c)) = chars.peek() {
                    if c.is_whitespace() || "()[]\"".contains(c) {
                        end = i;
                        break;
                    }
                    chars.next();
                }
                out.push(Token::Word(s[start..end].to_owned()));
            }
        }
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    /// Inside `[...]`: a second value path there is refused.
    in_value_path: bool,
}

fn is_keyword(t: Option<&Token>, word: &str) -> bool {
    matches!(t, Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
}

fn describe(t: Option<&Token>) -> String {
    match t {
        None => "the end".into(),
        Some(Token::Open) => "\"(\"".into(),
        Some(Token::Close) => "\")\"".into(),
        Some(Token::OpenBracket) => "\"[\"".into(),
        Some(Token::CloseBracket) => "\"]\"".into(),
        Some(Token::Str(s)) => format!("the string {s:?}"),
        Some(Token::Word(w)) => format!("{w:?}"),
    }
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<&Token> {
        self.at += 1;
        self.tokens.get(self.at - 1)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut all = vec![self.and()?];
        while is_keyword(self.peek(), "or") {
            self.at += 1;
            all.push(self.and()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Expr::Or(all)
        })
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut all = vec![self.unary()?];
        while is_keyword(self.peek(), "and") {
            self.at += 1;
            all.push(self.unary()?);
        }
        Ok(if all.len() == 1 {
            all.remove(0)
        } else {
            Expr::And(all)
        })
    }

    fn unary(&mut self) -> Result<Expr, String> {
        // `not` followed by an operator is an attribute named "not" (`not pr`).
        let op_follows = matches!(self.tokens.get(self.at + 1),
            Some(Token::Word(w)) if CmpOp::parse(w).is_some() || w.eq_ignore_ascii_case("pr"));
        if is_keyword(self.peek(), "not") && !op_follows {
            self.at += 1;
            return Ok(Expr::Not(Box::new(self.unary()?)));
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let attr = match self.next() {
            Some(Token::Open) => {
                let inner = self.or()?;
                return match self.next() {
                    Some(Token::Close) => Ok(inner),
                    other => Err(format!("expected \")\", found {}", describe(other))),
                };
            }
            Some(Token::Word(w)) => w.clone(),
            other => {
                return Err(format!(
                    "expected an attribute name or \"(\", found {}",
                    describe(other)
                ));
            }
        };
        let path = attr_segments(&attr).ok_or_else(|| format!("{attr:?} is not an attribute"))?;
        if self.peek() == Some(&Token::OpenBracket) {
            if self.in_value_path {
                return Err(format!("{attr:?}: a value path cannot hold another"));
            }
            self.at += 1;
            self.in_value_path = true;
            let inner = self.or()?;
            self.in_value_path = false;
            return match self.next() {
                Some(Token::CloseBracket) => Ok(Expr::ValuePath(path, Box::new(inner))),
                other => Err(format!("expected \"]\", found {}", describe(other))),
            };
        }
        let op = match self.next() {
            Some(Token::Word(w)) if w.eq_ignore_ascii_case("pr") => return Ok(Expr::Present(path)),
            Some(Token::Word(w)) => {
                CmpOp::parse(w).ok_or_else(|| format!("unknown operator {w:?} after {attr:?}"))?
            }
            other => {
                return Err(format!(
                    "expected an operator after {attr:?}, found {}",
                    describe(other)
                ));
            }
        };
        let value = match self.next() {
            Some(Token::Str(s)) => Value::String(s.clone()),
            Some(Token::Word(w)) => literal(w)?,
            other => return Err(format!("expected a value, found {}", describe(other))),
        };
        let bad = match (&value, op) {
            (Value::Bool(_) | Value::Null, o) if o.ordering() => true,
            (
                Value::Bool(_) | Value::Null | Value::Number(_),
                CmpOp::Co | CmpOp::Sw | CmpOp::Ew,
            ) => true,
            _ => false,
        };
        if bad {
            return Err(format!("{attr:?}: {value} cannot be compared with {op:?}"));
        }
        Ok(Expr::Compare(path, op, value))
    }
}

/// A bare literal: `true`, `false`, `null` (any case) or a JSON number.
fn literal(word: &str) -> Result<Value, String> {
    match word.to_ascii_lowercase().as_str() {
        "true" => return Ok(Value::Bool(true)),
        "false" => return Ok(Value::Bool(false)),
        "null" => return Ok(Value::Null),
        _ => {}
    }
    match serde_json::from_str::<Value>(word) {
        Ok(n @ Value::Number(_)) => Ok(n),
        _ => Err(format!(
            "{word:?} is not a value (strings need double quotes)"
        )),
    }
}

impl Filter {
    /// Parse a filter expression; the error says what is wrong and where.
    pub(crate) fn parse(s: &str) -> Result<Filter, String> {
        let tokens = tokens(s).map_err(|e| format!("filter: {e}"))?;
        if tokens.is_empty() {
            return Err("empty filter".into());
        }
        let mut p = Parser {
            tokens,
            at: 0,
            in_value_path: false,
        };
        let expr = p.or().map_err(|e| format!("filter: {e}"))?;
        if p.at < p.tokens.len() {
            return Err(format!(
                "filter: expected and/or, found {}",
                describe(p.peek())
            ));
        }
        Ok(Filter(expr))
    }

    /// Whether a JSON object (a resource, or one value of a multi-valued attribute) satisfies
    /// the filter.
    pub(crate) fn matches(&self, item: &Value) -> bool {
        self.0.eval(item)
    }
}

impl Expr {
    fn eval(&self, item: &Value) -> bool {
        match self {
            Expr::Or(all) => all.iter().any(|e| e.eval(item)),
            Expr::And(all) => all.iter().all(|e| e.eval(item)),
            Expr::Not(e) => !e.eval(item),
            Expr::Present(path) => values_at(item, path).iter().any(|v| assigned(v)),
            Expr::Compare(path, op, want) => compare(item, path, *op, want),
            Expr::ValuePath(path, inner) => {
                values_at(item, path).into_iter().any(|v| inner.eval(v))
            }
        }
    }
}

/// The values at `path`; a complex value found where a simple one is compared stands for its
/// `value` sub-attribute (`emails co "@x"`, `members eq "ID"`).
fn values<'a>(item: &'a Value, path: &[String]) -> Vec<&'a Value> {
    values_at(item, path)
        .into_iter()
        .filter_map(|v| match v {
            Value::Object(o) => o
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("value"))
                .map(|(_, v)| v),
            v => Some(v),
        })
        .collect()
}

/// RFC 7644: `pr` is false for null, an empty string, an empty array and an empty object.
fn assigned(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        _ => true,
    }
}

fn named(path: &[String], names: &[&[&str]]) -> bool {
    names.iter().any(|n| {
        n.len() == path.len() && n.iter().zip(path).all(|(a, b)| a.eq_ignore_ascii_case(b))
    })
}

fn case_exact(path: &[String]) -> bool {
    named(path, &[&["id"], &["externalId"], &["meta", "version"]])
}

fn is_instant(path: &[String]) -> bool {
    named(path, &[&["meta", "created"], &["meta", "lastModified"]])
}

fn compare(item: &Value, path: &[String], op: CmpOp, want: &Value) -> bool {
    let got = values(item, path);
    if want.is_null() {
        // `eq null`: unassigned; `ne null`: assigned.
        let present = got.iter().any(|v| assigned(v));
        return if op == CmpOp::Eq { !present } else { present };
    }
    if op == CmpOp::Ne {
        // Not equal to any of the values (an unassigned attribute included).
        return !got.iter().any(|g| holds(path, CmpOp::Eq, g, want));
    }
    got.iter().any(|g| holds(path, op, g, want))
}

/// One value against the literal.
fn holds(path: &[String], op: CmpOp, got: &Value, want: &Value) -> bool {
    let order = match (got, want) {
        (Value::String(g), Value::String(w)) => {
            if is_instant(path)
                && let (Some(a), Some(b)) = (instant(g), instant(w))
            {
                a.cmp(&b)
            } else if case_exact(path) {
                return text_op(op, g, w).unwrap_or_else(|| ordered(op, g.as_str().cmp(w)));
            } else {
                let (g, w) = (g.to_lowercase(), w.to_lowercase());
                return text_op(op, &g, &w).unwrap_or_else(|| ordered(op, g.cmp(&w)));
            }
        }
        (Value::Number(a), Value::Number(b)) => match a.as_f64().partial_cmp(&b.as_f64()) {
            Some(o) => o,
            None => return false,
        },
        (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
        // Lenient as the readers are: `active eq true` matches a stored "True".
        (Value::String(s), Value::Bool(b)) if s.eq_ignore_ascii_case(&b.to_string()) => {
            Ordering::Equal
        }
        _ => return false,
    };
    match op {
        CmpOp::Co | CmpOp::Sw | CmpOp::Ew => false,
        _ => ordered(op, order),
    }
}

fn text_op(op: CmpOp, got: &str, want: &str) -> Option<bool> {
    match op {
        CmpOp::Co => Some(got.contains(want)),
        CmpOp::Sw => Some(got.starts_with(want)),
        CmpOp::Ew => Some(got.ends_with(want)),
        _ => None,
    }
}

fn ordered(op: CmpOp, order: Ordering) -> bool {
    match op {
        CmpOp::Eq => order == Ordering::Equal,
        CmpOp::Ne => order != Ordering::Equal,
        CmpOp::Gt => order == Ordering::Greater,
        CmpOp::Ge => order != Ordering::Less,
        CmpOp::Lt => order == Ordering::Less,
        CmpOp::Le => order != Ordering::Greater,
        CmpOp::Co | CmpOp::Sw | CmpOp::Ew => false,
    }
}

/// An RFC 3339 date-time as (seconds since 0000-03-01, nanoseconds), offsets applied; `None`
/// when it is not one.
fn instant(s: &str) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = s.get(r)?;
        t.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| t.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if b[13] != b':' || b[16] != b':' || !(1..=12).contains(&mo) || !(1..=31).contains(&d) {
        return None;
    }
    let mut rest = &s[19..];
    let mut nanos = 0u32;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded = format!("{:0<9}", &frac[..digits.min(9)]);
        nanos = padded.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ if rest.len() == 6 && &rest[3..4] == ":" => {
            let sign = match &rest[..1] {
                "+" => 1,
                "-" => -1,
                _ => return None,
            };
            let oh: i64 = rest[1..3].parse().ok()?;
            let om: i64 = rest[4..6].parse().ok()?;
            sign * (oh * 3600 + om * 60)
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm), shifted so March starts the year.
    let (y, m) = if mo <= 2 {
        (y - 1, mo + 9)
    } else {
        (y, mo - 3)
    };
    let days = y * 365 + y / 4 - y / 100 + y / 400 + (153 * m + 2) / 5 + d - 1;
    Some((days * 86_400 + h * 3600 + mi * 60 + sec - offset, nanos))
}

/// An attribute path outside brackets (`userName`, `name.givenName`, URN-qualified, or a whole
/// extension's URN) as the keys to follow; `None` when it is not one.
pub(crate) fn attr_segments(path: &str) -> Option<Vec<String>> {
    let path = path.trim();
    let core_prefix = format!("{USER_URN}:");
    let (mut out, rest) = if path.len() > core_prefix.len()
        && path[..core_prefix.len()].eq_ignore_ascii_case(&core_prefix)
    {
        (Vec::new(), &path[core_prefix.len()..])
    } else if path.eq_ignore_ascii_case(ENTERPRISE_USER_URN) {
        return Some(vec![ENTERPRISE_USER_URN.to_owned()]);
    } else if is_urn(path) {
        let (urn, rest) = path.rsplit_once(':')?;
        (vec![urn.to_owned()], rest)
    } else {
        (Vec::new(), path)
    };
    for part in rest.split('.') {
        if !is_name(part) {
            return None;
        }
        out.push(part.to_owned());
    }
    Some(out)
}

/// The values at a path of keys (case-insensitive); a multi-valued attribute on the way
/// contributes each of its values.
pub(crate) fn values_at<'a>(item: &'a Value, segments: &[String]) -> Vec<&'a Value> {
    let mut found = vec![item];
    for seg in segments {
        let mut next = Vec::new();
        for v in found {
            let got = v.as_object().and_then(|o| {
                o.iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(seg))
                    .map(|(_, v)| v)
            });
            match got {
                Some(Value::Array(items)) => next.extend(items.iter()),
                Some(v) => next.push(v),
                None => {}
            }
        }
        found = next;
    }
    found
}

/// Whether `s` starts with `urn:` (any case).
pub(super) fn is_urn(s: &str) -> bool {
    s.get(..4).is_some_and(|p| p.eq_ignore_ascii_case("urn:"))
}

/// An attribute name (RFC 7643 section 2.1 `ATTRNAME`, with `$ref`).
pub(super) fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$')
}

#[cfg(test)]
#[path = "scim_filter_tests.rs"]
mod tests;
