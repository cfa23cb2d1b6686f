//! One module per subcommand: its `Args` (clap) and its `run`.

pub mod assign;
pub mod budget;
pub mod cluster;
pub mod common;
pub mod cover;
pub mod cut;
pub mod demo;
pub mod experiment;
pub mod features;
pub mod generate;
pub mod histogram;
pub mod hypothesis;
pub mod itemsets;
pub mod ledger;
pub mod sample;
pub mod schema;
pub mod select;
pub mod synth;
pub mod topics;
