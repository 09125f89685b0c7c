//! What each comparison applies to, against one view: a numeric dimension it names ("order
//! total over $100"), a measure per group ("customers with more than 5 orders"), or the
//! subject's count; unresolved, it is named as not understood.

use super::Comparison;
use crate::emulator::engine::catalog::{Kind, Member, ViewCat};
use crate::emulator::engine::model::{DimKind, MeasureKind};
use crate::emulator::engine::words::words;

/// Words that may stand between a comparison and what it compares ("orders with a total over
/// $100", "customers who had more than 5 orders").
const SUBJECT_FILLERS: &[&str] = &[
    "with", "a", "an", "the", "of", "that", "which", "who", "whose", "where", "having", "had",
    "has", "have", "is", "are", "was", "were", "worth", "valued", "at", "total", "amount", "value",
    "size", "in", "from", "for", "placed", "made", "did", "do", "does",
];

/// Words that may follow a comparison's number without being what it counts ("over $100 in
/// 2025", "over $100 by country").
const CONNECTORS: &[&str] = &[
    "in", "for", "from", "by", "during", "since", "last", "this", "and", "or", "per", "on", "at",
    "with", "of", "to", "until", "before", "after", "where", "that", "which", "who", "the", "a",
    "an", "each", "every", "across", "between", "among", "please", "so", "far", "overall",
];

/// Words of a dimension that holds an amount per row ("amount", "order total", "list price").
const AMOUNT_WORDS: &[&str] = &[
    "amount", "total", "value", "price", "revenue", "sale", "sales", "cost", "paid", "spend",
    "turnover", "sum",
];

/// A phrase of a view's lexicon found in the question: where, how long, the members it may name.
pub struct Phrase {
    /// First word.
    pub at: usize,
    /// Words it spans.
    pub len: usize,
    /// Members of the view it names.
    pub candidates: Vec<usize>,
}

/// What a found phrase does in the plan when a numeric comparison decides it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read as any other phrase.
    Free,
    /// The entity of a per-group threshold: this grouping ("customers" with more than 5 orders).
    Group(usize),
    /// The measure of a per-group threshold ("more than 5 orders").
    Measure(usize),
    /// What a row filter is about ("orders" over $100): no member of its own.
    Subject,
}

