import TokenClient

/// The one-line field `p` opens to paste the next token: closed, being typed into, or refused with why.
public enum PasteField: Sendable, Equatable {
    case closed
    case editing(String)
    case refused(String, why: String)

    /// What a key did to the open field.
    public enum Outcome: Sendable, Equatable {
        /// Typed, erased, or ignored.
        case edited
        /// Enter: the text to apply.
        case submitted(String)
        /// Esc: the field closed.
        case cancelled
        /// Ctrl-C, which quits wherever it is pressed.
        case quit
    }

    /// What is in the field; nil while closed.
    public var text: String? {
        switch self {
        case .closed: nil
        case .editing(let text), .refused(let text, _): text
        }
    }

    /// Takes a key of the open field: printable characters go in (up to `PastedToken.maximumLength`, so no key
    /// quits or renews while pasting), Backspace erases one, Ctrl-U all, Enter submits, Esc closes.
    public mutating func take(_ key: Key) -> Outcome {
        guard var text else { return .edited }
        switch key {
        case .enter:
            return .submitted(text)
        case .escape:
            self = .closed
            return .cancelled
        case .backspace:
            if !text.isEmpty { text.removeLast() }
        case .control("u"):
            text = ""
        case .character(let character):
            if text.utf8.count < PastedToken.maximumLength { text.append(character) }
        case .control where KeyCommand(key: key) == .quit:
            return .quit
        default:
            return .edited
        }
        self = .editing(text)
        return .edited
    }
}
