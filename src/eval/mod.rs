//! Evaluation: agents given as spec strings, games between them with batched evaluations,
//! paired matches with Elo and SPRT, ladders with Bradley–Terry ratings, and the balance of a
//! variant between attackers and defenders.

pub mod agent;
pub mod arena;
pub mod balance;
pub mod calibration;
pub mod clock;
pub mod game_store;
pub mod matches;
pub mod openings;
pub mod run;
pub mod stats;
pub mod study;
pub mod texel;

pub use agent::{Agent, AgentSpec, EvalError};
pub use arena::{play_games, GameResult, GameSetup, PlayOptions};
