//! Most integration tests, in one binary: linked once and started once (every test binary links
//! libtorch, and each link and start costs seconds), and their tests share the test threads
//! instead of running file after file. Kept apart: the timed searches (`search`, `alphabeta`),
//! the test that loads every core on purpose (`torch_threads`), the layering check, the fuzz
//! properties, and the files `make` runs by name for their ignored tests (`htp`, `onnx`,
//! `viewer`, `play_tmux`).

mod balance_study;
mod cli;
mod configs;
mod data;
mod eval;
mod kill;
mod models;
mod nnue_data;
mod nnue_search;
mod nnue_train;
mod otep;
mod otg;
mod otn_rules;
mod pipeline;
mod selfplay;
mod serve;
mod serve_defences;
mod tables;
// the server tests' running server and client, shared by both files
#[path = "../common/server.rs"]
mod server;
mod train;
mod units;
