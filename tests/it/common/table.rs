//! The tool's one table style read back: a header line, a rule of `─` per column, the rows.
//! Columns are where the rule's runs are, so cells with spaces read whole.

/// A table found in some output.
#[derive(Debug)]
pub struct Table {
    /// The header line, as printed.
    pub header_line: String,
    /// Each column's header.
    pub headers: Vec<String>,
    /// The row lines, as printed (to the first blank line).
    pub lines: Vec<String>,
    /// Each row's cells, trimmed.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The cells of the column headed `name`.
    pub fn column(&self, name: &str) -> Vec<&str> {
        let i = self
            .headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name:?} in {:?}", self.headers));
        self.rows
            .iter()
            .map(|r| r.get(i).map_or("", String::as_str))
            .collect()
    }
}

fn is_rule(line: &str) -> bool {
    line.contains('─') && line.chars().all(|c| c == '─' || c == ' ')
}

/// The first table of `text` (escape codes already taken out); panics if there is none.
pub fn parse(text: &str) -> Table {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| is_rule(l))
        .unwrap_or_else(|| panic!("no table in\n{text}"));
    assert!(at > 0, "a rule with no header:\n{text}");
    // Column i runs from its rule's first character to the next rule's.
    let rule: Vec<char> = lines[at].chars().collect();
    let mut starts = Vec::new();
    for (i, c) in rule.iter().enumerate() {
        if *c == '─' && (i == 0 || rule[i - 1] == ' ') {
            starts.push(i);
        }
    }
    let cells = |line: &str| -> Vec<String> {
        let chars: Vec<char> = line.chars().collect();
        (0..starts.len())
            .map(|k| {
                let from = starts[k].min(chars.len());
                let to = starts
                    .get(k + 1)
                    .copied()
                    .unwrap_or(chars.len())
                    .min(chars.len());
                chars[from..to].iter().collect::<String>().trim().to_owned()
            })
            .collect()
    };
    let body: Vec<String> = lines[at + 1..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.to_string())
        .collect();
    Table {
        header_line: lines[at - 1].to_owned(),
        headers: cells(lines[at - 1]),
        rows: body.iter().map(|l| cells(l)).collect(),
        lines: body,
    }
}

/// Every cell starts where its column's rule does (or the cell is empty), with a blank before.
pub fn assert_aligned(text: &str, what: &str) {
    let table = parse(text);
    let rule: Vec<char> = text.lines().find(|l| is_rule(l)).unwrap().chars().collect();
    for line in std::iter::once(&table.header_line).chain(&table.lines) {
        let chars: Vec<char> = line.chars().collect();
        for (i, c) in rule.iter().enumerate() {
            if *c == '─' && i > 0 && rule[i - 1] == ' ' {
                assert!(
                    chars.get(i - 1).is_none_or(|c| *c == ' '),
                    "{what}: a cell runs into the column at {i}: {line:?}\n{text}"
                );
            }
        }
    }
}
