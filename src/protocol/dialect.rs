//! The wire variants the service ships in (PROTOCOL.md, "Wire variants"): what differs between
//! the service's own document (`seed`), the vendor's published examples (`docs`) and older
//! servers (`legacy`). `serve --dialect` speaks each; the client must read them all alike.

use std::fmt;
use std::str::FromStr;

/// A wire variant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// The service's document: `data_analyst_agent`, final frames, HTTP errors.
    #[default]
    Seed,
    /// The vendor's published examples: `cube_*` names, no final frames, errors in a 200.
    Docs,
    /// Older servers: as `docs`, rows only as objects, SQL input as `{"query"}` alone, no
    /// usage, suspension or abort frames.
    Legacy,
}

impl Dialect {
    /// Every dialect, in the order tests run them.
    pub const ALL: [Dialect; 3] = [Dialect::Seed, Dialect::Docs, Dialect::Legacy];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Seed => "seed",
            Dialect::Docs => "docs",
            Dialect::Legacy => "legacy",
        }
    }

    /// The agent's graph node (`graphPath[0]` of its frames).
    pub fn agent_node(self) -> &'static str {
        match self {
            Dialect::Seed => "data_analyst_agent",
            Dialect::Docs | Dialect::Legacy => "cube_data_analyst_agent",
        }
    }

    /// The tool that searches the data model.
    pub fn meta_tool(self) -> &'static str {
        match self {
            Dialect::Seed => "dataMeta",
            Dialect::Docs | Dialect::Legacy => "cubeMeta",
        }
    }

    /// The tool that runs SQL; `charted` when the query carries a chart spec.
    pub fn sql_tool(self, charted: bool) -> &'static str {
        match (self, charted) {
            (Dialect::Seed, _) => "dataSqlApi",
            (_, true) => "cubeSqlApiWithChart",
            (_, false) => "cubeSqlApi",
        }
    }

    /// The graph node of the answer's frames: `final` where final frames exist, else the agent.
    pub fn answer_node(self) -> &'static str {
        match self {
            Dialect::Seed => "final",
            Dialect::Docs | Dialect::Legacy => self.agent_node(),
        }
    }

    /// Whether SQL rows go out as objects keyed by member, with `annotation` (else arrays with
    /// `schema`).
    pub fn rows_as_objects(self) -> bool {
        self != Dialect::Seed
    }

    /// Whether the SQL tool's input is `{"query": ...}` alone (PROTOCOL.md: "some servers send
    /// only `{\"query\": \"...\"}`"); else `sqlQuery`, titles, `memoryId` and the `vegaSpec`.
    /// The result carries the rest either way.
    pub fn sql_input_is_query_only(self) -> bool {
        self == Dialect::Legacy
    }

    /// Whether SCIM Users go out as some older servers write them (PROTOCOL.md: "`\"active\":
    /// \"False\"` as a string, PascalCase `meta` keys").
    pub fn scim_variants(self) -> bool {
        self == Dialect::Legacy
    }

    /// Whether `__cutoff__` carries `role: "assistant"`, as the published example does.
    pub fn cutoff_has_role(self) -> bool {
        self != Dialect::Seed
    }

    /// Whether `__usage__`, `__suspended__` and `__aborted__` exist.
    pub fn has_turn_frames(self) -> bool {
        self != Dialect::Legacy
    }

    /// Whether refusals (busy thread, bad credentials) come as HTTP statuses (else in a 200).
    pub fn http_refusals(self) -> bool {
        self == Dialect::Seed
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Dialect {
    type Err = String;

    fn from_str(s: &str) -> Result<Dialect, String> {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == s)
            .ok_or_else(|| format!("unknown dialect {s:?} (seed, docs or legacy)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for d in Dialect::ALL {
            assert_eq!(d.name().parse::<Dialect>(), Ok(d));
        }
        assert!("cube".parse::<Dialect>().is_err());
    }
}
