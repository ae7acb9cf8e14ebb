//! The `tavlei` command line.

mod cli;

fn main() {
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
