//! The `tavlei` command line.

mod cli;

fn main() {
    // output piped into `head` and closed early is not an error worth a panic
    std::panic::set_hook(Box::new(|info| {
        let text = info.to_string();
        if text.contains("Broken pipe") {
            std::process::exit(0);
        }
        eprintln!("tavlei crashed (a bug; please report it): {text}");
    }));
    let code = match cli::run() {
        Ok(()) => 0,
        Err(err) => {
            // one clear line, no backtrace: the chain of causes joined
            let mut message = err.to_string();
            for cause in err.chain().skip(1) {
                let text = cause.to_string();
                if !message.contains(&text) {
                    message += &format!(": {text}");
                }
            }
            eprintln!("error: {message}");
            1
        }
    };
    std::process::exit(code);
}
