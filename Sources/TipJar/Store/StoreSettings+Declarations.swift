/// Every store setting, declared once (Sources/README.md, "A store setting"). The order is the `/store` form's
/// (within each fieldset) and the summary's; `PUT /api/store` checks fields in it and reports the first bad one.
extension StoreSettings {
    /// Every setting, in form order.
    public static let declarations: [StoreSetting] = [
        .choice(
            \.catalog, key: "catalog", control: .radios, group: .catalog, label: "Answer",
            summary: .line(
                "Catalog",
                { settings in
                    [StoreSetting.SummaryPart(settings.catalog.rawValue, badge: settings.catalog.rawValue)]
                        + (settings.catalog == .slow
                            ? [StoreSetting.SummaryPart(" (\(settings.latencyMs) ms)")]
                            : settings.latencyMs != 0 ? [StoreSetting.SummaryPart(" (\(settings.latencyMs) ms when slow)")] : [])
                })),
        .integer(
            \.latencyMs, key: "latencyMs", range: 0...maximumLatencyMs, unit: "milliseconds",
            control: .number(slowDefault: slowDefaultLatencyMs), group: .catalog,
            label: "Latency when slow (ms; 0 sets \(slowDefaultLatencyMs))"),
        .choice(
            \.purchaseOutcome, key: "purchaseOutcome", control: .radios, group: .purchase, label: "Outcome",
            summary: .line(
                "Purchase outcome",
                { settings in
                    [
                        StoreSetting.SummaryPart(
                            settings.purchaseOutcome.rawValue
                                + (settings.purchaseOutcome == .failed
                                    ? " (\(settings.purchaseError.rawValue))"
                                    : settings.purchaseError != .networkError ? " (\(settings.purchaseError.rawValue) when failed)" : ""))
                    ]
                })),
        .choice(
            \.purchaseError, key: "purchaseError", group: .purchase, label: "Error when failed",
            name: { "\($0.typeName).\($0.rawValue)" }),
        .flag(
            \.askToBuyEnabled, key: "askToBuyEnabled", group: .purchase, label: "Ask to Buy", help: "every purchase waits for approval",
            file: .flag(
                key: "_askToBuyEnabled", whenTrue: "true: every purchase waits for Ask to Buy approval (Approve / Decline on /store)",
                whenFalse: "false: purchases need no approval"),
            summary: .line("Ask to Buy", { [StoreSetting.SummaryPart($0.askToBuyEnabled ? "on: every purchase waits for approval" : "off")] })),
        .integer(
            \.purchaseLatencyMs, key: "purchaseLatencyMs", range: 0...maximumLatencyMs, unit: "milliseconds", group: .purchase,
            label: "Purchase latency (ms)", summary: .line("Purchase latency", { [StoreSetting.SummaryPart("\($0.purchaseLatencyMs) ms")] })),
        .optionalChoice(
            \.failures.loadProducts, key: "failures.loadProducts", formName: "failLoadProducts", group: .failures,
            label: "Load Products", file: .storeKitErrors(api: "Load Products"),
            summary: .badge(line: "Failures", { $0.failures.loadProducts.map { "Load Products: \($0.rawValue)" } })),
        .optionalChoice(
            \.failures.purchase, key: "failures.purchase", formName: "failPurchase", group: .failures, label: "Purchase",
            name: { "\($0.typeName).\($0.rawValue)" }, file: .storeKitErrors(api: "Purchase"),
            summary: .badge(line: "Failures", { $0.failures.purchase.map { "Purchase: \($0.rawValue)" } })),
        .optionalChoice(
            \.failures.verification, key: "failures.verification", formName: "failVerification", group: .failures,
            label: "Verification", file: .storeKitErrors(api: "Verification"),
            summary: .badge(line: "Failures", { $0.failures.verification.map { "Verification: \($0.rawValue)" } })),
        .optionalChoice(
            \.failures.sync, key: "failures.sync", formName: "failSync", group: .failures, label: "App Store Sync",
            file: .storeKitErrors(api: "App Store Sync"),
            summary: .badge(line: "Failures", { $0.failures.sync.map { "App Store Sync: \($0.rawValue)" } })),
        .optionalChoice(
            \.failures.refundRequest, key: "failures.refundRequest", formName: "failRefundRequest", group: .failures,
            label: "Refund Request Sheet", name: { "\($0.typeName).\($0.rawValue)" }, file: .storeKitErrors(api: "Refund Request Sheet"),
            summary: .badge(line: "Failures", { $0.failures.refundRequest.map { "Refund Request Sheet: \($0.rawValue)" } })),
        .integer(
            \.listenerReemits, key: "listenerReemits", range: 0...3, control: .select, group: .listenerTraps,
            label: "Re-emit each delivered transaction", name: { $0 == 0 ? "never" : "\($0) time\($0 == 1 ? "" : "s")" },
            summary: .badge(line: "Listener traps", { $0.listenerReemits > 0 ? "re-emits \($0.listenerReemits)×" : nil })),
        .integer(
            \.listenerReemitDelayMs, key: "listenerReemitDelayMs", range: 0...maximumLatencyMs, unit: "milliseconds",
            group: .listenerTraps, label: "Re-emit later", help: "delay of the re-emits above (ms; 0 = inside the purchase)",
            summary: .badge(line: "Listener traps", { $0.listenerReemitDelayMs > 0 ? "re-emits \($0.listenerReemitDelayMs) ms later" : nil })),
        .flag(
            \.crashBeforeFinish, key: "crashBeforeFinish", group: .listenerTraps, label: "The app crashes before finish()",
            summary: .badge(line: "Listener traps", { $0.crashBeforeFinish ? "crashes before finish()" : nil })),
        .flag(
            \.interruptedPurchases, key: "interruptedPurchases", group: .purchaseTraps, label: "Interrupted purchases",
            help: "purchase() fails with the error above (Apple: \"causes all purchases to fail\"); resolving the issue below issues a new transaction",
            summary: .badge(line: "Purchase traps", { $0.interruptedPurchases ? "interrupted purchases" : nil })),
        .flag(
            \.chargedDespiteError, key: "chargedDespiteError", group: .purchaseTraps, label: "Charged despite an error",
            help: "purchase() throws the error above, the transaction arrives through the listener \(lateDeliveryDelayMs / 1_000) s later",
            summary: .badge(line: "Purchase traps", { $0.chargedDespiteError ? "charged despite an error" : nil })),
        .flag(
            \.finishIgnored, key: "finishIgnored", group: .purchaseTraps, label: "finish() is ignored",
            help: "the transaction stays unfinished, buying the same tip returns it again",
            summary: .badge(line: "Purchase traps", { $0.finishIgnored ? "finish() is ignored" : nil })),
        .flag(
            \.syncReplaysFinished, key: "syncReplaysFinished", group: .restoreTraps, label: "Restore replays",
            help: "AppStore.sync() re-delivers finished transactions",
            summary: .badge(line: "Restore traps", { $0.syncReplaysFinished ? "Restore replays" : nil })),
        .flag(
            \.skipPurchaseSheet, key: "skipPurchaseSheet", group: .purchaseSheet, label: "Skip the purchase sheet (Xcode's Disable Dialogs)",
            help: "every purchase is confirmed at once",
            file: .flag(
                key: "_disableDialogs", whenTrue: "true: skipPurchaseSheet on: no purchase sheet; every purchase is confirmed at once",
                whenFalse: "false: skipPurchaseSheet off: every purchase shows the purchase sheet (Confirm / Cancel)"),
            summary: .line(
                "Purchase sheet",
                {
                    [
                        StoreSetting.SummaryPart(
                            $0.skipPurchaseSheet
                                ? "skipped: every purchase is confirmed at once"
                                : "shown: Confirm or Cancel")
                    ]
                })),
        .flag(
            \.includeConsumableInAppPurchaseHistory, key: "includeConsumableInAppPurchaseHistory", group: .infoPlist,
            label: "SKIncludeConsumableInAppPurchaseHistory",
            help: "finished consumables appear in Transaction.all and Transaction.latest(for:) on the account page",
            summary: .line(
                "Info.plist",
                { settings in
                    [
                        StoreSetting.SummaryPart(
                            settings.includeConsumableInAppPurchaseHistory
                                ? "SKIncludeConsumableInAppPurchaseHistory true: finished consumables in Transaction.all"
                                : "SKIncludeConsumableInAppPurchaseHistory false: finished consumables left out of Transaction.all")
                    ]
                })),
        .flag(
            \.finishedConsumablesReachOtherDevices, key: "finishedConsumablesReachOtherDevices", group: .updates,
            label: "Finished consumables reach the account's other devices",
            help: "a tip bought and finished on one install reaches every other running install of the Apple Account",
            summary: .line(
                "Other devices",
                { settings in
                    [
                        StoreSetting.SummaryPart(
                            settings.finishedConsumablesReachOtherDevices
                                ? "every purchase and refund reaches the account's other running installs"
                                : "only what another device left unfinished, and refunds, reach the others")
                    ]
                })),
        .flag(
            \.refundsDeliveredAtLaunch, key: "refundsDeliveredAtLaunch", group: .updates,
            label: "A refund made while the app is stopped arrives at its next launch",
            help: "off: Transaction.updates delivers refunds only while the app runs",
            summary: .line(
                "Refunds at launch",
                { [StoreSetting.SummaryPart($0.refundsDeliveredAtLaunch ? "delivered at the next launch" : "not delivered at launch")] })),
        .choice(
            \.refundRequestDecision, key: "refundRequestDecision", group: .updates, label: "Refund requests from the app",
            help:
                "manual: each waits for Approve or Decline on /store; approve or decline: decided as soon as it is received (a decline when the server's consumption information asks for one); consumptionInformation: decided by the refundPreference the server sends",
            summary: .line(
                "Refund requests",
                { settings in
                    switch settings.refundRequestDecision {
                    case .manual: [StoreSetting.SummaryPart("decided on /store")]
                    case .consumptionInformation: [StoreSetting.SummaryPart("decided by the server's consumption information")]
                    case .approve, .decline: [StoreSetting.SummaryPart("\(settings.refundRequestDecision.rawValue)d at once")]
                    }
                })),
        .choice(
            \.environment, key: "environment", control: .radios, group: .environment, label: "Environment",
            summary: .line(
                "Environment",
                { settings in
                    [
                        StoreSetting.SummaryPart(
                            settings.environment == .xcode
                                ? "Xcode: StoreKit Testing in Xcode" : "LocalTesting: a local App Store server")
                    ]
                })),
    ]

