//! The semantic model: cubes over tables, views over cubes, and access policies.
//!
//! A model is one YAML file, close to Cube's data-model syntax:
//!
//! ```yaml
//! branches: [dev]              # optional: branch names accepted besides "main"
//! cubes:
//!   - name: orders             # identifier; also the table alias in generated SQL
//!     sql_table: orders        # table (or schema.table) in the SQLite file
//!     title: Orders            # optional, defaults from the name
//!     description: One row per order
//!     joins:
//!       - name: customers      # the joined cube
//!         relationship: many_to_one   # or one_to_one, one_to_many (Cube's belongs_to,
//!                                     # has_one, has_many are accepted too)
//!         sql: "{CUBE}.customer_id = {customers}.id"
//!     dimensions:
//!       - name: id
//!         sql: id              # a bare column, or an expression using {CUBE} / {cube}
//!         type: number         # string | number | time | boolean
//!         primary_key: true
//!       - name: created_at
//!         sql: created_at      # time dimensions hold ISO-8601 text (YYYY-MM-DD[ HH:MM:SS])
//!         type: time
//!       - name: total
//!         sql: "{order_items.revenue}"  # a measure of a cube joined to this one (either way),
//!         type: number                  # computed per row of this cube: an order's total
//!         sub_query: true               # (that cube may not have an access policy)
//!     measures:
//!       - name: count
//!         type: count          # count | sum | avg | min | max | count_distinct | number
//!         title: Orders
//!         synonyms: [purchases]    # extension: extra words the agent understands
//!       - name: revenue
//!         type: sum
//!         sql: amount
//!         format: currency     # optional: currency | percent | number
//!       - name: average_order_value
//!         type: number         # an expression over other measures of the same cube
//!         sql: "{revenue} / NULLIF({count}, 0)"
//!     access_policy:           # row-level security, applied whenever this cube is reachable
//!       - member: region       # a dimension of this cube
//!         equals: "{ userAttributes.region }"   # or: user_attribute: region
//!         if_missing: none     # a user without the attribute sees nothing (default);
//!                              # `all` lets them see every row
//! views:
//!   - name: sales
//!     title: Sales
//!     cubes:
//!       - join_path: orders            # the first entry is the view's root cube
//!         includes: "*"
//!       - join_path: orders.customers  # hops follow the cubes' joins
//!         includes: [country, region]  # or "*"; `excludes: [..]` removes members
//!         prefix: true                 # expose as customers_country instead of country
//! ```
//!
//! Without views, every cube is offered as its own view, with the members of the cubes it can
//! reach through joins prefixed by their cube name. Errors name the file, the path inside it
//! (e.g. `cubes[2].measures[0].type`) and the problem.

/// A whole model file, validated.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Cubes in file order.
    pub cubes: Vec<Cube>,
    /// Views in file order.
    pub views: Vec<View>,
    /// Branch names accepted besides "main".
    pub branches: Vec<String>,
}

/// A cube: one table with its measures, dimensions, joins and policies.
#[derive(Clone, Debug, Default)]
pub struct Cube {
    /// Identifier, also the SQL alias.
    pub name: String,
    /// Human title.
    pub title: String,
    /// Free text.
    pub description: String,
    /// Table name in the warehouse.
    pub sql_table: String,
    /// Aggregates.
    pub measures: Vec<Measure>,
    /// Attributes to group and filter by.
    pub dimensions: Vec<Dimension>,
    /// Joins to other cubes.
    pub joins: Vec<Join>,
    /// Row-level security rules.
    pub policies: Vec<Policy>,
}

/// Aggregation of a measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasureKind {
    /// COUNT(*), or COUNT(DISTINCT pk) when reached through a join.
    Count,
    /// SUM(sql).
    Sum,
    /// AVG(sql).
    Avg,
    /// MIN(sql).
    Min,
    /// MAX(sql).
    Max,
    /// COUNT(DISTINCT sql).
    CountDistinct,
    /// An expression over other measures.
    Number,
}

