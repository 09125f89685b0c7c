//! Expressions of the dialect: member names, `MEASURE` and the measures' own aggregates,
//! `DATE_TRUNC`, the allow-listed functions (those three in [`functions`]), operators and
//! literals, each translated to SQLite with whether it aggregates; anything else is an error
//! naming the construct.

use sqlparser::ast::{BinaryOperator, Expr, Ident, InTarget, UnaryOperator, Value};

use super::super::catalog::{Kind, Member, ViewCat, aggregate, dimension_sql};
use super::super::model::Model;
use super::{CompileError, Role, literal};

mod functions;

/// Functions the dialect accepts; anything else is refused by name.
pub(super) const FUNCTIONS: &[&str] = &[
    "MEASURE",
    "SUM",
    "COUNT",
    "AVG",
    "MIN",
    "MAX",
    "DATE_TRUNC",
    "LOWER",
    "UPPER",
    "COALESCE",
    "ROUND",
    "ABS",
];

pub(super) fn err<T>(msg: impl Into<String>) -> Result<T, CompileError> {
    Err(CompileError(msg.into()))
}

/// One translated expression.
pub(super) struct Tr {
    pub sql: String,
    /// Whether it aggregates (contains a measure).
    pub agg: bool,
    /// Whether it reads a member at all (a literal does not).
    pub reads: bool,
    /// The column it would make, when it is a plain member or bucket.
    pub column: Option<(String, String, Role, &'static str)>,
}

/// Where an expression stands, which decides what it may contain.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Select,
    Where,
    GroupBy,
    Having,
    OrderBy,
}

pub(super) struct Cx<'a> {
    pub model: &'a Model,
    pub view: &'a ViewCat,
}

