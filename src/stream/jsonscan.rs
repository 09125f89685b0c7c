//! A validating JSON scanner that builds nothing: it answers "is this line one JSON object?"
//! at close to memory speed, and on the way notes where the few top-level fields that the
//! final-answer rule needs are (`id`, `role`, `content`, `isDelta`, `graphPath`, `toolCall`),
//! and the two a chat relay needs to pass a frame on without parsing it (`sort`, `type`).
//!
//! Two scanners share the work. [`index`] classifies the line 64 bytes at a time into bit masks
//! (AVX-512 or AVX2 when the CPU has it, else SSE2, else a portable table) and checks the
//! grammar from the positions where tokens start, so the bytes inside strings cost almost
//! nothing; it only says yes or no. A line it refuses goes to [`precise`], the byte-at-a-time scanner, which says
//! where and why ([`Invalid`]). Both accept exactly the same lines (the property tests in
//! `jsonscan/tests/props.rs` hold them, and a reference scanner, to serde_json's verdict).
//! A [`FrameScanner`], for the lines of one stream, also remembers their shapes, so that a frame
//! of a kind seen before is checked without walking its grammar again (`index/shapes.rs`).
//!
//! What is accepted is RFC 8259 JSON: serde_json's verdict, but for two lines serde refuses and
//! this scanner does not, on purpose. A `\u` escape of a lone UTF-16 surrogate is valid JSON
//! text (a server that chunks UTF-16 text sends them; the answer rule repairs them), and so is a
//! number beyond f64's range (the rule salvages such a line's fields). Depth is bounded by
//! [`MAX_DEPTH`] as serde's is; duplicate keys are accepted and the last one counts, as in serde.

mod index;
mod precise;

/// Why a line is not a JSON object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// Byte offset where the problem was found.
    pub offset: usize,
    /// What was expected there.
    pub expected: &'static str,
}

/// The most containers nested in one another (the line's own object included). Deeper input is
/// reported invalid: serde_json, which reads a winning line later, refuses 128 levels, and a
/// line this scanner accepts must not vanish there.
pub const MAX_DEPTH: usize = 127;

/// The bytes between a string's quotes, still escaped when `escaped` is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte after the opening quote.
    pub start: usize,
    /// The closing quote's offset.
    pub end: usize,
    /// Whether the string holds escapes.
    pub escaped: bool,
}

/// A top-level value the rule reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// A string.
    Str(Span),
    /// Anything else but null, as the raw JSON text's byte range.
    Raw(usize, usize),
}

/// `graphPath`: its first element (when a string) and its length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GraphPath {
    /// The first element, if it is a string.
    pub head: Option<Span>,
    /// How many elements.
    pub len: usize,
}

/// Where the top-level fields the final-answer rule needs are in a line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TopFields {
    /// `id`.
    pub id: Option<Field>,
    /// `role`.
    pub role: Option<Field>,
    /// `content`.
    pub content: Option<Field>,
    /// `isDelta` is `true`.
    pub is_delta: bool,
    /// `graphPath`, when it is an array.
    pub graph_path: Option<GraphPath>,
    /// `toolCall` is present and not null.
    pub tool_call: bool,
    /// `sort`.
    pub sort: Option<Field>,
    /// `type` is present and not null.
    pub has_type: bool,
}

/// Check that `s` is exactly one JSON object (valid UTF-8 included), with optional surrounding
/// white space.
pub fn check_object(s: &[u8]) -> Result<(), Invalid> {
    scan_frame(s).map(|_| ())
}

/// Check that `s` is one JSON object and note where its rule-relevant top-level fields are.
pub fn scan_frame(s: &[u8]) -> Result<TopFields, Invalid> {
    let mut top = TopFields::default();
    scan_frame_into(s, &mut top).map(|()| top)
}

/// [`scan_frame`] writing the fields into `top` (whatever it held is replaced): the hot path of
/// `extract-final`, where moving the struct about costs as much as a short line's scan.
pub fn scan_frame_into(s: &[u8], top: &mut TopFields) -> Result<(), Invalid> {
    let valid = index::scan(s, top);
    verdict(valid, s, top)
}

/// The index's yes or no as a result: a refused line is read again by the byte-at-a-time
/// scanner, which alone says where and why (rare).
#[inline]
fn verdict(valid: bool, s: &[u8], top: &mut TopFields) -> Result<(), Invalid> {
    if valid {
        return Ok(());
    }
    let exact = precise::scan_whole(s, |p| p.object());
    debug_assert!(exact.is_err(), "the scanners disagree on {s:?}");
    exact.map(|fields| *top = fields)
}

