//! Reading SCIM collections (`GET /Users`, `GET /Groups`): one page, every page (a [`Pager`]
//! that streams page by page and keeps only the ids it has seen), one resource by id, and one
//! resource by its name (userName or displayName).

use super::reply::{http_failure, is_group, is_list_response, is_user, redirect_failure};
use super::{Failed, Reply, Request, ScimClient, encode_query};
use crate::exit::Status;
use crate::protocol::scim::{LIST_RESPONSE_URN, display_name_filter, user_name_filter};
use reqwest::Method;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

/// The most pages `--all` reads: a server whose pages never end is stopped there.
pub const MAX_PAGES: u32 = 1_000;

/// The page size `--all` asks for when `--count` is not given (servers answer fewer when
/// their `maxResults` is lower, and the pager follows what they answer).
pub const ALL_PAGE_SIZE: u64 = 1_000;

/// A SCIM resource type the client reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    /// `/Users`.
    Users,
    /// `/Groups`.
    Groups,
}

impl Resource {
    /// The endpoint's path segment.
    pub fn segment(self) -> &'static str {
        match self {
            Resource::Users => "Users",
            Resource::Groups => "Groups",
        }
    }

    /// "user" or "group".
    pub fn noun(self) -> &'static str {
        match self {
            Resource::Users => "user",
            Resource::Groups => "group",
        }
    }

    /// The attribute a resource is found by name with.
    pub fn name_attribute(self) -> &'static str {
        match self {
            Resource::Users => "userName",
            Resource::Groups => "displayName",
        }
    }

    /// "User" or "Group", as a message names what a body is not.
    pub(super) fn schema_name(self) -> &'static str {
        match self {
            Resource::Users => "User",
            Resource::Groups => "Group",
        }
    }

    /// Whether a value can be one of these resources (read leniently).
    pub fn recognises(self, v: &Value) -> bool {
        match self {
            Resource::Users => is_user(v),
            Resource::Groups => is_group(v),
        }
    }
}

/// What a list asks for.
#[derive(Clone, Debug, Default)]
pub struct ListQuery {
    /// `filter`.
    pub filter: Option<String>,
    /// `startIndex` of the first page (1-based; the server's default when `None`).
    pub start_index: Option<u64>,
    /// `count`: the page size asked for.
    pub count: Option<u64>,
    /// `attributes`.
    pub attributes: Option<String>,
}

/// One resource of a page, as the server sent it.
#[derive(Debug)]
pub struct Item {
    /// The resource's JSON text, exactly as sent.
    pub raw: Box<RawValue>,
    /// Its `id`, when it has a string one.
    pub id: Option<String>,
}

/// A ListResponse page, read leniently (keys in either case where servers differ).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct RawPage {
    schemas: Option<Value>,
    #[serde(rename = "totalResults")]
    total_results: Option<Value>,
    #[serde(rename = "itemsPerPage")]
    items_per_page: Option<Value>,
    #[serde(rename = "Resources", alias = "resources")]
    resources: Option<Vec<Box<RawValue>>>,
}

/// Only the id of a resource: the pager needs no more of it.
#[derive(Deserialize)]
struct IdOnly {
    #[serde(default, alias = "Id", alias = "ID")]
    id: Option<Value>,
}

