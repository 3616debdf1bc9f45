/// The simulated screen's text sizes, named and scaled as Dynamic Type names and scales them: seven standard
/// sizes (xSmall to xxxLarge) with Large the iOS default, and five accessibility sizes (AX1 to AX5). Each sets the
/// Body text style's size; every other text of the screen is sized in `em` from it (`Public/app.css`).
///
/// The figures are Apple's: Human Interface Guidelines, Typography, "Dynamic Type sizes" (iOS, iPadOS), Body is
/// 14, 15, 16, 17, 19, 21 and 23 pt from xSmall to xxxLarge and 28, 33, 40, 47 and 53 pt from AX1 to AX5
/// (`UIFont.preferredFont(forTextStyle: .body)` at each `UIContentSizeCategory` gives the same). The case names
/// are SwiftUI's `DynamicTypeSize`; the query values are the names the Settings app and the HIG table show.
enum TextSize: String, CaseIterable, Sendable {
    case xSmall, small, medium, large, xLarge, xxLarge, xxxLarge
    case accessibility1 = "AX1", accessibility2 = "AX2", accessibility3 = "AX3", accessibility4 = "AX4", accessibility5 = "AX5"

    /// Large, as on iOS.
    static let `default` = TextSize.large

    /// The size a `textSize` query or form value names, or `nil` for none or an unknown one. The names of the
    /// earlier three-size switch still work: `default` is Large and `accessibility` AX5.
    init?(value: String?) {
        switch value {
        case "default": self = .large
        case "accessibility": self = .accessibility5
        case let value?: self.init(rawValue: value)
        case nil: return nil
        }
    }

    /// The Body style's size at this setting, in points (rendered as CSS pixels).
    var bodyPoints: Int {
        switch self {
        case .xSmall: 14
        case .small: 15
        case .medium: 16
        case .large: 17
        case .xLarge: 19
        case .xxLarge: 21
        case .xxxLarge: 23
        case .accessibility1: 28
        case .accessibility2: 33
        case .accessibility3: 40
        case .accessibility4: 47
        case .accessibility5: 53
        }
    }

    /// Whether this is one of the five accessibility sizes (SwiftUI's `DynamicTypeSize.isAccessibilitySize`),
    /// at which the tiles stack.
    var isAccessibilitySize: Bool { bodyPoints >= 28 }

    /// The name on the install page's switch: `Large (default)`, `AX5`.
    var name: String {
        switch self {
        case .xSmall, .xLarge, .xxLarge, .xxxLarge, .accessibility1, .accessibility2, .accessibility3, .accessibility4, .accessibility5: rawValue
        case .small: "Small"
        case .medium: "Medium"
        case .large: "Large (default)"
        }
    }

    /// The screen's CSS classes: `size-AX5 size-accessibility`.
    var classes: String { "size-\(rawValue)" + (isAccessibilitySize ? " size-accessibility" : "") }
}
