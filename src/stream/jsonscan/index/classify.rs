//! Classification of a 64-byte block into the bit masks the structural index is built from:
//! AVX-512 or AVX2 when the CPU has it (asked once), SSE2 (part of every x86_64), or a portable
//! table. Each reads a line's blocks in place ([`Classify::classify_at`]): the last one, short,
//! is a shifted copy of the line's last 64 bytes, a padded copy of a short line, or (AVX-512)
//! one masked load.

use super::{Chunk, Lexer, escapes_are_valid};

/// One 64-byte block as bit masks: bit `i` is byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(in crate::stream::jsonscan) struct Masks {
    /// `"`
    pub quote: u64,
    /// `\`
    pub backslash: u64,
    /// `{`, `}`, `[`, `]`, `:`, `,`
    pub op: u64,
    /// ` `
    pub space: u64,
    /// Below 0x20 or at or above 0x80 (a signed compare with 0x20).
    pub low: u64,
    /// At or above 0x80.
    pub high: u64,
}

/// A way to classify a block.
pub(in crate::stream::jsonscan) trait Classify: Copy {
    fn classify(self, block: &[u8; 64]) -> Masks;

    /// The block of `s` at `base` (below `s.len()`), classified, and which of its 64 bits are
    /// bytes of `s`: past the end of `s` reads as white space (a space is all the masks see).
    #[inline(always)]
    fn classify_at(self, s: &[u8], base: usize) -> (Masks, u64) {
        let rest = s.len() - base;
        if let Some(block) = s[base..].first_chunk::<64>() {
            (self.classify(block), !0)
        } else if let Some(tail) = s.last_chunk::<64>() {
            // The last, short block of a long line: the line's last 64 bytes, shifted so that
            // bit 0 is `base`; bits past the end come in as zero.
            let m = self.classify(tail);
            let shift = 64 - rest;
            let m = Masks {
                quote: m.quote >> shift,
                backslash: m.backslash >> shift,
                op: m.op >> shift,
                space: m.space >> shift,
                low: m.low >> shift,
                high: m.high >> shift,
            };
            (m, (1u64 << rest) - 1)
        } else {
            // A line shorter than a block: padded with spaces.
            let mut block = [b' '; 64];
            block[..rest].copy_from_slice(&s[base..]);
            (self.classify(&block), (1u64 << rest) - 1)
        }
    }

    /// Classify the lexer's next blocks into `chunk`. Out of line, once per chunk: inlined,
    /// the classification would be copied into every place the walk asks for a token (a
    /// function of tens of kilobytes).
    #[inline(never)]
    fn refill(lex: &mut Lexer<Self>, s: &[u8], chunk: &mut Chunk) {
        lex.fill_chunk(s, chunk)
    }

    /// Whether each escaped byte of the block at `base` (bits of `escaped`) is one JSON allows
    /// after a backslash, as [`escapes_are_valid`] checks them one at a time (a bit past the
    /// end of `s`, after a line's last backslash, is not). The AVX classifications look a whole block up at once where it holds two
    /// escapes or more (a JSON document inside a string escapes every quote).
    #[inline(always)]
    fn escapes_valid(self, s: &[u8], base: usize, escaped: u64) -> bool {
        escapes_are_valid(s, base, escaped)
    }

    /// Bit `i` is the parity of the bits `0..=i` of `x` (which bytes are inside a string).
    #[inline(always)]
    fn prefix_xor(self, mut x: u64) -> u64 {
        x ^= x << 1;
        x ^= x << 2;
        x ^= x << 4;
        x ^= x << 8;
        x ^= x << 16;
        x ^= x << 32;
        x
    }
}