    /// The latency the `/store` form sets when "slow" is chosen with none (0 or empty).
    public static let slowDefaultLatencyMs = 2_000

    /// The top-level fields that hold an object of settings (`failures`), in declaration order.
    public static let settingObjects: [String] = declarations.reduce(into: []) { objects, declaration in
        if declaration.path.count == 2, !objects.contains(declaration.path[0]) { objects.append(declaration.path[0]) }
    }

    /// The declarations at the top level (`object` `nil`) or inside the object field `object`, in declaration order.
    public static func declarations(in object: String?) -> [StoreSetting] {
        declarations.filter { declaration in
            let path = declaration.path
            guard let object else { return path.count == 1 }
            return path.count == 2 && path[0] == object
        }
    }

    /// The declaration named `key` (``StoreSetting/key``).
    public static func declaration(_ key: String) -> StoreSetting? { declarations.first { $0.key == key } }

    /// The "Now" summary of `/store` and `/`: each line's term and parts, in declaration order of each line's first
    /// setting; a badge line with no badge says `none`.
    public var summary: [(term: String, parts: [StoreSetting.SummaryPart])] {
        var lines: [(term: String, parts: [StoreSetting.SummaryPart])] = []
        var badgeLines: Set<String> = []
        for declaration in Self.declarations {
            switch declaration.summary {
            case .line(let term, let parts): lines.append((term, parts(self)))
            case .badge(let term, let text):
                if badgeLines.insert(term).inserted { lines.append((term, [])) }
                if let text = text(self), let index = lines.firstIndex(where: { $0.term == term }) {
                    lines[index].parts += [StoreSetting.SummaryPart(text, badge: "failing"), StoreSetting.SummaryPart(" ")]
                }
            case nil: continue
            }
        }
        return lines.map { ($0.term, $0.parts.isEmpty && badgeLines.contains($0.term) ? [StoreSetting.SummaryPart("none")] : $0.parts) }
    }
}
