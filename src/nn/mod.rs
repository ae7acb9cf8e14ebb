//! The policy-value network and its devices (libtorch through `tch`).

pub mod device;