/// Numeric comparisons read against one view: the roles they give phrases, and the conditions.
#[derive(Default)]
pub struct Resolved {
    /// One per phrase.
    pub roles: Vec<Role>,
    /// Row filters on numeric dimensions: (dimension, operator, value).
    pub wheres: Vec<(usize, &'static str, f64)>,
    /// Thresholds on measures per group: (measure, operator, value).
    pub having: Vec<(usize, &'static str, f64)>,
    /// The count a row filter's subject names ("orders" over $100), when nothing else is asked.
    pub subject_measure: Option<usize>,
    /// Comparisons that apply to nothing this view has.
    pub unknown: Vec<String>,
    /// Comparisons with no word before or after them to apply to: a follow-up's new bound.
    pub orphans: Vec<Comparison>,
    /// What a row filter's member is, for the answer.
    pub notes: Vec<String>,
}

/// Whether a member is named as an amount (0: a total or amount, 1: a price, cost, value...),
/// from its name, title and synonyms; identifiers never are.
pub fn amount_rank(m: &Member) -> Option<u8> {
    let mut ws = words(&m.name);
    ws.extend(words(&m.title));
    m.synonyms.iter().for_each(|s| ws.extend(words(s)));
    if ws.iter().any(|w| w == "id") {
        None
    } else if ws.iter().any(|w| w == "total" || w == "amount") {
        Some(0)
    } else if ws.iter().any(|w| AMOUNT_WORDS.contains(&w.as_str())) {
        Some(1)
    } else {
        None
    }
}

/// A numeric dimension of `cube` that holds an amount per row (an order's total, a sale's
/// amount, a product's list price), preferring totals and amounts.
fn amount_of(view: &ViewCat, cube: &str) -> Option<usize> {
    view.members
        .iter()
        .enumerate()
        .filter(|(_, m)| m.cube == cube && m.kind == Kind::Dimension(DimKind::Number))
        .filter_map(|(i, m)| Some((amount_rank(m)?, i)))
        .min()
        .map(|(_, i)| i)
}

/// The dimension that names the rows of `cube` (its `name`, `title`, `label`...), for a
/// phrase that names the cube by its count ("clients" in a model inferred from a file).
fn label_of(view: &ViewCat, cube: &str) -> Option<usize> {
    const LABELS: &[&str] = &["name", "full_name", "title", "label", "username", "email"];
    LABELS.iter().find_map(|l| {
        view.members.iter().position(|m| {
            m.cube == cube && m.member == *l && m.kind == Kind::Dimension(DimKind::String)
        })
    })
}

/// The phrases of a question in one view, and what their members are.
struct Around<'a> {
    view: &'a ViewCat,
    t: &'a [String],
    used: &'a [bool],
    phrases: &'a [Phrase],
    /// The phrase each word belongs to.
    owner: Vec<Option<usize>>,
}

impl Around<'_> {
    fn members(&self, f: usize) -> impl Iterator<Item = usize> + '_ {
        self.phrases[f].candidates.iter().copied()
    }
    fn kind(&self, m: usize) -> Kind {
        self.view.members[m].kind
    }
    /// The phrase ending just before word `j`, over filler words.
    fn before(&self, j: usize) -> Option<usize> {
        let mut k = j;
        while k > 0
            && self.owner[k - 1].is_none()
            && SUBJECT_FILLERS.contains(&self.t[k - 1].as_str())
        {
            k -= 1;
        }
        k.checked_sub(1).and_then(|k| self.owner[k])
    }
    /// The phrase starting at word `j`.
    fn at(&self, j: usize) -> Option<usize> {
        self.owner
            .get(j)
            .copied()
            .flatten()
            .filter(|&f| self.phrases[f].at == j)
    }
    fn measure(&self, f: usize) -> Option<usize> {
        self.members(f).find(|&m| self.view.members[m].is_measure())
    }
    fn count(&self, f: usize) -> Option<usize> {
        self.members(f).find(|&m| {
            matches!(
                self.kind(m),
                Kind::Measure(MeasureKind::Count | MeasureKind::CountDistinct, _)
            )
        })
    }
    /// A measure that is not the phrase's count ("revenue").
    fn other_measure(&self, f: usize) -> Option<usize> {
        self.members(f)
            .find(|&m| self.view.members[m].is_measure() && self.count(f) != Some(m))
    }
    fn numeric(&self, f: usize) -> Option<usize> {
        self.members(f)
            .find(|&m| self.kind(m) == Kind::Dimension(DimKind::Number))
    }
    /// The grouping a phrase names: a dimension, or the label of the cube it counts.
    fn entity(&self, f: usize) -> Option<usize> {
        self.members(f)
            .find(|&m| matches!(self.kind(m), Kind::Dimension(k) if k != DimKind::Time))
            .or_else(|| {
                self.count(f)
                    .and_then(|m| label_of(self.view, &self.view.members[m].cube))
            })
    }
    /// "more than 2 products", "over 5 times": the word after the number is what it counts,
    /// something that is no measure here, so the number is no amount either.
    fn counts_other(&self, c: &Comparison) -> bool {
        c.after < self.t.len()
            && (self.at(c.after).is_some()
                || !(self.used[c.after] || CONNECTORS.contains(&self.t[c.after].as_str())))
    }
}

