import Foundation
import Mustache
import Testing
import TipJar

@testable import TipJarDashboard

/// A transaction's life as a sequence diagram (`SequenceDiagram`, `TransactionLife`): the rows each delivery path
/// draws, the heart marks, the trap rows, a text alternative, and every text escaped in the SVG.
@Suite("Transaction lives: sequence diagrams")
struct SequenceDiagramTests {
    typealias Step = SequenceDiagram.Step
    static let coffee = "com.example.tipjar.tip.coffee"
    static let install = "5cdcb795-0000-4000-8000-000000000001"
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }

    static func stored(
        _ id: UInt64 = 12, status: StoredTransaction.Status = .purchased, isExternal: Bool = false,
        productID: String = coffee, installID: String = install
    ) -> StoredTransaction {
        StoredTransaction(
            transaction: Transaction(id: id, productID: productID, purchaseDate: start, storefront: "USA"),
            accountID: "ana", installID: installID, status: status, isExternal: isExternal)
    }

    static func delivery(
        _ path: DeliveryPath, _ outcome: RecordOutcome, finished: Bool = true, at seconds: Double,
        note: DeliveryNote? = nil, id: UInt64 = 12
    ) -> Delivery {
        Delivery(
            installID: install, transactionID: id, productID: coffee, path: path, outcome: outcome, finished: finished,
            at: at(seconds), note: note)
    }

    static func life(_ stored: StoredTransaction?, _ ledger: [Delivery], hearts: Int) -> TransactionLife {
        let added = TransactionLife.heartsAdded(ledger: ledger, hearts: hearts)
        return TransactionLife(
            transactionID: 12, installID: install, stored: stored,
            deliveries: zip(ledger, added).map { TransactionLife.Handled(delivery: $0, addedHeart: $1) })
    }

    /// The diagram rendered by the dashboard's own template, as a page includes it.
    static func rendered(_ diagram: SequenceDiagram) throws -> String {
        let library = try MustacheLibrary(directory: LiveServer.repositoryRoot.appendingPathComponent("Templates"))
        return String(decoding: try library.renderUTF8("partials/sequence-diagram", diagram.drawing(id: "life-12")), as: UTF8.self)
    }

    // MARK: Rows per event kind

    @Test func aPurchaseConfirmedOnTheSheetIsPurchaseThenTheSheetThenTheResultThenTheRecordThenFinish() {
        var stored = Self.stored()
        stored.origin = .purchaseSheet
        let steps = Self.life(stored, [Self.delivery(.purchase, .counted, at: 0.1)], hearts: 1).steps
        #expect(
            steps == [
                Step(.app, .store, "purchase()"), Step(.store, .app, "sheet: Confirm"), Step(.store, .app, ".success"),
                Step(.app, .app, "verified → counted", heart: .added), Step(.app, .store, "finish()"),
            ])
        #expect(!Self.life(Self.stored(), [Self.delivery(.purchase, .counted, at: 0.1)], hearts: 1).steps.contains { $0.label == "sheet: Confirm" })
    }

    @Test func anApprovedAskToBuyIsDrawnFromTheTransactionsOriginNotFromTheTimeline() {
        var stored = Self.stored()
        stored.origin = .askToBuyApproval
        let steps = Self.life(stored, [Self.delivery(.launch, .counted, at: 5)], hearts: 1).steps
        #expect(
            Array(steps.prefix(4)) == [
                Step(.app, .store, "purchase()"), Step(.store, .app, ".pending (Ask to Buy)"),
                Step(.store, .store, "Ask to Buy approved: transaction issued"), Step(.store, .store, "waits for the next launch"),
            ])
    }

    @Test(arguments: [
        (DeliveryPath.listener, [Step(.store, .listener, "re-emitted", isTrap: true)]),
        (.launch, [Step(.store, .listener, "launch: redelivered", isTrap: true)]),
        (.restore, [Step(.app, .store, "AppStore.sync()"), Step(.store, .listener, "sync: unfinished")]),
    ])
    func aSecondDeliveryIsDrawnOnTheListenerLaneAsItArrived(_ path: DeliveryPath, _ arrival: [Step]) {
        let ledger = [Self.delivery(.purchase, .counted, at: 0.1), Self.delivery(path, .duplicate, at: 5)]
        let steps = Self.life(Self.stored(), ledger, hearts: 1).steps
        #expect(
            Array(steps.suffix(arrival.count + 2)) == arrival + [
                Step(.listener, .listener, "duplicate: not counted", heart: .notAdded),
                Step(.listener, .store, "finish()"),
            ])
    }

    @Test func aRefundIsARevocationOnTheStoreLaneNotATrapBeforeTheRevokedDelivery() {
        var stored = Self.stored()
        stored.transaction.revocationDate = Self.at(10)
        stored.transaction.revocationReason = .developerIssue
        let ledger = [Self.delivery(.purchase, .counted, at: 0.1), Self.delivery(.listener, .revoked, at: 10)]
        let steps = Self.life(stored, ledger, hearts: 1).steps
        #expect(
            Array(steps.suffix(4)) == [
                Step(.store, .store, "revoked: developer issue"), Step(.store, .listener, "updates: revoked"),
                Step(.listener, .listener, "revoked: nothing added", heart: .notAdded), Step(.listener, .store, "finish()"),
            ])
    }

    @Test func aDeclinedAskToBuyIsATrapThatAddedNoHeart() {
        let steps = Self.life(Self.stored(status: .declined), [], hearts: 0).steps
        #expect(
            steps == [
                Step(.app, .store, "purchase()"), Step(.store, .app, ".pending (Ask to Buy)"),
                Step(.store, .store, "Ask to Buy declined", heart: .notAdded, isTrap: true),
            ])
    }

    @Test func aPurchaseOutsideTheAppStartsInTheStoreAndReachesTheListener() {
        let steps = Self.life(Self.stored(isExternal: true), [Self.delivery(.listener, .unknownProduct, at: 1)], hearts: 0).steps
        #expect(steps.first == Step(.store, .store, "bought outside the app"))
        #expect(steps.contains(Step(.listener, .listener, "not a tip: ignored", heart: .notAdded)))
    }

    // MARK: Traps

    @Test func aCrashBeforeFinishIsATrapRowAndItsLaunchRedeliveryAddsNoHeart() throws {
        let ledger = [Self.delivery(.purchase, .counted, finished: false, at: 0.1), Self.delivery(.launch, .duplicate, at: 9)]
        let diagram = Self.life(Self.stored(), ledger, hearts: 1).diagram
        #expect(diagram.steps.contains(Step(.app, .app, "crash before finish()", isTrap: true)))
        #expect(diagram.steps.filter(\.isTrap).map(\.label) == ["crash before finish()", "launch: redelivered"])
        let svg = try Self.rendered(diagram)
        #expect(svg.components(separatedBy: #"<g class="step trap">"#).count - 1 == 2)
        #expect(svg.components(separatedBy: #"class="trap-mark""#).count - 1 == 3, "two rows and the legend")
        #expect(diagram.summary.contains("Traps: crash before finish(); launch: redelivered."))
    }

    @Test func finishIgnoredIsDrawnAsAFinishTheStoreIgnoresAndAnUnfinishedRowWithAnotherNoteAsNotFinished() {
        let ledger = [
            Self.delivery(.purchase, .counted, finished: false, at: 0.1, note: .finishIgnored),
            Self.delivery(.purchase, .duplicate, finished: false, at: 6, note: .unfinishedReturned),
        ]
        let steps = Self.life(Self.stored(), ledger, hearts: 1).steps
        #expect(steps.filter { $0.label == "finish() ignored" } == [Step(.store, .store, "finish() ignored", isTrap: true)])
        // The second row's note is the returned unfinished transaction: a crash and an ignored finish() leave it alike.
        #expect(steps.last == Step(.app, .app, "not finished", isTrap: true))
        #expect(steps.contains(Step(.store, .app, "returns the unfinished one", isTrap: true)))
    }

    @Test func anUnverifiedDeliveryIsNotFinishedAndAddsNoHeart() {
        let steps = Self.life(Self.stored(), [Self.delivery(.purchase, .unverified, finished: false, at: 0.1)], hearts: 0).steps
        #expect(steps.last == Step(.app, .app, "unverified: no finish()", heart: .notAdded, isTrap: true))
    }

    // MARK: Hearts

    @Test func heartsStopAtFiveSoLaterCountedRowsAreDrawnWithoutOne() {
        let ledger = (0..<7).map { Self.delivery(.purchase, .counted, at: Double($0), id: UInt64($0)) }
        #expect(TransactionLife.heartsAdded(ledger: ledger, hearts: 5) == [true, true, true, true, true, false, false])
    }

    @Test func theMigratedHeartIsTheOneTheCountedRowsDoNotExplain() {
        let ledger = [
            Self.delivery(.purchase, .counted, at: 0), Self.delivery(.listener, .duplicate, at: 1),
            Self.delivery(.purchase, .counted, at: 2, id: 13),
        ]
        #expect(TransactionLife.heartsAdded(ledger: ledger, hearts: 3) == [true, false, true])
    }

    @Test func aHeartAddedIsFilledAndAHeartNotAddedIsCrossedOut() throws {
        let svg = try Self.rendered(
            SequenceDiagram(
                title: "t",
                steps: [
                    Step(.app, .app, "counted", heart: .added),
                    Step(.listener, .listener, "duplicate", heart: .notAdded),
                ]))
        #expect(svg.components(separatedBy: #"class="heart heart-added""#).count - 1 == 2, "the row and the legend")
        #expect(svg.components(separatedBy: #"class="heart heart-none""#).count - 1 == 2)
        #expect(svg.components(separatedBy: #"class="heart-cross""#).count - 1 == 2)
        #expect(svg.contains("<li>App: counted; one heart added.</li>"))
        #expect(svg.contains("<li>Listener: duplicate; no heart added.</li>"))
    }

    // MARK: Drawing

    @Test func everyTextIsEscaped() throws {
        let hostile = #"<script>alert("x")</script> & 'y'"#
        let diagram = SequenceDiagram(title: "The life of \(hostile)", steps: [Step(.store, .store, hostile, isTrap: true)])
        let svg = try Self.rendered(diagram)
        #expect(!svg.contains("<script>"))
        #expect(!svg.contains(#"alert("x")"#))
        #expect(svg.contains("&lt;script&gt;"))
        #expect(svg.contains("&amp;"))
        #expect(svg.contains("&quot;x&quot;"))
        #expect(svg.contains(#"<title id="life-12-title">The life of &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; "#))
    }

    @Test func theSVGHasAnAccessibleNameADescriptionAndTheStepsAsAList() throws {
        let svg = try Self.rendered(Self.life(Self.stored(), [Self.delivery(.purchase, .counted, at: 0.1)], hearts: 1).diagram)
        #expect(svg.hasPrefix(#"<svg class="sequence-diagram" viewBox="0 0 360 "#))
        #expect(svg.contains(#"width="100%" role="img" aria-labelledby="life-12-title" aria-describedby="life-12-desc">"#))
        #expect(svg.contains(#"<desc id="life-12-desc">4 steps. One heart added. No trap struck.</desc>"#))
        #expect(svg.contains("<li>App → App Store: purchase().</li>"))
        #expect(!svg.contains("style="), "the Content-Security-Policy refuses inline styles")
    }

    @Test(arguments: [
        ("Transaction.updates", 14, ["Transaction.", "updates"]), ("verified → counted", 13, ["verified →", "counted"]),
        ("refund: developer issue", 13, ["refund:", "developer", "issue"]), ("a", 13, ["a"]),
        ("retry 1: UNSUCCESSFUL_HTTP_RESPONSE_CODE", 22, ["retry 1:", "UNSUCCESSFUL_HTTP_", "RESPONSE_CODE"]),
    ])
    func labelsWrapToTheRoomTheirRowHas(_ label: String, _ limit: Int, _ lines: [String]) {
        #expect(SequenceDiagram.wrap(label, limit: limit) == lines)
    }

    @Test(arguments: [SequenceDiagram.Layout.threeLanes, .fourLanes])
    func everyRowStaysInsideTheViewBox(_ layout: SequenceDiagram.Layout) {
        let last = layout.lanes.last ?? .listener
        let steps = [
            Step(.app, last, "a label long enough to wrap over several lines"), Step(last, .app, "back"),
            Step(.listener, .listener, "counted; five hearts already", heart: .notAdded, isTrap: true),
            Step(.store, last, "UNSUCCESSFUL_HTTP_RESPONSE_CODE"), Step(last, last, "Your server's own note"),
        ]
        var top = SequenceDiagram.rowsTop
        for step in steps {
            let row = SequenceDiagram.row(step, top: top, layout: layout)
            guard case .object(let data) = row.value, case .array(let lines) = data["lines"] else { Issue.record("no lines"); return }
            let span = step.from == step.to ? 2 * layout.noteHalfWidth : abs(layout.x(step.to) - layout.x(step.from))
            for case .object(let line) in lines {
                guard case .string(let text) = line["text"] else { continue }
                #expect(text.count * SequenceDiagram.characterWidthTenths / 10 <= span, "\(text)")
            }
            top += row.height
        }
        // No lane's heading or note reaches the marks column, nor the edges.
        #expect(layout.x(last) + layout.noteHalfWidth <= SequenceDiagram.heartBesideTrapX - 8)
        #expect(layout.x(.app) - layout.noteHalfWidth >= 0)
        #expect(layout.spacing >= 2 * layout.noteHalfWidth, "two notes side by side do not overlap")
        #expect(SequenceDiagram.trapBesideHeartX + 8 <= SequenceDiagram.width)
    }

    // MARK: Your server

    static func notification(
        _ type: ServerNotification.NotificationType, at seconds: Double, state: ServerNotification.State = .delivered,
        _ results: [SendAttemptResult?]
    ) -> ServerNotification {
        let attempts = results.enumerated().map { index, result in
            result.map { SendAttempt(date: at(seconds + Double(index)), result: $0, url: "http://127.0.0.1:9/n", detail: "x") }
                ?? .started(at: at(seconds + Double(index)), url: "http://127.0.0.1:9/n")
        }
        return ServerNotification(
            type: type, transactionID: 12, createdAt: at(seconds), state: state, attemptCount: attempts.count, attempts: attempts)
    }

    @Test func aTransactionNoServerHeardOfKeepsItsThreeLanes() throws {
        let life = Self.life(Self.stored(), [Self.delivery(.purchase, .counted, at: 0.1)], hearts: 1)
        #expect(SequenceDiagram.Layout.drawing(life.steps) == .threeLanes)
        let svg = try Self.rendered(life.diagram)
        #expect(!svg.contains("Your server") && !svg.contains("failed attempt"))
        #expect(svg.contains(#"<text class="lane-name" x="52" y="22" text-anchor="middle">App</text>"#), "where three lanes always stood")
    }

    @Test func eachNotificationAttemptIsAnArrowToYourServerAndAFailedOneIsDashedAndSaysSo() throws {
        var stored = Self.stored()
        stored.consumptionInfo = #"{"customerConsented":true}"#
        var life = Self.life(stored, [Self.delivery(.purchase, .counted, at: 0.1)], hearts: 1)
        life.notifications = [
            Self.notification(.oneTimeCharge, at: 0, [.timedOut, .success]),
            Self.notification(.consumptionRequest, at: 20, state: .sending, [.unsuccessfulHTTPResponseCode, nil]),
            Self.notification(.refundDeclined, at: 40, state: .failed, [.noResponse]),
            Self.notification(.test, at: 41, [.success]),
        ]
        let steps = life.steps
        #expect(
            Array(steps.drop { $0.to != .server }) == [
                Step(.store, .server, "ONE_TIME_CHARGE: TIMED_OUT", attempt: .failed),
                Step(.store, .server, "retry 1: SUCCESS"),
                Step(.store, .app, ".success"), Step(.app, .app, "verified → counted", heart: .added), Step(.app, .store, "finish()"),
                Step(.store, .server, "CONSUMPTION_REQUEST: UNSUCCESSFUL_HTTP_RESPONSE_CODE", attempt: .failed),
                Step(.store, .server, "retry 1: under way", attempt: .underWay),
                Step(.server, .store, "Send Consumption Information"),
                Step(.store, .server, "REFUND_DECLINED: NO_RESPONSE", attempt: .failed),
                Step(.store, .store, "no retry left", attempt: .failed),
            ], "a TEST is about no transaction's life")
        let diagram = life.diagram
        #expect(SequenceDiagram.Layout.drawing(steps) == .fourLanes)
        let svg = try Self.rendered(diagram)
        #expect(svg.hasPrefix(#"<svg class="sequence-diagram four-lanes" viewBox="0 0 360 "#), "its headings a size smaller (Public/app.css)")
        #expect(svg.contains(#"<text class="lane-name" x="286" y="22" text-anchor="middle">Your server</text>"#))
        #expect(svg.components(separatedBy: #"<g class="step attempt-failed">"#).count - 1 == 4)
        #expect(svg.components(separatedBy: #"<g class="step attempt-under-way">"#).count - 1 == 1)
        #expect(svg.contains("failed attempt to send a notification</text>"), "the legend names the dashed arrow")
        #expect(svg.contains("<li>App Store → Your server: ONE_TIME_CHARGE: TIMED_OUT (failed).</li>"))
        #expect(svg.contains("<li>App Store → Your server: retry 1: SUCCESS.</li>"))
        #expect(svg.contains("<li>Your server → App Store: Send Consumption Information.</li>"))
        #expect(diagram.summary.hasSuffix(" 5 attempts to send a notification to your server, 3 failed."))
    }

    @Test func consumptionInformationWithoutARequestIsDrawnLast() {
        var stored = Self.stored()
        stored.consumptionInfo = "{}"
        var life = Self.life(stored, [Self.delivery(.purchase, .counted, at: 0.1)], hearts: 1)
        life.notifications = [Self.notification(.oneTimeCharge, at: 0, state: .pending, [])]
        #expect(life.steps.first { $0.to == .server } == Step(.store, .server, "ONE_TIME_CHARGE: not sent yet", attempt: .underWay))
        #expect(life.steps.last == Step(.server, .store, "Send Consumption Information"))
    }
}
