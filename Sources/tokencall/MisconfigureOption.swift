import AccessToken
import Arguments

/// `--misconfigure KIND`, the same for `join`'s embedded server and for `serve`.
enum MisconfigureOption {
    static let key: OptionKey<TokenMistake?> = .choice(
        "misconfigure", "KIND", help: "after each caller's first token, hand out wrong ones on purpose",
        TokenMistake.allCases.map { ($0.rawValue, $0) })
}
