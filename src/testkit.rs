//! What the unit tests' property checks share: a seeded generator and the environment knobs
//! (`*_CASES`, `*_SEED`) that make a run longer or different.

/// splitmix64: small, seeded, good enough to pick pieces and mutations.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    pub(crate) fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    /// JSON white space, one to four bytes of it, `percent` of the time.
    pub(crate) fn white(&mut self, out: &mut Vec<u8>, percent: usize) {
        if self.percent(percent) {
            for _ in 0..=self.below(3) {
                out.push(self.pick(b" \t\r\n"));
            }
        }
    }
}

/// A number from the environment, else `default`.
pub(crate) fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