/// What each comparison applies to, in this view ([`target`]), as conditions and roles of the
/// phrases around it. Anything else stays unknown: the question is refused rather than
/// answered without it.
pub fn resolve(
    view: &ViewCat,
    t: &[String],
    used: &[bool],
    phrases: &[Phrase],
    cmps: &[Comparison],
) -> Resolved {
    let mut owner = vec![None; t.len()];
    for (f, x) in phrases.iter().enumerate() {
        owner[x.at..x.at + x.len]
            .iter_mut()
            .for_each(|o| *o = Some(f));
    }
    let a = Around {
        view,
        t,
        used,
        phrases,
        owner,
    };
    let mut r = Resolved {
        roles: vec![Role::Free; phrases.len()],
        ..Resolved::default()
    };
    for c in cmps {
        match target(&a, c, &mut r) {
            Some((m, true)) => r.having.extend(c.bounds.iter().map(|(op, v)| (m, *op, *v))),
            Some((d, false)) => {
                r.wheres.extend(c.bounds.iter().map(|(op, v)| (d, *op, *v)));
                let m = &view.members[d];
                let what = if m.description.is_empty() {
                    format!("the {}", m.title.to_lowercase())
                } else {
                    format!("the {}, {}", m.title.to_lowercase(), m.description)
                };
                r.notes
                    .push(format!("\"{}\" is a condition on {what}", c.text));
            }
            None => {
                if a.before(c.start).is_none() && a.at(c.after).is_none() {
                    r.orphans.push(c.clone());
                }
                r.unknown.push(c.text.clone());
            }
        }
    }
    r
}

/// What one comparison applies to: (member, whether per group), setting the roles of the
/// phrases it takes.
/// - a measure after the number ("customers with more than 5 orders") is a threshold per group,
///   the group being the entity before it;
/// - a numeric dimension before it ("amount over 100", "list price under $20") is a row filter;
/// - a count before it ("orders over $100") filters rows of its cube by their amount (the
///   order total), if the cube has one;
/// - another measure before it ("products with revenue over $10,000") is a threshold per group;
/// - an entity before it ("products over $50") is a threshold on the question's measure per
///   entity, or else a filter on the entity's amount (the list price).
fn target(a: &Around<'_>, c: &Comparison, r: &mut Resolved) -> Option<(usize, bool)> {
    let subject = a.before(c.start);
    if let Some((after, m)) = a.at(c.after).and_then(|f| Some((f, a.measure(f)?))) {
        // "(customers with) more than 5 orders": a threshold per entity.
        let group = subject.map(|s| (s, a.entity(s)));
        if let Some((s, Some(e))) = group {
            r.roles[s] = Role::Group(e);
        }
        if matches!(group, Some((_, None))) {
            return None;
        }
        r.roles[after] = Role::Measure(m);
        return Some((m, true));
    }
    let s = subject.filter(|_| !a.counts_other(c))?;
    let numeric = a.numeric(s);
    let counted = a
        .count(s)
        .and_then(|m| amount_of(a.view, &a.view.members[m].cube));
    if let Some(d) = numeric.or(counted) {
        r.roles[s] = Role::Subject;
        if numeric.is_none() {
            r.subject_measure = r.subject_measure.or(a.count(s));
        }
        return Some((d, false));
    }
    if let Some(m) = a.other_measure(s) {
        // "(products with) revenue over $10,000": a threshold per entity, if named.
        r.roles[s] = Role::Measure(m);
        if let Some((e, g)) = a
            .before(a.phrases[s].at)
            .and_then(|e| Some((e, a.entity(e)?)))
        {
            r.roles[e] = Role::Group(g);
        }
        return Some((m, true));
    }
    // "products over $50": the question's measure per product, else the list price.
    let e = a.entity(s)?;
    let asked = (0..a.phrases.len())
        .filter(|&f| f != s && r.roles[f] == Role::Free)
        .find_map(|f| a.measure(f));
    if let Some(m) = asked {
        r.roles[s] = Role::Group(e);
        return Some((m, true));
    }
    let d = amount_of(a.view, &a.view.members[e].cube)?;
    r.roles[s] = Role::Subject;
    Some((d, false))
}
