/// A key a person pressed, as the terminal presenter reads it: the paste field and every binding match these, and
/// only the presenter knows the terminal's codes for them.
public enum Key: Hashable, Sendable {
    /// A printable ASCII character, space included.
    case character(Character)
    /// Ctrl and a letter (Ctrl-C, Ctrl-U), given as the lower-case letter.
    case control(Character)
    case enter, escape, backspace
    /// A key with no meaning here (a function key, an arrow, a byte of a character beyond ASCII), by the terminal's name
    /// for it.
    case other(String)

    /// The key as the log names it: `'z'`, `Ctrl-X`, `Backspace`, or the terminal's name (`KEY_F(1)`).
    public var name: String {
        switch self {
        case .character(let character): "'\(character)'"
        case .control(let letter): "Ctrl-\(letter.uppercased())"
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .other(let name): name
        }
    }
}