fn count_of(v: Option<&Value>) -> Option<u64> {
    match v? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// One page as the client judged it.
#[derive(Debug)]
pub struct Page {
    /// `totalResults`, when the server said.
    pub total: Option<u64>,
    /// `itemsPerPage`, when the server said.
    pub items_per_page: Option<u64>,
    /// The resources.
    pub items: Vec<Item>,
}

impl ScimClient {
    /// `{root}/{Users|Groups}`.
    pub fn collection_url(&self, kind: Resource) -> url::Url {
        let mut url = self.root.clone();
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.pop_if_empty().push(kind.segment());
        }
        url
    }

    /// `{root}/{Users|Groups}/{id}`, the id percent-encoded as one path segment.
    pub fn resource_url(&self, kind: Resource, id: &str) -> url::Url {
        let mut url = self.collection_url(kind);
        if let Ok(mut segments) = url.path_segments_mut() {
            segments.push(id);
        }
        url
    }

    /// `GET {root}/{kind}?filter=&startIndex=&count=&attributes=`.
    pub fn list_request(&self, kind: Resource, q: &ListQuery) -> Request {
        let mut url = self.collection_url(kind);
        let mut query = Vec::new();
        if let Some(f) = &q.filter {
            query.push(format!("filter={}", encode_query(f, b"")));
        }
        if let Some(s) = q.start_index {
            query.push(format!("startIndex={s}"));
        }
        if let Some(c) = q.count {
            query.push(format!("count={c}"));
        }
        if let Some(a) = &q.attributes {
            query.push(format!("attributes={}", encode_query(a, b",")));
        }
        if !query.is_empty() {
            url.set_query(Some(&query.join("&")));
        }
        Request {
            method: Method::GET,
            url,
            headers: self.headers(),
            body: None,
        }
    }

    /// `GET {root}/{kind}/{id}`.
    pub fn get_request(&self, kind: Resource, id: &str, attributes: Option<&str>) -> Request {
        let mut url = self.resource_url(kind, id);
        if let Some(a) = attributes {
            url.set_query(Some(&format!("attributes={}", encode_query(a, b","))));
        }
        Request {
            method: Method::GET,
            url,
            headers: self.headers(),
            body: None,
        }
    }

    /// `GET {root}/{kind}?filter=<name attribute> eq "NAME"`.
    pub fn find_request(&self, kind: Resource, name: &str) -> Request {
        let filter = match kind {
            Resource::Users => user_name_filter(name),
            Resource::Groups => display_name_filter(name),
        };
        self.list_request(
            kind,
            &ListQuery {
                filter: Some(filter),
                ..ListQuery::default()
            },
        )
    }

    /// A 2xx answer with a body to read, or the failure it is.
    fn readable(reply: Reply) -> Result<Reply, Failed> {
        if reply.status.is_redirection() {
            return Err(redirect_failure(&reply));
        }
        if !reply.status.is_success() {
            return Err(http_failure(reply.status, &reply.body));
        }
        if let Some(f) = reply.unreadable() {
            return Err(f);
        }
        Ok(reply)
    }

    /// One page of a list: a 200 that is not a ListResponse is a failure saying what came back.
    pub async fn page(&self, req: &Request, salt: u64) -> Result<Page, Failed> {
        let reply = Self::readable(self.send(req, salt).await?)?;
        let not_a_list = |reply: &Reply| reply.not_a("ListResponse");
        let page: RawPage = serde_json::from_slice(&reply.body).map_err(|_| not_a_list(&reply))?;
        let is_list = page.total_results.is_some()
            || page.resources.is_some()
            || page.schemas.as_ref().is_some_and(|s| {
                s.as_array()
                    .is_some_and(|a| a.iter().any(|u| u.as_str() == Some(LIST_RESPONSE_URN)))
            });
        if !is_list {
            return Err(not_a_list(&reply));
        }
        let mut items = Vec::new();
        for raw in page.resources.unwrap_or_default() {
            let id = match serde_json::from_str::<IdOnly>(raw.get()) {
                Ok(IdOnly { id }) => match id {
                    Some(Value::String(s)) => Some(s),
                    Some(Value::Number(n)) => Some(n.to_string()),
                    _ => None,
                },
                Err(_) => {
                    return Err(Failed::new(
                        Some(reply.status.as_u16()),
                        Status::Failure,
                        format!(
                            "HTTP {} but the ListResponse holds a resource that is not an \
                             object: {}",
                            reply.status,
                            crate::protocol::words::trim_body(raw.get().as_bytes())
                        ),
                    ));
                }
            };
            items.push(Item { raw, id });
        }
        Ok(Page {
            total: count_of(page.total_results.as_ref()),
            items_per_page: count_of(page.items_per_page.as_ref()),
            items,
        })
    }

    /// One resource by id: a 200 that is not that kind of resource is a failure.
    pub async fn get(&self, req: &Request, kind: Resource, salt: u64) -> Result<Value, Failed> {
        let reply = Self::readable(self.send(req, salt).await?)?;
        match serde_json::from_slice::<Value>(&reply.body) {
            Ok(v) if kind.recognises(&v) => Ok(v),
            _ => Err(reply.not_a(kind.schema_name())),
        }
    }

    /// The one resource whose name (userName, displayName) is `name`: no match is a not-found
    /// failure and several a failure, neither with an HTTP status (nothing was changed).
    pub async fn find(&self, kind: Resource, name: &str, salt: u64) -> Result<Value, Failed> {
        let attr = kind.name_attribute();
        let noun = kind.noun();
        let lookup = |mut f: Failed| {
            f.message = format!("looking up {attr} {name:?}: {}", f.message);
            f
        };
        let reply = Self::readable(
            self.send(&self.find_request(kind, name), salt)
                .await
                .map_err(lookup)?,
        )
        .map_err(lookup)?;
        // Only a ListResponse can say "no such user": anything else read leniently as one
        // would look like zero matches.
        let list = serde_json::from_slice::<Value>(&reply.body)
            .ok()
            .filter(is_list_response)
            .and_then(|v| serde_json::from_value::<crate::protocol::scim::ListResponse>(v).ok())
            .ok_or_else(|| lookup(reply.not_a("ListResponse")))?;
        let total = usize::try_from(list.total_results.unwrap_or(0)).unwrap_or(0);
        let found = list.resources.len().max(total);
        if found == 0 {
            return Err(Failed::new(
                None,
                Status::NotFound,
                format!("no {noun} has {attr} {name:?}"),
            ));
        }
        if found > 1 {
            return Err(Failed::new(
                None,
                Status::Failure,
                format!("{found} {noun}s have {attr} {name:?}; nothing done (use the id)"),
            ));
        }
        let Some(resource) = list.resources.into_iter().next().filter(Value::is_object) else {
            return Err(lookup(Failed::new(
                None,
                Status::Failure,
                "the server counted a match but sent none",
            )));
        };
        // A server that ignores the filter and happens to hold one resource must not get that
        // one changed; names compare case-insensitively (RFC 7643 §4.1.1 for userName).
        let got = resource
            .as_object()
            .and_then(|o| o.iter().find(|(k, _)| k.eq_ignore_ascii_case(attr)))
            .and_then(|(_, v)| v.as_str());
        if let Some(other) = got.filter(|u| !u.eq_ignore_ascii_case(name)) {
            return Err(lookup(Failed::new(
                None,
                Status::Failure,
                format!("the server answered a {noun} named {other:?}; nothing done"),
            )));
        }
        Ok(resource)
    }
}