/// [`scan_frame_into`] for a run of lines, remembering their shapes: a line shaped like one
/// accepted before (the same structure, strings and numbers aside) is checked without walking
/// its grammar again, where the CPU allows: from its shape with AVX-512 VBMI2
/// (`index/shapes.rs`), along the path of a line seen before with AVX2
/// (`index/shapes/avx2.rs`). The answers are [`scan_frame_into`]'s, line for line.
#[derive(Default)]
pub struct FrameScanner {
    /// Asked for on the first line.
    #[cfg(target_arch = "x86_64")]
    memory: Option<Memory>,
}

/// What a [`FrameScanner`] remembers of the lines before, by what the CPU can run.
#[cfg(target_arch = "x86_64")]
enum Memory {
    Shapes(index::Shapes),
    Paths(index::Paths),
    Nothing,
}

#[cfg(target_arch = "x86_64")]
impl Memory {
    fn new() -> Memory {
        if let Some(shapes) = index::Shapes::new() {
            Memory::Shapes(shapes)
        } else if let Some(paths) = index::Paths::new() {
            Memory::Paths(paths)
        } else {
            Memory::Nothing
        }
    }
}

impl std::fmt::Debug for FrameScanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrameScanner").finish_non_exhaustive()
    }
}

impl FrameScanner {
    /// Check that `s` is one JSON object and write where its rule-relevant top-level fields are
    /// into `top`, as [`scan_frame_into`] does.
    pub fn scan_frame_into(&mut self, s: &[u8], top: &mut TopFields) -> Result<(), Invalid> {
        // A long line has no shape or path worth keeping, and is scanned on two threads.
        #[cfg(target_arch = "x86_64")]
        let valid = match self.memory.get_or_insert_with(Memory::new) {
            _ if s.len() >= index::UTF8_APART => index::scan(s, top),
            Memory::Shapes(shapes) => shapes.scan(s, top),
            Memory::Paths(paths) => paths.scan(s, top),
            Memory::Nothing => index::scan(s, top),
        };
        #[cfg(not(target_arch = "x86_64"))]
        let valid = index::scan(s, top);
        verdict(valid, s, top)
    }

    /// A scanner that looks for every line's shape or path, however few recur (for tests).
    #[cfg(test)]
    fn never_resting() -> FrameScanner {
        #[cfg(target_arch = "x86_64")]
        return FrameScanner {
            memory: Some(match Memory::new() {
                Memory::Shapes(mut shapes) => {
                    shapes.never_rest();
                    Memory::Shapes(shapes)
                }
                Memory::Paths(mut paths) => {
                    paths.never_rest();
                    Memory::Paths(paths)
                }
                Memory::Nothing => Memory::Nothing,
            }),
        };
        #[cfg(not(target_arch = "x86_64"))]
        FrameScanner::default()
    }

    /// How many lines were checked from a known shape (for tests): None where the CPU cannot
    /// run the shapes' scan.
    #[cfg(test)]
    fn shape_hits(&self) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(Memory::Shapes(shapes)) = &self.memory {
            return Some(shapes.hits());
        }
        None
    }

    /// How many lines were read along a path without a shape (for tests): None where the CPU
    /// runs the shapes' scan instead, or neither.
    #[cfg(test)]
    fn path_hits(&self) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(Memory::Paths(paths)) = &self.memory {
            return Some(paths.hits());
        }
        None
    }
}

/// Which top-level key the scanner is under.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Other,
    Id,
    Role,
    Content,
    IsDelta,
    GraphPath,
    ToolCall,
    Sort,
    Type,
}