/// Classification one byte at a time through a table: the path for targets without SIMD here
/// (on x86_64, only the tests use it, as the model the SIMD paths must match).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(in crate::stream::jsonscan) mod portable {
    use super::{Classify, Masks};

    #[derive(Clone, Copy)]
    pub(in crate::stream::jsonscan) struct Portable;

    const QUOTE: u8 = 1;
    const BACKSLASH: u8 = 2;
    const OP: u8 = 4;
    const SPACE: u8 = 8;
    const LOW: u8 = 16;
    const HIGH: u8 = 32;

    const CLASSES: [u8; 256] = {
        let mut t = [0u8; 256];
        let mut b = 0;
        while b < 256 {
            t[b] = match b as u8 {
                b'"' => QUOTE,
                b'\\' => BACKSLASH,
                b'{' | b'}' | b'[' | b']' | b':' | b',' => OP,
                b' ' => SPACE,
                0..=0x1F => LOW,
                0x80..=0xFF => LOW | HIGH,
                _ => 0,
            };
            b += 1;
        }
        t
    };

    impl Classify for Portable {
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Masks {
            let mut m = Masks::default();
            for (i, &b) in block.iter().enumerate() {
                let c = CLASSES[b as usize];
                let bit = |class: u8| u64::from(c & class != 0) << i;
                m.quote |= bit(QUOTE);
                m.backslash |= bit(BACKSLASH);
                m.op |= bit(OP);
                m.space |= bit(SPACE);
                m.low |= bit(LOW);
                m.high |= bit(HIGH);
            }
            m
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(in crate::stream::jsonscan) use x86::{Avx2, Avx512, Sse2, scan_avx2, scan_avx512};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::{Chunk, Lexer, escapes_are_valid, scan_into};
    use super::{Classify, Masks};
    use crate::stream::jsonscan::TopFields;
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    /// SSE2, part of every x86_64 CPU: four 16-byte lanes per block.
    #[derive(Clone, Copy)]
    pub(in crate::stream::jsonscan) struct Sse2;

    impl Classify for Sse2 {
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Masks {
            let mut m = Masks::default();
            for k in 0..4 {
                // SAFETY: SSE2 is part of the x86_64 baseline, and the load reads bytes
                // 16k..16k+16 of a 64-byte array (unaligned loads are allowed).
                unsafe {
                    let v = _mm_loadu_si128(block.as_ptr().add(16 * k).cast());
                    // '{' and '[' differ only in bit 0x20, as do '}' and ']'.
                    let folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
                    let op = _mm_or_si128(
                        _mm_or_si128(
                            _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'{' as i8)),
                            _mm_cmpeq_epi8(folded, _mm_set1_epi8(b'}' as i8)),
                        ),
                        _mm_or_si128(
                            _mm_cmpeq_epi8(v, _mm_set1_epi8(b':' as i8)),
                            _mm_cmpeq_epi8(v, _mm_set1_epi8(b',' as i8)),
                        ),
                    );
                    let at = |x: i32| u64::from(x as u16) << (16 * k);
                    m.quote |= at(_mm_movemask_epi8(_mm_cmpeq_epi8(
                        v,
                        _mm_set1_epi8(b'"' as i8),
                    )));
                    m.backslash |= at(_mm_movemask_epi8(_mm_cmpeq_epi8(
                        v,
                        _mm_set1_epi8(b'\\' as i8),
                    )));
                    m.op |= at(_mm_movemask_epi8(op));
                    m.space |= at(_mm_movemask_epi8(_mm_cmpeq_epi8(
                        v,
                        _mm_set1_epi8(b' ' as i8),
                    )));
                    // Signed: 0x80..=0xFF are negative, so they are "below 0x20" too.
                    m.low |= at(_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20))));
                    m.high |= at(_mm_movemask_epi8(v));
                }
            }
            m
        }
    }

    /// [`Classify::escapes_valid`] of a block of `s` with AVX2 (an `Avx512` has it too): the
    /// bytes that may follow a backslash (`"\\/bfnrtu`) found by two 16-entry lookups, of each
    /// byte's low and high half, whose bits meet only for those nine bytes; a `u`'s four hex
    /// digits are then checked one escape at a time. A single escape, or one in a line's short
    /// last block, is checked on its own.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline(always)]
    unsafe fn escapes_valid_avx2(s: &[u8], base: usize, escaped: u64) -> bool {
        let block = match s[base..].first_chunk::<64>() {
            Some(block) if escaped & escaped.wrapping_sub(1) != 0 => block,
            _ => return escapes_are_valid(s, base, escaped),
        };
        // Bits by high half: 2 -> 1 (`"` `/`), 5 -> 2 (`\`), 6 -> 4 (`b` `f` `n`),
        // 7 -> 8 (`r` `t` `u`); by low half, the bits of the high halves it goes with.
        const LOW: [i8; 16] = [0, 0, 1 | 4 | 8, 0, 8, 8, 4, 0, 0, 0, 0, 0, 2, 0, 4, 1];
        const HIGH: [i8; 16] = [0, 0, 1, 0, 0, 2, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0];
        let (mut allowed, mut u) = (0u64, 0u64);
        // SAFETY: the caller's (AVX2); the loads read bytes 32k..32k+32 of a 64-byte array.
        unsafe {
            let table = |t: [i8; 16]| {
                _mm256_setr_epi8(
                    t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11],
                    t[12], t[13], t[14], t[15], t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7],
                    t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15],
                )
            };
            let (low, high) = (table(LOW), table(HIGH));
            let nibble = _mm256_set1_epi8(0x0F);
            for k in 0..2 {
                let v = _mm256_loadu_si256(block.as_ptr().add(32 * k).cast());
                let lo = _mm256_and_si256(v, nibble);
                let hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
                let both =
                    _mm256_and_si256(_mm256_shuffle_epi8(low, lo), _mm256_shuffle_epi8(high, hi));
                let none = _mm256_movemask_epi8(_mm256_cmpeq_epi8(both, _mm256_setzero_si256()));
                allowed |= u64::from(!(none as u32)) << (32 * k);
                let is_u = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'u' as i8)));
                u |= u64::from(is_u as u32) << (32 * k);
            }
        }
        escaped & !allowed == 0 && (escaped & u == 0 || escapes_are_valid(s, base, escaped & u))
    }

    /// AVX2: two 32-byte lanes per block. A value exists only when the CPU has AVX2.
    #[derive(Clone, Copy)]
    pub(in crate::stream::jsonscan) struct Avx2(());

    /// What the CPU offers, asked once: 0 not asked yet, else 1 + a [`Level`].
    static LEVEL: AtomicU8 = AtomicU8::new(0);

    /// The instruction sets a scan can be compiled for, in order.
    #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    enum Level {
        Sse2,
        /// AVX2, with PCLMULQDQ, BMI1, BMI2 and POPCNT (every CPU with AVX2 has them; asked
        /// all the same, since the whole scan is compiled for them).
        Avx2,
        /// AVX-512 F and BW on top of those.
        Avx512,
    }

    fn level() -> Level {
        let known = LEVEL.load(Ordering::Relaxed);
        if known != 0 {
            return [Level::Sse2, Level::Avx2, Level::Avx512][usize::from(known - 1)];
        }
        let avx2 = is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("pclmulqdq")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("bmi2")
            && is_x86_feature_detected!("popcnt");
        let level = if !avx2 {
            Level::Sse2
        } else if is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw") {
            Level::Avx512
        } else {
            Level::Avx2
        };
        LEVEL.store(1 + level as u8, Ordering::Relaxed);
        level
    }

    impl Avx2 {
        /// The proof that the CPU has AVX2, if it does (asked once, then cached).
        #[inline]
        pub(in crate::stream::jsonscan) fn detect() -> Option<Avx2> {
            (level() >= Level::Avx2).then_some(Avx2(()))
        }
    }

    impl Classify for Avx2 {
        /// Two 32-byte lanes. The intrinsics are written here rather than in a function of
        /// their own compiled for AVX2: LLVM would not always inline such a function into the
        /// scan (it looks at the feature sets before the scan's are known), and a call per
        /// block showed in profiles.
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Masks {
            let mut m = Masks::default();
            for k in 0..2 {
                // SAFETY: an `Avx2` exists only when the CPU has AVX2 (`Avx2::detect`); the
                // load reads bytes 32k..32k+32 of a 64-byte array (unaligned loads are
                // allowed).
                unsafe {
                    let v = _mm256_loadu_si256(block.as_ptr().add(32 * k).cast());
                    let folded = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
                    let op = _mm256_or_si256(
                        _mm256_or_si256(
                            _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b'{' as i8)),
                            _mm256_cmpeq_epi8(folded, _mm256_set1_epi8(b'}' as i8)),
                        ),
                        _mm256_or_si256(
                            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b':' as i8)),
                            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b',' as i8)),
                        ),
                    );
                    let at = |x: i32| u64::from(x as u32) << (32 * k);
                    let eq = |c: u8| {
                        _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8)))
                    };
                    m.quote |= at(eq(b'"'));
                    m.backslash |= at(eq(b'\\'));
                    m.op |= at(_mm256_movemask_epi8(op));
                    m.space |= at(eq(b' '));
                    // Signed: 0x80..=0xFF are negative, so "0x20 > v" holds for them too.
                    m.low |= at(_mm256_movemask_epi8(_mm256_cmpgt_epi8(
                        _mm256_set1_epi8(0x20),
                        v,
                    )));
                    m.high |= at(_mm256_movemask_epi8(v));
                }
            }
            m
        }

        #[inline(always)]
        fn refill(lex: &mut Lexer<Self>, s: &[u8], chunk: &mut Chunk) {
            // SAFETY: an `Avx2` exists only when the CPU has the features the function is
            // compiled for.
            unsafe { refill_avx2(lex, s, chunk) }
        }

        #[inline(always)]
        fn escapes_valid(self, s: &[u8], base: usize, escaped: u64) -> bool {
            // SAFETY: an `Avx2` exists only when the CPU has AVX2.
            unsafe { escapes_valid_avx2(s, base, escaped) }
        }

        /// One carry-less multiplication by all ones.
        #[inline(always)]
        fn prefix_xor(self, x: u64) -> u64 {
            // SAFETY: an `Avx2` exists only when the CPU has PCLMULQDQ too.
            unsafe {
                let product =
                    _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set1_epi8(-1), 0);
                _mm_cvtsi128_si64(product) as u64
            }
        }
    }

    /// [`Lexer::fill_chunk`] compiled for AVX2, so that the classification inlines into it.
    ///
    /// # Safety
    /// The CPU must have the features `Avx2::detect` asks for.
    #[target_feature(enable = "avx2,pclmulqdq,bmi1,bmi2,popcnt")]
    #[inline(never)]
    unsafe fn refill_avx2(lex: &mut Lexer<Avx2>, s: &[u8], chunk: &mut Chunk) {
        lex.fill_chunk(s, chunk)
    }

    /// A whole line scanned with AVX2: one call per line, with the classification, the walk
    /// and everything they call compiled for these features and inlined into it.
    ///
    /// # Safety
    /// The CPU must have the features `Avx2::detect` asks for.
    #[target_feature(enable = "avx2,pclmulqdq,bmi1,bmi2,popcnt")]
    pub(in crate::stream::jsonscan) unsafe fn scan_avx2(
        s: &[u8],
        avx2: Avx2,
        top: &mut TopFields,
        long: Option<&std::sync::Arc<super::super::Pieces>>,
    ) -> bool {
        scan_into(s, avx2, top, long)
    }
    /// AVX-512 (F and BW): a block is one 64-byte register, and each class one compare into a
    /// mask register, which is the bit mask itself (AVX2 needs two halves, a byte-mask
    /// extraction per half and a shift to join them). The last, short block of a line is one
    /// masked load, the bytes past the end read as spaces: no shifting, no copy. A value exists
    /// only when the CPU has AVX-512 F and BW, and AVX2 (with what `Avx2` asks for).
    #[derive(Clone, Copy)]
    pub(in crate::stream::jsonscan) struct Avx512(());

    impl Avx512 {
        /// The proof that the CPU has AVX-512 F and BW, if it does (asked once, then cached).
        #[inline]
        pub(in crate::stream::jsonscan) fn detect() -> Option<Avx512> {
            (level() >= Level::Avx512).then_some(Avx512(()))
        }

        /// The masks of a register of 64 bytes.
        ///
        /// # Safety
        /// The CPU must have AVX-512 F and BW (an `Avx512` proves it).
        #[inline(always)]
        unsafe fn masks(v: __m512i) -> Masks {
            // SAFETY: the caller's.
            unsafe {
                let eq = |c: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(c as i8));
                // '{' and '[' differ only in bit 0x20, as do '}' and ']'.
                let folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
                let op = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8(b'{' as i8))
                    | _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8(b'}' as i8))
                    | eq(b':')
                    | eq(b',');
                Masks {
                    quote: eq(b'"'),
                    backslash: eq(b'\\'),
                    op,
                    space: eq(b' '),
                    // Signed: 0x80..=0xFF are negative, so they are "below 0x20" too.
                    low: _mm512_cmplt_epi8_mask(v, _mm512_set1_epi8(0x20)),
                    high: _mm512_movepi8_mask(v),
                }
            }
        }
    }

    impl Classify for Avx512 {
        #[inline(always)]
        fn classify(self, block: &[u8; 64]) -> Masks {
            // SAFETY: an `Avx512` exists only when the CPU has AVX-512 F and BW; the load reads
            // the 64 bytes of the array.
            unsafe { Self::masks(_mm512_loadu_si512(block.as_ptr().cast())) }
        }

        #[inline(always)]
        fn classify_at(self, s: &[u8], base: usize) -> (Masks, u64) {
            let rest = s.len() - base;
            let valid = if rest >= 64 { !0 } else { (1u64 << rest) - 1 };
            // SAFETY: an `Avx512` exists only when the CPU has AVX-512 F and BW. `base` is
            // below `s.len()`, so the address is in `s`; the load reads only the bytes whose
            // bit is set in `valid`, those of `s` (a masked load neither reads nor faults on
            // the others; they take the value of the spaces given).
            unsafe {
                let v = _mm512_mask_loadu_epi8(
                    _mm512_set1_epi8(b' ' as i8),
                    valid,
                    s.as_ptr().add(base).cast(),
                );
                (Self::masks(v), valid)
            }
        }

        #[inline(always)]
        fn refill(lex: &mut Lexer<Self>, s: &[u8], chunk: &mut Chunk) {
            // SAFETY: an `Avx512` exists only when the CPU has the features the function is
            // compiled for.
            unsafe { refill_avx512(lex, s, chunk) }
        }

        #[inline(always)]
        fn escapes_valid(self, s: &[u8], base: usize, escaped: u64) -> bool {
            // SAFETY: an `Avx512` exists only when the CPU has AVX2 too.
            unsafe { escapes_valid_avx2(s, base, escaped) }
        }

        #[inline(always)]
        fn prefix_xor(self, x: u64) -> u64 {
            // SAFETY: an `Avx512` exists only when the CPU has what `Avx2` asks for.
            Avx2(()).prefix_xor(x)
        }
    }

    /// [`Lexer::fill_chunk`] compiled for AVX-512, so that the classification inlines into it.
    ///
    /// # Safety
    /// The CPU must have the features `Avx512::detect` asks for.
    #[target_feature(enable = "avx512f,avx512bw,avx2,pclmulqdq,bmi1,bmi2,popcnt")]
    #[inline(never)]
    unsafe fn refill_avx512(lex: &mut Lexer<Avx512>, s: &[u8], chunk: &mut Chunk) {
        lex.fill_chunk(s, chunk)
    }

    /// A whole line scanned with AVX-512, as [`scan_avx2`] is with AVX2.
    ///
    /// # Safety
    /// The CPU must have the features `Avx512::detect` asks for.
    #[target_feature(enable = "avx512f,avx512bw,avx2,pclmulqdq,bmi1,bmi2,popcnt")]
    pub(in crate::stream::jsonscan) unsafe fn scan_avx512(
        s: &[u8],
        avx512: Avx512,
        top: &mut TopFields,
        long: Option<&std::sync::Arc<super::super::Pieces>>,
    ) -> bool {
        scan_into(s, avx512, top, long)
    }
}