/// The id of a resource value, when it has a non-empty one.
pub fn id_of(v: &Value) -> Option<String> {
    let obj = v.as_object()?;
    let id = obj.get("id").or_else(|| {
        obj.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("id"))
            .map(|(_, v)| v)
    })?;
    match id {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The ids already handed back, each kept as a 128-bit keyed hash rather than as its text: 16
/// bytes an id however long the ids are (100,000 UUIDs would take about 9 MB as strings, 2 MB
/// so), and with two random 64-bit keys a collision that would hide a user has a chance of
/// about n²/2¹²⁹ (below 10⁻²⁸ for 100,000 ids).
#[derive(Debug, Default)]
struct Seen {
    keys: (RandomState, RandomState),
    set: HashSet<u128>,
}

impl Seen {
    /// Whether `id` is new (and remember it).
    fn insert(&mut self, id: &str) -> bool {
        let high = u128::from(self.keys.0.hash_one(id));
        let low = u128::from(self.keys.1.hash_one(id));
        self.set.insert(high << 64 | low)
    }
}

/// Every page of a list, streamed: [`Pager::next`] hands back each page's resources as they
/// come, each id once (repeats across pages are counted, not handed back). It keeps only a
/// fingerprint of each id seen, so memory stays nearly flat over any number of resources.
#[derive(Debug)]
pub struct Pager<'a> {
    client: &'a ScimClient,
    kind: Resource,
    query: ListQuery,
    all: bool,
    next_start: u64,
    pages: u32,
    done: bool,
    seen: Seen,
    /// Resources handed back.
    pub read: u64,
    /// Resources that came again on a later page (not handed back).
    pub duplicates: u64,
    /// `totalResults` of the last page that said it.
    pub total: Option<u64>,
}

