//! The layering of the library, checked: each top-level module of `src/` may use only the
//! modules of the layers below its own (`crate::x` anywhere in its files, tests included), the
//! two searches of `src/search/` (`mcts`, `alphabeta`) do not use each other, and the rules crate
//! depends on nothing heavy. An upward import fails here with the file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// From the bottom up; modules in one layer do not use each other.
const LAYERS: &[&[&str]] = &[
    &["atomic", "config", "npy", "numeric", "units", "workers"],
    &["store"],
    &["rules"],
    &["interop"],
    &["encode"],
    &["search"],
    &["nn", "data"],
    &["selfplay"],
    &["train"],
    &["report"],
    &["eval"],
    &["nnue"],
    &["engine"],
    &["play"],
    &["pipeline"],
    &["serve"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .expect("a readable directory")
            .map(|e| e.expect("an entry").path())
            .collect();
        entries.sort();
        for entry in entries {
            rust_files(&entry, out);
        }
    } else if path.is_file() && path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The first identifier at the start of `text` (after any white space), with its offset.
fn identifier_at(text: &str) -> (usize, String) {
    let start = text.len() - text.trim_start().len();
    let name = text[start..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (start, name)
}

/// The top-level modules a file names, each with its line: `crate::x` paths and
/// `use crate::{x, y::{z}}` groups, however many lines a group spans. Comment lines are skipped.
fn modules_named(text: &str) -> Vec<(usize, String)> {
    // comment lines blanked, not dropped, so that offsets still give the right line
    let code: String = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("//") {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let line_of = |offset: usize| code[..offset].matches('\n').count() + 1;
    let mut found = Vec::new();
    let mut name_at = |offset: usize| {
        let (skip, name) = identifier_at(&code[offset..]);
        if !name.is_empty() && name != "self" {
            found.push((line_of(offset + skip), name));
        }
    };
    for (i, _) in code.match_indices("crate::") {
        if code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let after = i + "crate::".len();
        if !code[after..].starts_with('{') {
            name_at(after);
            continue;
        }
        // a group: each item at its top level names a module; nested groups are its own
        let mut depth = 0;
        let mut item = after + 1;
        for (k, c) in code[after..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        name_at(item);
                        break;
                    }
                }
                ',' if depth == 1 => {
                    name_at(item);
                    item = after + k + 1;
                }
                _ => {}
            }
        }
    }
    found
}

/// Every use of a module of the same or a higher layer, as `file:line: a -> b`.
fn upward_imports(src: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let mut modules: BTreeMap<String, PathBuf> = BTreeMap::new();
    for entry in std::fs::read_dir(src).expect("src/") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        if !["lib", "main", "cli"].contains(&name.as_str()) {
            modules.insert(name, path);
        }
    }
    for (module, path) in &modules {
        let Some(own) = layer_of(module) else {
            problems.push(format!(
                "src/{module}: a module in no layer (add it to LAYERS)"
            ));
            continue;
        };
        let mut files = Vec::new();
        rust_files(path, &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (line, used) in modules_named(&text) {
                if used == *module {
                    continue;
                }
                match layer_of(&used) {
                    Some(l) if l < own => {}
                    _ => problems.push(format!("{}:{line}: {module} -> {used}", file.display())),
                }
            }
        }
    }
    problems
}

#[test]
fn no_module_uses_one_of_its_own_or_a_higher_layer() {
    let problems = upward_imports(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(
        problems.is_empty(),
        "upward imports:\n{}",
        problems.join("\n")
    );
}

/// The halves of `src/search/`: the tree search and alpha-beta share only what `search` itself
/// holds (budget, cap, tactics).
const SEARCHES: [&str; 2] = ["mcts", "alphabeta"];

/// Whether `line` names `word` as a whole identifier.
fn names_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word)
        .any(|(i, _)| !line[..i].ends_with(ident) && !line[i + word.len()..].starts_with(ident))
}

/// Every line of one search's files that names the other search, as `file:line: a -> b`.
/// Comment lines are skipped.
fn searches_using_each_other(search: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for own in SEARCHES {
        let mut files = Vec::new();
        rust_files(&search.join(own), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (n, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                for other in SEARCHES.iter().filter(|&&s| s != own) {
                    if names_word(line, other) {
                        problems.push(format!("{}:{}: {own} -> {other}", file.display(), n + 1));
                    }
                }
            }
        }
    }
    problems
}