impl MeasureKind {
    /// The name used in YAML and in meta results' `aggType`.
    pub fn as_str(self) -> &'static str {
        match self {
            MeasureKind::Count => "count",
            MeasureKind::Sum => "sum",
            MeasureKind::Avg => "avg",
            MeasureKind::Min => "min",
            MeasureKind::Max => "max",
            MeasureKind::CountDistinct => "countDistinct",
            MeasureKind::Number => "number",
        }
    }
}

/// How values of a measure are written in answers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Plain number.
    #[default]
    Number,
    /// Money, written with a `$` sign and two decimals.
    Currency,
    /// A ratio written as a percentage.
    Percent,
}

/// A measure of a cube.
#[derive(Clone, Debug)]
pub struct Measure {
    /// Identifier within the cube.
    pub name: String,
    /// Human title.
    pub title: String,
    /// Free text.
    pub description: String,
    /// Aggregation.
    pub kind: MeasureKind,
    /// Expression aggregated (empty for plain counts).
    pub sql: String,
    /// Extra words that name it.
    pub synonyms: Vec<String>,
    /// How answers write its values.
    pub format: Format,
}

/// Type of a dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimKind {
    /// Text.
    String,
    /// Number.
    Number,
    /// ISO-8601 date or timestamp text.
    Time,
    /// 0/1.
    Boolean,
}

impl DimKind {
    /// The name used in YAML and meta results.
    pub fn as_str(self) -> &'static str {
        match self {
            DimKind::String => "string",
            DimKind::Number => "number",
            DimKind::Time => "time",
            DimKind::Boolean => "boolean",
        }
    }
}

/// A dimension of a cube.
#[derive(Clone, Debug)]
pub struct Dimension {
    /// Identifier within the cube.
    pub name: String,
    /// Human title.
    pub title: String,
    /// Free text.
    pub description: String,
    /// Type.
    pub kind: DimKind,
    /// Column or expression.
    pub sql: String,
    /// Whether it identifies rows (used to count through joins).
    pub primary_key: bool,
    /// Whether `sql` is a measure of a joined cube computed per row of this one (`{cube.measure}`,
    /// e.g. an order's total from its lines), compiled as a correlated subquery.
    pub sub_query: bool,
    /// Extra words that name it.
    pub synonyms: Vec<String>,
}

/// Join cardinality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relationship {
    /// Many rows here to one there.
    ManyToOne,
    /// One to one.
    OneToOne,
    /// One row here to many there.
    OneToMany,
}

/// A join from one cube to another.
#[derive(Clone, Debug)]
pub struct Join {
    /// Target cube.
    pub name: String,
    /// ON condition template.
    pub sql: String,
    /// Cardinality.
    pub relationship: Relationship,
}

/// A row-level security rule: `cube.member = userAttributes.attribute`.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Dimension of the cube the rule filters.
    pub member: String,
    /// User attribute supplying the value.
    pub attribute: String,
    /// Whether a user without the attribute sees every row (`true`) or none (`false`).
    pub all_if_missing: bool,
}

/// A view: chosen members of cubes along join paths.
#[derive(Clone, Debug, Default)]
pub struct View {
    /// Identifier.
    pub name: String,
    /// Human title.
    pub title: String,
    /// Free text.
    pub description: String,
    /// Entries; the first join path's first cube is the root.
    pub cubes: Vec<ViewCube>,
}

/// One `cubes:` entry of a view.
#[derive(Clone, Debug, Default)]
pub struct ViewCube {
    /// Cube names from the root, following joins.
    pub join_path: Vec<String>,
    /// Members included (`None` = all).
    pub includes: Option<Vec<String>>,
    /// Members excluded.
    pub excludes: Vec<String>,
    /// Whether member names get `<cube>_` in front.
    pub prefix: bool,
}

impl Model {
    /// The cube of a given name.
    pub fn cube(&self, name: &str) -> Option<&Cube> {
        self.cubes.iter().find(|c| c.name == name)
    }
}

impl Cube {
    /// The join from this cube to `target`.
    pub fn join_to(&self, target: &str) -> Option<&Join> {
        self.joins.iter().find(|j| j.name == target)
    }
    /// The primary-key dimension, if declared.
    pub fn primary_key(&self) -> Option<&Dimension> {
        self.dimensions.iter().find(|d| d.primary_key)
    }
}

/// "order_items" -> "Order items", for members without a title.
pub fn title_from_name(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}