impl<'a> Pager<'a> {
    /// A walk over `kind` as `query` asks; `all` follows the pages, else one page is read.
    pub fn new(client: &'a ScimClient, kind: Resource, mut query: ListQuery, all: bool) -> Self {
        if all && query.count.is_none() {
            query.count = Some(ALL_PAGE_SIZE);
        }
        Pager {
            client,
            kind,
            next_start: query.start_index.unwrap_or(1).max(1),
            query,
            all,
            pages: 0,
            done: false,
            seen: Seen::default(),
            read: 0,
            duplicates: 0,
            total: None,
        }
    }

    /// The request of the next page (also what `--dry-run` shows for the first).
    pub fn request(&self) -> Request {
        let mut q = self.query.clone();
        if self.pages > 0 || q.start_index.is_some() {
            q.start_index = Some(self.next_start);
        } else if self.all {
            q.start_index = Some(1);
        }
        self.client.list_request(self.kind, &q)
    }

    /// The next page's new resources; `None` once the walk is over. A failure ends the walk.
    pub async fn next(&mut self) -> Option<Result<Vec<Item>, Failed>> {
        if self.done {
            return None;
        }
        if self.pages >= MAX_PAGES {
            self.done = true;
            return Some(Err(Failed::new(
                None,
                Status::Failure,
                format!(
                    "stopped after {MAX_PAGES} pages ({} {}s read{}): the server's pages do not \
                     end (a larger --count reads more a page)",
                    self.read,
                    self.kind.noun(),
                    match self.total {
                        Some(t) => format!(" of totalResults {t}"),
                        None => String::new(),
                    }
                ),
            )));
        }
        let req = self.request();
        let page = match self.client.page(&req, u64::from(self.pages)).await {
            Ok(p) => p,
            Err(f) => {
                self.done = true;
                return Some(Err(f));
            }
        };
        let start = self.next_start;
        self.pages += 1;
        if page.total.is_some() {
            self.total = page.total;
        }
        let n = page.items.len() as u64;
        let mut fresh = Vec::with_capacity(page.items.len());
        for item in page.items {
            match &item.id {
                Some(id) if !self.seen.insert(id) => self.duplicates += 1,
                _ => fresh.push(item),
            }
        }
        self.read += fresh.len() as u64;
        // The next page starts after what this one answered: itemsPerPage, or the resources
        // counted when fewer came (so a wrong itemsPerPage never skips anyone).
        let advance = page
            .items_per_page
            .filter(|&i| i > 0)
            .map_or(n, |i| i.min(n));
        self.next_start = start.saturating_add(advance);
        let covered = self.next_start - 1;
        if !self.all || n == 0 || self.total.is_some_and(|t| covered >= t) {
            self.done = true;
        } else if fresh.is_empty() {
            // A whole page of resources already read: the server ignores startIndex and
            // answers the same page again. What it said so far is all it will say.
            self.done = true;
            if let Some(t) = self.total.filter(|&t| self.read < t) {
                return Some(Err(Failed::new(
                    None,
                    Status::Failure,
                    format!(
                        "the server sent the same {}s again for startIndex {start}: it ignores \
                         paging, so only {} of its {t} {}s were read",
                        self.kind.noun(),
                        self.read,
                        self.kind.noun()
                    ),
                )));
            }
        }
        Some(Ok(fresh))
    }
}
