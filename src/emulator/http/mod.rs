//! The service (`analyst serve`): the router ([`router`]) and the state its routes share
//! ([`shared`]); chat routes ([`chat_routes`]) with their body checks ([`body_check`]), the turn
//! driver ([`turn`]) and stream fan-out ([`chat_stream`]) over [`threads`]; auth ([`auth`]) and
//! ephemeral users ([`external_users`]); the data query API ([`data_routes`]); SCIM (Users in
//! [`scim_routes`] over [`scim_store`] and [`scim_patch`], Groups in [`scim_group_routes`] over
//! [`scim_groups`] and [`scim_group_patch`], both through [`scim_http`] and [`scim_query`]; filters in [`scim_filter`],
//! PATCH paths in [`scim_path`]; the users and groups at start in [`scim_seed`]; discovery in
//! [`scim_discovery`] from [`scim_schema`]);
//! fault injection ([`faults`]) and the clock ([`clock`]). It imports `emulator::engine` for
//! the analyst; the engine never imports it.

pub mod auth;
mod body_check;
mod chat_routes;
mod chat_stream;
pub(crate) mod clock;
mod data_routes;
mod external_users;
pub mod faults;
mod ids;
mod request_log;
mod responses;
mod router;
mod scim_discovery;
mod scim_filter;
mod scim_group_patch;
mod scim_group_routes;
mod scim_groups;
mod scim_http;
mod scim_patch;
mod scim_path;
mod scim_query;
mod scim_routes;
mod scim_schema;
mod scim_seed;
mod scim_store;
pub mod server;
mod shared;
mod threads;
mod turn;
