import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// The simulated screen's counts and text sizes: CLDR plural rules choose the restore sentence in each language,
/// and the text sizes are Dynamic Type's, with Body's sizes from Apple's table.
@Suite("Plural rules and Dynamic Type sizes")
struct ScreenWordingTests {
    /// Unicode CLDR, Language Plural Rules: `en` one is `i = 1 and v = 0`; `pt` one is `i = 0..1`.
    @Test(arguments: [
        (AppLocale.en, 0, PluralCategory.other), (.en, 1, .one), (.en, 2, .other), (.en, 21, .other),
        (.ptBR, 0, .one), (.ptBR, 1, .one), (.ptBR, 2, .other), (.ptBR, 1000, .other),
    ])
    func countsFollowEachLanguagesCLDRPluralRule(locale: AppLocale, count: Int, category: PluralCategory) {
        #expect(PluralCategory(count, locale: locale) == category)
    }

    @Test(arguments: [
        (AppLocale.en, 1, "Restore finished: 1 unfinished purchase delivered."),
        (.en, 3, "Restore finished: 3 unfinished purchases delivered."),
        (.ptBR, 1, "Restauração concluída: 1 compra não finalizada entregue."),
        (.ptBR, 3, "Restauração concluída: 3 compras não finalizadas entregues."),
    ])
    func aRestoreSaysPurchaseOrPurchasesNeverPurchaseS(locale: AppLocale, count: Int, sentence: String) {
        #expect(Feedback(kind: .restored, count: count, locale: locale).notice == sentence)
    }

    /// Apple Human Interface Guidelines, Typography, "Dynamic Type sizes": Body at each size, in points.
    @Test func textSizesAreDynamicTypesWithBodyAtApplesSizes() {
        #expect(
            TextSize.allCases.map(\.rawValue) == [
                "xSmall", "small", "medium", "large", "xLarge", "xxLarge", "xxxLarge",
                "AX1", "AX2", "AX3", "AX4", "AX5",
            ])
        #expect(TextSize.allCases.map(\.bodyPoints) == [14, 15, 16, 17, 19, 21, 23, 28, 33, 40, 47, 53])
        #expect(TextSize.default == .large && TextSize.large.name == "Large (default)")
        #expect(TextSize.allCases.filter(\.isAccessibilitySize).map(\.rawValue) == ["AX1", "AX2", "AX3", "AX4", "AX5"])
    }

    @Test func theEarlierSizeNamesStillWorkAndUnknownOnesAreRefused() {
        #expect(TextSize(value: "default") == .large)
        #expect(TextSize(value: "accessibility") == .accessibility5)
        #expect(TextSize(value: "AX3") == .accessibility3)
        #expect(TextSize(value: "\"><script>") == nil && TextSize(value: nil) == nil)
        #expect(TextSize.accessibility5.classes == "size-AX5 size-accessibility")
    }
}
