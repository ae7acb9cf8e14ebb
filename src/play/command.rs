//! What a player types at the prompt: a move in OpenTafl notation (`d1-d3`, or `d1d3` without
//! the dash) or one of the session's commands.

/// One line of input, understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// A move in notation, the dash filled in where it was left out.
    Move(String),
    Undo,
    Hint,
    /// `save FILE`: the game so far as a record.
    Save(String),
    /// `moves` (every legal move) or `moves SQUARE` (those of one piece).
    Moves(Option<String>),
    Board,
    Help,
    Resign,
    Quit,
}

/// The in-game commands, as `help` prints them.
pub const HELP: &str = "\
  d1-d3 or d1d3   a move in OpenTafl notation (jumps d1^d3; `stop` ends a berserk chain)
  undo            take back your last move and the agent's reply
  hint            the agent's suggestion for you, with its search
  moves [SQUARE]  your legal moves (of the piece on SQUARE)
  board           draw the board again
  save FILE       write the game as a record that `tavlei replay` reads
  resign          give up the game
  help            this list
  quit            leave (Ctrl-D too)";

/// Understands one line; `None` for a blank line, `Err` with what is wrong for a command used
/// wrongly.
pub fn parse_command(line: &str) -> Option<Result<Command, String>> {
    let line = line.trim();
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let takes_nothing = |command: Command| {
        if rest.is_empty() {
            Ok(command)
        } else {
            Err(format!("`{word}` takes nothing after it"))
        }
    };
    Some(match word.to_ascii_lowercase().as_str() {
        "" => return None,
        "undo" => takes_nothing(Command::Undo),
        "hint" => takes_nothing(Command::Hint),
        "board" => takes_nothing(Command::Board),
        "help" | "?" => takes_nothing(Command::Help),
        "resign" => takes_nothing(Command::Resign),
        "quit" | "exit" => takes_nothing(Command::Quit),
        "moves" => Ok(Command::Moves(
            (!rest.is_empty()).then(|| rest.to_ascii_lowercase()),
        )),
        "save" if rest.is_empty() => Err("`save` needs a file name: `save game.txt`".into()),
        "save" => Ok(Command::Save(rest.to_string())),
        _ => Ok(Command::Move(with_dash(&line.to_ascii_lowercase()))),
    })
}

/// `d1d3` as `d1-d3` (and `a10a11xa12` as `a10-a11xa12`); anything else unchanged, for the
/// notation parser to accept or explain.
pub fn with_dash(text: &str) -> String {
    let bytes = text.as_bytes();
    if text.contains(['-', '^']) || bytes.first().is_none_or(|b| !b.is_ascii_lowercase()) {
        return text.to_string();
    }
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    let split = 1 + digits;
    if digits > 0
        && bytes
            .get(split)
            .is_some_and(|b| b.is_ascii_lowercase() && *b != b'x')
    {
        format!("{}-{}", &text[..split], &text[split..])
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Command, String> {
        parse_command(line).expect("not blank")
    }

    #[test]
    fn moves_are_taken_with_or_without_the_dash() {
        assert_eq!(parse("d1-d3"), Ok(Command::Move("d1-d3".into())));
        assert_eq!(parse(" d1d3 "), Ok(Command::Move("d1-d3".into())));
        assert_eq!(parse("D1D3"), Ok(Command::Move("d1-d3".into())));
        assert_eq!(parse("a10a11xa12"), Ok(Command::Move("a10-a11xa12".into())));
        assert_eq!(parse("e5^e7"), Ok(Command::Move("e5^e7".into())));
        assert_eq!(parse("stop"), Ok(Command::Move("stop".into())));
        // not a move either way: left for the notation parser to explain
        assert_eq!(parse("d1"), Ok(Command::Move("d1".into())));
        assert_eq!(parse("d1xd3"), Ok(Command::Move("d1xd3".into())));
    }

    #[test]
    fn commands_and_their_arguments() {
        assert_eq!(parse("undo"), Ok(Command::Undo));
        assert_eq!(parse("HINT"), Ok(Command::Hint));
        assert_eq!(parse("?"), Ok(Command::Help));
        assert_eq!(parse("exit"), Ok(Command::Quit));
        assert_eq!(
            parse("save my game.txt"),
            Ok(Command::Save("my game.txt".into()))
        );
        assert_eq!(parse("moves"), Ok(Command::Moves(None)));
        assert_eq!(parse("moves D1"), Ok(Command::Moves(Some("d1".into()))));
        assert!(parse("save").unwrap_err().contains("file name"));
        assert!(parse("undo twice")
            .unwrap_err()
            .contains("`undo` takes nothing"));
        assert_eq!(parse_command("   "), None);
    }
}
