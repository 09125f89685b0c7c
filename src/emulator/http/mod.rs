//! The service (`analyst serve`): the router ([`router`]) and the state its routes share
//! ([`shared`]); chat routes ([`chat_routes`]) with their body checks ([`body_check`]), the turn
//! driver ([`turn`]) and stream fan-out ([`chat_stream`]) over [`threads`]; auth ([`auth`]) and
//! ephemeral users ([`external_users`]); the data query API ([`data_routes`]); SCIM ([`scim_routes`] over [`scim_store`],
//! [`scim_patch`] and [`scim_query`], which share [`scim_path`]'s paths and filters; discovery in [`scim_discovery`] from [`scim_schema`]);
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
mod scim_patch;
mod scim_path;
mod scim_query;
mod scim_routes;
mod scim_schema;
mod scim_store;
pub mod server;
mod shared;
mod threads;
mod turn;