#[test]
fn the_tree_search_and_alpha_beta_do_not_use_each_other() {
    let search = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/search");
    for half in SEARCHES {
        assert!(search.join(half).is_dir(), "src/search/{half}/ exists");
    }
    let problems = searches_using_each_other(&search);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_finds_one_search_using_the_other() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let search = tmp.path();
    std::fs::create_dir_all(search.join("mcts")).expect("dirs");
    std::fs::create_dir_all(search.join("alphabeta")).expect("dirs");
    // a use on its second line, a comment and an identifier that only contains the name
    std::fs::write(
        search.join("mcts/driver.rs"),
        "// not alphabeta's\nuse crate::search::alphabeta::Limit;\nlet alphabeta_depth = 1;\n",
    )
    .expect("writes");
    std::fs::write(
        search.join("alphabeta/negamax.rs"),
        "use crate::search::{\n    mcts::Tree,\n    Budget,\n};\n",
    )
    .expect("writes");
    let problems = searches_using_each_other(search);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].ends_with("driver.rs:2: mcts -> alphabeta"),
        "{problems:?}"
    );
    assert!(
        problems[1].ends_with("negamax.rs:2: alphabeta -> mcts"),
        "{problems:?}"
    );
}

/// Files below the networks' layer that name libtorch (`tch::`), as `file:line`.
fn libtorch_below_nn(src: &Path) -> Vec<String> {
    let nn = layer_of("nn").expect("nn has a layer");
    let mut found = Vec::new();
    for module in LAYERS[..nn].iter().flat_map(|layer| layer.iter()) {
        let mut files = Vec::new();
        rust_files(&src.join(module), &mut files);
        rust_files(&src.join(format!("{module}.rs")), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (n, line) in text.lines().enumerate() {
                let names_tch = line
                    .match_indices("tch::")
                    .any(|(i, _)| !line[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'));
                if names_tch || line.trim_start().starts_with("use tch") {
                    found.push(format!("{}:{}", file.display(), n + 1));
                }
            }
        }
    }
    found
}

#[test]
fn the_search_and_everything_below_it_build_without_libtorch() {
    let found = libtorch_below_nn(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(found.is_empty(), "libtorch below nn:\n{}", found.join("\n"));
}

#[test]
fn the_check_finds_an_upward_import() {
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let src = tmp.path();
    std::fs::create_dir_all(src.join("search/mcts")).expect("dirs");
    std::fs::write(
        src.join("search/mcts/evaluator.rs"),
        "use crate::rules::Position;\nuse crate::{encode, nn::Network};\n",
    )
    .expect("writes");
    // a group over several lines, its upward import on the fourth, and nested groups that
    // name only lower layers
    std::fs::write(
        src.join("search/mcts/driver.rs"),
        "use crate::{encode::{planes, policy}, rules};\nuse crate::{\n    rules::{Move, Position},\n    nn::{\n        Network,\n    },\n};\n",
    )
    .expect("writes");
    std::fs::write(src.join("rules.rs"), "// crate::search in a comment\n").expect("writes");
    let problems = upward_imports(src);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].ends_with("driver.rs:4: search -> nn"),
        "{problems:?}"
    );
    assert!(
        problems[1].ends_with("evaluator.rs:2: search -> nn"),
        "{problems:?}"
    );
    std::fs::write(
        src.join("search/mcts/batch.rs"),
        "use super::batch::x;\nfn f(d: tch::Device) {}\n",
    )
    .expect("writes");
    let found = libtorch_below_nn(src);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("batch.rs:2"), "{found:?}");
}

#[test]
fn the_rules_crate_depends_on_nothing_heavy() {
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/tavlei-rules/Cargo.toml"),
    )
    .expect("the rules crate's manifest");
    let allowed = [
        "rand",
        "rand_chacha",
        "rayon",
        "serde",
        "thiserror",
        "toml",
        "tracing",
        "proptest",
    ];
    let mut section = "";
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if section.ends_with("dependencies]") {
            if let Some((name, _)) = line.split_once('=') {
                let name = name.trim();
                assert!(
                    allowed.contains(&name),
                    "the rules crate depends on `{name}` ({section})"
                );
            }
        }
    }
}
