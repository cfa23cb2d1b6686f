//! One module per subcommand: its `Args` (clap) and its `run`.

pub mod budget;
pub mod demo;
pub mod sample;
