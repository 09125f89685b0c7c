//! Function calls in the dialect: `MEASURE` and the measures' own aggregates, `DATE_TRUNC`,
//! and the allow-listed scalar functions.

use super::{Cx, FUNCTIONS, Place, Tr, err};
use crate::emulator::engine::catalog::Kind;
use crate::emulator::engine::model::{DimKind, MeasureKind};
use crate::emulator::engine::semantic::{CompileError, Role, bucket};
use crate::emulator::engine::timeparse::Grain;
use sqlparser::ast::{
    DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Ident, Value,
};

/// That a function got `n` arguments.
fn arity(fname: &str, args: &[&Expr], n: usize) -> Result<(), CompileError> {
    if args.len() == n {
        Ok(())
    } else {
        err(format!("{fname} takes {n} argument(s), got {}", args.len()))
    }
}

impl Cx<'_> {
    pub(super) fn function(
        &self,
        f: &sqlparser::ast::Function,
        place: Place,
    ) -> Result<Tr, CompileError> {
        let fname = f.name.to_string().to_uppercase();
        if !FUNCTIONS.contains(&fname.as_str()) {
            return err(format!(
                "function {fname} is not supported; allowed: {}",
                FUNCTIONS.join(", ")
            ));
        }
        if f.over.is_some() {
            return err(format!(
                "window functions ({fname} ... OVER) are not supported"
            ));
        }
        if f.filter.is_some() || !f.within_group.is_empty() || f.null_treatment.is_some() {
            return err(format!(
                "{fname} with FILTER/WITHIN GROUP/IGNORE NULLS is not supported"
            ));
        }
        if !matches!(f.parameters, FunctionArguments::None) {
            return err(format!("{fname} with parameters is not supported"));
        }
        let FunctionArguments::List(list) = &f.args else {
            return err(format!("{fname} needs arguments in parentheses"));
        };
        if !list.clauses.is_empty() {
            return err(format!(
                "{fname}: clauses inside the argument list are not supported"
            ));
        }
        let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
        let mut args = Vec::new();
        for a in &list.args {
            match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => args.push(e),
                FunctionArg::Unnamed(FunctionArgExpr::Wildcard) if fname == "COUNT" => {
                    return err(
                        "COUNT(*) is not supported: count with a count measure, e.g. MEASURE(count)",
                    );
                }
                _ => return err(format!("{fname}: only plain arguments are supported")),
            }
        }
        match fname.as_str() {
            "MEASURE" | "SUM" | "COUNT" | "AVG" | "MIN" | "MAX" => {
                self.aggregate(&fname, distinct, &args, place)
            }
            "DATE_TRUNC" => self.date_trunc(&args),
            _ => self.scalar(&fname, distinct, &args, place),
        }
    }

    /// `MEASURE(m)`, or the measure's own aggregate (`SUM(revenue)` for a sum); any other
    /// aggregate of a measure is refused, as is an aggregate of a dimension.
    fn aggregate(
        &self,
        fname: &str,
        distinct: bool,
        args: &[&Expr],
        place: Place,
    ) -> Result<Tr, CompileError> {
        arity(fname, args, 1)?;
        if distinct && fname != "COUNT" {
            return err(format!("{fname}(DISTINCT ...) is not supported"));
        }
        let Some(parts) = name_parts(args[0]) else {
            return err(format!(
                "{fname}({}): the argument must be a measure's name",
                args[0]
            ));
        };
        let m = self.member(parts)?;
        let Kind::Measure(kind, _) = m.kind else {
            return err(format!(
                "{fname}({}): `{}` is a dimension; aggregate measures only (the model declares how each measure aggregates)",
                m.name, m.name
            ));
        };
        let expected = match kind {
            MeasureKind::Sum => Some(("SUM", false)),
            MeasureKind::Count => Some(("COUNT", false)),
            MeasureKind::CountDistinct => Some(("COUNT", true)),
            MeasureKind::Avg => Some(("AVG", false)),
            MeasureKind::Min => Some(("MIN", false)),
            MeasureKind::Max => Some(("MAX", false)),
            MeasureKind::Number => None,
        };
        if fname != "MEASURE" && expected != Some((fname, distinct)) {
            return err(format!(
                "{fname}({}) does not match how `{}` aggregates ({}); write MEASURE({})",
                m.name,
                m.name,
                kind.as_str(),
                m.name
            ));
        }
        self.measure(m, place)
    }

    /// `DATE_TRUNC('month', time_dimension)`: the bucket of a time dimension at a grain.
    fn date_trunc(&self, args: &[&Expr]) -> Result<Tr, CompileError> {
        arity("DATE_TRUNC", args, 2)?;
        let g = match args[0] {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(s) => Grain::parse(&s.to_lowercase()).filter(|_| {
                    matches!(
                        s.to_lowercase().as_str(),
                        "day" | "week" | "month" | "quarter" | "year"
                    )
                }),
                _ => None,
            },
            _ => None,
        };
        let Some(g) = g else {
            return err(format!(
                "DATE_TRUNC({}, ...): the first argument is one of 'day', 'week', 'month', 'quarter', 'year'",
                args[0]
            ));
        };
        let Some(parts) = name_parts(args[1]) else {
            return err(format!(
                "DATE_TRUNC(.., {}): the second argument must be a time dimension",
                args[1]
            ));
        };
        let m = self.member(parts)?;
        if m.kind != Kind::Dimension(DimKind::Time) {
            return err(format!(
                "DATE_TRUNC(.., {}): `{}` is not a time dimension",
                m.name, m.name
            ));
        }
        Ok(Tr {
            sql: bucket(&self.dim_sql(m), g),
            agg: false,
            reads: true,
            column: Some((m.name.clone(), m.title.clone(), Role::Time(g), "time")),
        })
    }

    /// The allow-listed scalar functions (`LOWER`, `ROUND`, `COALESCE`...), over any
    /// expressions.
    fn scalar(
        &self,
        fname: &str,
        distinct: bool,
        args: &[&Expr],
        place: Place,
    ) -> Result<Tr, CompileError> {
        if distinct {
            return err(format!("{fname}(DISTINCT ...) is not supported"));
        }
        match fname {
            "LOWER" | "UPPER" | "ABS" => arity(fname, args, 1)?,
            "ROUND" if args.len() == 1 || args.len() == 2 => {}
            "ROUND" => arity(fname, args, 2)?,
            _ if args.is_empty() => arity(fname, args, 1)?,
            _ => {}
        }
        let mut sqls = Vec::new();
        let (mut agg, mut reads) = (false, false);
        for a in args {
            let t = self.expr(a, place)?;
            agg |= t.agg;
            reads |= t.reads;
            sqls.push(t.sql);
        }
        Ok(Tr {
            sql: format!("{fname}({})", sqls.join(", ")),
            agg,
            reads,
            column: None,
        })
    }
}

/// A member's name as written, `name` or `view.name`; `None` for any other expression.
fn name_parts(e: &Expr) -> Option<&[Ident]> {
    match e {
        Expr::Identifier(i) => Some(std::slice::from_ref(i)),
        Expr::CompoundIdentifier(parts) => Some(parts),
        _ => None,
    }
}
