//! Committed tables that a script makes from committed evidence: the script's `--check` says
//! whether the table is what the files give, and the tests then look for the figures they name.

use std::path::Path;

/// Runs `python3 SCRIPT --check` in the repository (it fails where the table it makes is not
/// what the files give) and returns the text of `table`.
pub fn checked_table(script: &str, table: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = std::process::Command::new("python3")
        .arg(root.join(script))
        .arg("--check")
        .current_dir(root)
        .output()
        .expect("python3 runs");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::read_to_string(root.join(table)).expect("the table")
}