#[inline]
fn key_of(name: &[u8]) -> Key {
    // Every key of every line comes through here: compare whole words loaded from the name
    // (two overlapping ones for 7 and 9 bytes), which compile to loads and compares; slice and
    // array compares of odd lengths call memcmp.
    fn w4(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }
    fn w8(b: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
    }
    const fn c4(b: &[u8]) -> u32 {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }
    const fn c8(b: &[u8]) -> u64 {
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
    match name.len() {
        2 if name == b"id" => Key::Id,
        4 => {
            const ROLE: u32 = c4(b"role");
            const SORT: u32 = c4(b"sort");
            const TYPE: u32 = c4(b"type");
            match w4(name, 0) {
                ROLE => Key::Role,
                SORT => Key::Sort,
                TYPE => Key::Type,
                _ => Key::Other,
            }
        }
        7 => {
            const CONT: u32 = c4(b"cont");
            const TENT: u32 = c4(b"tent");
            const ISDE: u32 = c4(b"isDe");
            const ELTA: u32 = c4(b"elta");
            match (w4(name, 0), w4(name, 3)) {
                (CONT, TENT) => Key::Content,
                (ISDE, ELTA) => Key::IsDelta,
                _ => Key::Other,
            }
        }
        8 if w8(name, 0) == c8(b"toolCall") => Key::ToolCall,
        9 if w8(name, 0) == c8(b"graphPat") && name[8] == b'h' => Key::GraphPath,
        _ => Key::Other,
    }
}

/// A stack of up to 128 open containers as bits (1 = object).
#[derive(Default)]
struct BitStack {
    bits: u128,
    len: usize,
}

impl BitStack {
    #[inline]
    fn push(&mut self, is_object: bool) {
        self.bits = (self.bits << 1) | u128::from(is_object);
        self.len += 1;
    }
    #[inline]
    fn pop(&mut self) {
        self.bits >>= 1;
        self.len -= 1;
    }
    #[inline]
    fn last_is_object(&self) -> bool {
        self.bits & 1 == 1
    }
    #[inline]
    fn len(&self) -> usize {
        self.len
    }
}

impl TopFields {
    /// A top-level key seen (again): its earlier value no longer counts, so that with duplicate
    /// keys the last one wins, as it does for serde_json.
    fn forget(&mut self, key: Key) {
        match key {
            Key::Id => self.id = None,
            Key::Role => self.role = None,
            Key::Content => self.content = None,
            Key::IsDelta => self.is_delta = false,
            Key::GraphPath => self.graph_path = None,
            Key::ToolCall => self.tool_call = false,
            Key::Sort => self.sort = None,
            Key::Type => self.has_type = false,
            Key::Other => {}
        }
    }

    /// A top-level string value.
    #[inline]
    fn record_str(&mut self, key: Key, span: Span) {
        match key {
            Key::Id => self.id = Some(Field::Str(span)),
            Key::Role => self.role = Some(Field::Str(span)),
            Key::Content => self.content = Some(Field::Str(span)),
            Key::ToolCall => self.tool_call = true,
            Key::Sort => self.sort = Some(Field::Str(span)),
            Key::Type => self.has_type = true,
            _ => {}
        }
    }

    /// A top-level non-string value just ended at `end`.
    fn record_raw(&mut self, key: Key, start: usize, end: usize) {
        match key {
            Key::Id => self.id = Some(Field::Raw(start, end)),
            Key::Role => self.role = Some(Field::Raw(start, end)),
            Key::Content => self.content = Some(Field::Raw(start, end)),
            Key::ToolCall => self.tool_call = true,
            Key::Sort => self.sort = Some(Field::Raw(start, end)),
            Key::Type => self.has_type = true,
            _ => {}
        }
    }
}

/// The length of the well-formed UTF-8 sequence at the start of `s` (Unicode Table 3-7), or
/// None when it is not one.
fn utf8_len(s: &[u8]) -> Option<usize> {
    let cont = |i: usize, lo: u8, hi: u8| s.get(i).is_some_and(|b| (lo..=hi).contains(b));
    let tail = |from: usize, to: usize| (from..to).all(|i| cont(i, 0x80, 0xBF));
    match s[0] {
        0xC2..=0xDF if tail(1, 2) => Some(2),
        0xE0 if cont(1, 0xA0, 0xBF) && tail(2, 3) => Some(3),
        0xE1..=0xEC | 0xEE..=0xEF if tail(1, 3) => Some(3),
        0xED if cont(1, 0x80, 0x9F) && tail(2, 3) => Some(3),
        0xF0 if cont(1, 0x90, 0xBF) && tail(2, 4) => Some(4),
        0xF1..=0xF3 if tail(1, 4) => Some(4),
        0xF4 if cont(1, 0x80, 0x8F) && tail(2, 4) => Some(4),
        _ => None,
    }
}

/// The text of a string span, escapes resolved; None if the escapes are not valid text (e.g. a
/// lone surrogate).
pub fn unescape(s: &[u8], span: Span) -> Option<String> {
    if !span.escaped {
        return std::str::from_utf8(&s[span.start..span.end])
            .ok()
            .map(str::to_owned);
    }
    serde_json::from_slice(&s[span.start - 1..=span.end]).ok()
}

#[cfg(test)]
mod tests;
