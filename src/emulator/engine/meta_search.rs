//! The `dataMeta` tool: searching the model for views (or cubes) whose members match a query.

use crate::protocol::tool::{Cube, Member, MetaResult};

use super::catalog::{Kind, ViewCat};
use super::words::{Vocabulary, words};

/// Words too common to count as matches.
const STOP: &[&str] = &[
    "the", "a", "an", "of", "in", "on", "for", "by", "and", "or", "to", "me", "show", "what",
    "how", "many", "much", "is", "are", "was", "were", "our", "we", "did", "do", "last", "this",
    "per", "with", "give", "tell", "about", "which", "top", "bottom", "i", "you", "it", "s",
];

/// The search terms the agent sends for a question: its words without the filler.
pub fn search_query(question: &str, vocab: &Vocabulary) -> String {
    let mut terms: Vec<String> = Vec::new();
    for w in words(question).iter().map(|w| vocab.correct(w)) {
        if !STOP.contains(&w.as_str()) && !terms.contains(&w) && terms.len() < 12 {
            terms.push(w);
        }
    }
    terms.join(" ")
}

fn member_text(v: &ViewCat, i: usize) -> Vec<String> {
    let m = &v.members[i];
    let mut text = words(&m.name);
    text.extend(words(&m.title));
    text.extend(words(&m.description));
    m.synonyms.iter().for_each(|s| text.extend(words(s)));
    text
}

/// Ranks views by how many query words their names, titles, descriptions and members contain;
/// when nothing matches, every view is returned so the agent still sees the whole model.
pub fn search(query: &str, views: &[ViewCat]) -> MetaResult {
    let q: Vec<String> = words(query)
        .into_iter()
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect();
    let mut scored: Vec<(usize, usize)> = views
        .iter()
        .enumerate()
        .map(|(vi, v)| {
            let mut text = words(&v.name);
            text.extend(words(&v.title));
            text.extend(words(&v.description));
            (0..v.members.len()).for_each(|i| text.extend(member_text(v, i)));
            (q.iter().filter(|w| text.contains(w)).count(), vi)
        })
        .collect();
    scored.sort_by_key(|(score, vi)| (std::cmp::Reverse(*score), *vi));
    let any = scored.first().is_some_and(|(s, _)| *s > 0);
    let cubes: Vec<Cube> = scored
        .iter()
        .filter(|(s, _)| !any || *s > 0)
        .map(|(_, vi)| describe(&views[*vi], &q))
        .collect();
    MetaResult {
        search_query: Some(query.to_owned()).into(),
        cubes,
    }
}

/// A view with its members, those matching the query first.
fn describe(v: &ViewCat, q: &[String]) -> Cube {
    let mut order: Vec<(bool, usize)> = (0..v.members.len())
        .map(|i| (!member_text(v, i).iter().any(|w| q.contains(w)), i))
        .collect();
    order.sort();
    let members: Vec<Member> = order
        .iter()
        .map(|(_, i)| {
            let m = &v.members[*i];
            let (kind, agg_type) = match m.kind {
                Kind::Measure(agg, _) => ("number", Some(agg.as_str().to_owned())),
                Kind::Dimension(k) => (k.as_str(), None),
            };
            Member {
                name: Some(format!("{}.{}", v.name, m.name)).into(),
                title: Some(m.title.clone()).into(),
                description: Some(m.description.clone()).into(),
                kind: Some(kind.to_owned()).into(),
                agg_type: agg_type.into(),
            }
        })
        .collect();
    Cube {
        name: Some(v.name.clone()).into(),
        kind: Some(v.kind.to_string()).into(),
        title: Some(v.title.clone()).into(),
        description: Some(v.description.clone()).into(),
        members,
        ..Cube::default()
    }
}

/// The meta result as older servers shape it (PROTOCOL.md: "Older servers answer `cubes:
/// [{name, measures: [...]}]`"): each cube's name, and its members split into `measures` and
/// `dimensions` (name, title and type), without the newer `type`, `title` and `description`.
/// `serve --dialect legacy` sends it, so clients meet the shape.
pub fn older_shape(result: MetaResult) -> MetaResult {
    let cubes = result
        .cubes
        .into_iter()
        .map(|c| {
            let (measures, dimensions): (Vec<Member>, Vec<Member>) = c
                .members
                .into_iter()
                .map(|m| Member {
                    description: None.into(),
                    ..m
                })
                .partition(|m| m.agg_type.is_some());
            Cube {
                name: c.name,
                measures: measures
                    .into_iter()
                    .map(|m| Member {
                        agg_type: None.into(),
                        ..m
                    })
                    .collect(),
                dimensions,
                ..Cube::default()
            }
        })
        .collect();
    MetaResult { cubes, ..result }
}