impl Cx<'_> {
    pub(super) fn member(&self, parts: &[Ident]) -> Result<&Member, CompileError> {
        let (qualifier, name) = match parts {
            [m] => (None, &m.value),
            [q, m] => (Some(&q.value), &m.value),
            _ => {
                let full: Vec<&str> = parts.iter().map(|p| p.value.as_str()).collect();
                return err(format!(
                    "`{}` is not a member of {}",
                    full.join("."),
                    self.view.name
                ));
            }
        };
        if let Some(q) = qualifier
            && !q.eq_ignore_ascii_case(&self.view.name)
        {
            return err(format!(
                "`{q}.{name}`: `{q}` is not the queried {} `{}`",
                self.view.kind, self.view.name
            ));
        }
        self.view
            .members
            .iter()
            .find(|m| m.name == *name)
            .or_else(|| {
                self.view
                    .members
                    .iter()
                    .find(|m| m.name.eq_ignore_ascii_case(name))
            })
            .ok_or_else(|| {
                let near: Vec<&str> = self
                    .view
                    .members
                    .iter()
                    .filter(|m| m.name.contains(name.as_str()) || name.contains(m.member.as_str()))
                    .map(|m| m.name.as_str())
                    .take(5)
                    .collect();
                let hint = if near.is_empty() {
                    String::new()
                } else {
                    format!(" (did you mean {}?)", near.join(", "))
                };
                CompileError(format!(
                    "`{name}` is not a member of the {} `{}`{hint}",
                    self.view.kind, self.view.name
                ))
            })
    }

    fn dim_sql(&self, m: &Member) -> String {
        self.model
            .cube(&m.cube)
            .and_then(|c| c.dimensions.iter().find(|d| d.name == m.member))
            .map_or_else(
                || "NULL".into(),
                |d| dimension_sql(self.model, &self.view.root, &m.cube, d, 0),
            )
    }

    fn measure_sql(&self, m: &Member) -> String {
        self.model
            .cube(&m.cube)
            .and_then(|c| c.measures.iter().find(|x| x.name == m.member))
            .map_or_else(
                || "NULL".into(),
                |x| aggregate(self.model, &self.view.root, &m.cube, x, 0),
            )
    }

    fn name_ref(&self, parts: &[Ident]) -> Result<Tr, CompileError> {
        let m = self.member(parts)?;
        match m.kind {
            Kind::Measure(..) => err(format!(
                "measure `{}` must be aggregated: write MEASURE({})",
                m.name, m.name
            )),
            Kind::Dimension(k) => Ok(Tr {
                sql: self.dim_sql(m),
                agg: false,
                reads: true,
                column: Some((m.name.clone(), m.title.clone(), Role::Dimension, k.as_str())),
            }),
        }
    }

    fn measure(&self, m: &Member, place: Place) -> Result<Tr, CompileError> {
        if matches!(place, Place::Where) {
            return err(format!(
                "measure `{}` in WHERE: filter on measures with HAVING",
                m.name
            ));
        }
        if matches!(place, Place::GroupBy) {
            return err(format!(
                "GROUP BY measure `{}`: group by dimensions only",
                m.name
            ));
        }
        let Kind::Measure(_, format) = m.kind else {
            return err(format!(
                "`{}` is a dimension, not a measure: MEASURE() takes a measure",
                m.name
            ));
        };
        Ok(Tr {
            sql: self.measure_sql(m),
            agg: true,
            reads: true,
            column: Some((
                m.name.clone(),
                m.title.clone(),
                Role::Measure(format),
                "number",
            )),
        })
    }

    /// An expression as SQLite: one arm per kind of expression, the longer ones in their own
    /// methods; anything not listed is refused by name.
    pub(super) fn expr(&self, e: &Expr, place: Place) -> Result<Tr, CompileError> {
        let plain = |sql: String| Tr {
            sql,
            agg: false,
            reads: false,
            column: None,
        };
        match e {
            Expr::Identifier(i) => self.name_ref(std::slice::from_ref(i)),
            Expr::CompoundIdentifier(parts) => self.name_ref(parts),
            Expr::Value(v) => Ok(plain(value(&v.value)?)),
            Expr::TypedString(t) => self.typed(e, t),
            Expr::Nested(inner) => {
                let t = self.expr(inner, place)?;
                Ok(Tr {
                    sql: format!("({})", t.sql),
                    column: None,
                    ..t
                })
            }
            Expr::UnaryOp { op, expr } => self.unary(op, expr, place),
            Expr::BinaryOp { left, op, right } => self.binary(left, op, right, place),
            Expr::IsNull(x) | Expr::IsNotNull(x) => {
                let t = self.expr(x, place)?;
                let not = if matches!(e, Expr::IsNotNull(_)) {
                    " NOT"
                } else {
                    ""
                };
                Ok(Tr {
                    sql: format!("{} IS{not} NULL", t.sql),
                    column: None,
                    ..t
                })
            }
            Expr::In {
                expr,
                target,
                negated,
                global,
            } => self.in_list(e, expr, target, *negated, *global, place),
            Expr::Between {
                expr,
                negated,
                low,
                high,
            } => self.between(expr, low, high, *negated, place),
            Expr::Like {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            }
            | Expr::ILike {
                negated,
                any,
                expr,
                pattern,
                escape_char,
            } => {
                if *any || escape_char.is_some() {
                    return err("LIKE ANY and LIKE ... ESCAPE are not supported");
                }
                self.like(expr, pattern, *negated, place)
            }
            Expr::Function(f) => self.function(f, place),
            Expr::Subquery(_) | Expr::Exists { .. } => {
                err(format!("a subquery is not supported (in `{e}`)"))
            }
            Expr::Case { .. } => err(format!("CASE is not supported (in `{e}`)")),
            Expr::Cast { .. } => err(format!("CAST is not supported (in `{e}`)")),
            other => {
                let name = format!("{other:?}");
                let kind = name
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or("expression");
                err(format!("{kind} expressions are not supported (in `{e}`)"))
            }
        }
    }

    /// `DATE '2025-01-01'` and `TIMESTAMP '...'` (`e` is the whole expression, for errors).
    fn typed(&self, e: &Expr, t: &sqlparser::ast::TypedString) -> Result<Tr, CompileError> {
        let ty = t.data_type.to_string().to_uppercase();
        if !(ty.starts_with("DATE") || ty.starts_with("TIMESTAMP")) {
            return err(format!(
                "typed literal {ty} '...' is not supported; DATE and TIMESTAMP are"
            ));
        }
        match &t.value.value {
            Value::SingleQuotedString(s) => Ok(Tr {
                sql: literal(&iso(s)),
                agg: false,
                reads: false,
                column: None,
            }),
            _ => err(format!("`{e}` is not a date literal")),
        }
    }

    /// `NOT x`, `-x`, `+x`.
    fn unary(&self, op: &UnaryOperator, expr: &Expr, place: Place) -> Result<Tr, CompileError> {
        let t = self.expr(expr, place)?;
        let sql = match op {
            UnaryOperator::Not => format!("NOT ({})", t.sql),
            UnaryOperator::Minus => format!("-({})", t.sql),
            UnaryOperator::Plus => t.sql.clone(),
            other => return err(format!("operator {other} is not supported")),
        };
        Ok(Tr {
            sql,
            column: None,
            ..t
        })
    }

    /// `x [NOT] BETWEEN low AND high`.
    fn between(
        &self,
        expr: &Expr,
        low: &Expr,
        high: &Expr,
        negated: bool,
        place: Place,
    ) -> Result<Tr, CompileError> {
        let (t, lo, hi) = (
            self.expr(expr, place)?,
            self.expr(low, place)?,
            self.expr(high, place)?,
        );
        let not = if negated { " NOT" } else { "" };
        Ok(Tr {
            sql: format!("{}{not} BETWEEN {} AND {}", t.sql, lo.sql, hi.sql),
            agg: t.agg || lo.agg || hi.agg,
            reads: true,
            column: None,
        })
    }

    /// `a op b` for the comparison, logical and arithmetic operators; division is numeric.
    fn binary(
        &self,
        left: &Expr,
        op: &BinaryOperator,
        right: &Expr,
        place: Place,
    ) -> Result<Tr, CompileError> {
        let sym = match op {
            BinaryOperator::Eq => "=",
            BinaryOperator::NotEq => "<>",
            BinaryOperator::Lt => "<",
            BinaryOperator::LtEq => "<=",
            BinaryOperator::Gt => ">",
            BinaryOperator::GtEq => ">=",
            BinaryOperator::And => "AND",
            BinaryOperator::Or => "OR",
            BinaryOperator::Plus => "+",
            BinaryOperator::Minus => "-",
            BinaryOperator::Multiply => "*",
            BinaryOperator::Divide => "/",
            other => return err(format!("operator {other} is not supported")),
        };
        let (l, r) = (self.expr(left, place)?, self.expr(right, place)?);
        let sql = if sym == "/" {
            // SQLite divides integers as integers; the dialect divides numbers.
            format!("CAST({} AS REAL) / {}", l.sql, r.sql)
        } else {
            format!("{} {sym} {}", l.sql, r.sql)
        };
        Ok(Tr {
            sql,
            agg: l.agg || r.agg,
            reads: l.reads || r.reads,
            column: None,
        })
    }

    /// `x [NOT] IN (a, b, ...)`: a list only (`e` is the whole expression, for errors).
    fn in_list(
        &self,
        e: &Expr,
        expr: &Expr,
        target: &InTarget,
        negated: bool,
        global: bool,
        place: Place,
    ) -> Result<Tr, CompileError> {
        let InTarget::List(list) = target else {
            return err(format!(
                "IN with a subquery or table is not supported (in `{e}`)"
            ));
        };
        if global {
            return err("GLOBAL IN is not supported");
        }
        let t = self.expr(expr, place)?;
        let mut agg = t.agg;
        let mut vals = Vec::new();
        for x in list {
            let v = self.expr(x, place)?;
            agg |= v.agg;
            vals.push(v.sql);
        }
        if vals.is_empty() {
            return err("IN () needs at least one value");
        }
        let not = if negated { " NOT" } else { "" };
        Ok(Tr {
            sql: format!("{}{not} IN ({})", t.sql, vals.join(", ")),
            agg,
            reads: true,
            column: None,
        })
    }

    /// `x [NOT] LIKE pattern` (ILIKE too: SQLite's LIKE ignores ASCII case).
    fn like(
        &self,
        expr: &Expr,
        pattern: &Expr,
        negated: bool,
        place: Place,
    ) -> Result<Tr, CompileError> {
        let (t, p) = (self.expr(expr, place)?, self.expr(pattern, place)?);
        let not = if negated { " NOT" } else { "" };
        Ok(Tr {
            sql: format!("{}{not} LIKE {}", t.sql, p.sql),
            agg: t.agg || p.agg,
            reads: true,
            column: None,
        })
    }
}

/// A literal as SQLite text; ISO timestamps lose their `T`, fraction and `Z` so they compare
/// with the warehouse's `YYYY-MM-DD HH:MM:SS` text.
fn value(v: &Value) -> Result<String, CompileError> {
    match v {
        Value::Number(n, _) => {
            if n.parse::<f64>().is_ok_and(f64::is_finite) {
                Ok(n.clone())
            } else {
                err(format!("`{n}` is not a number"))
            }
        }
        Value::SingleQuotedString(s) => Ok(literal(&iso(s))),
        Value::Boolean(b) => Ok(if *b { "1" } else { "0" }.into()),
        Value::Null => Ok("NULL".into()),
        other => err(format!(
            "literal {other} is not supported; use 'single quotes'"
        )),
    }
}

fn iso(s: &str) -> String {
    let b = s.as_bytes();
    let looks = s.len() >= 19
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && s[..4].bytes().all(|c| c.is_ascii_digit());
    if looks {
        format!("{} {}", &s[..10], &s[11..19])
    } else {
        s.to_string()
    }
}
