import Foundation
import Testing

@testable import TipJar
@testable import TipJarDashboard

/// The install screen's notice while an Ask to Buy approval travels: the store's write commits the approval, then the
/// timeline records it, then the running app's listener receives the transaction. A page rendered at any point of
/// that shows the pending notice until the thank-you, never no notice: a live update replaces a pending notice with
/// the thank-you, but leaves an empty one empty (`Public/app.js`), so one render in between kept the page without
/// its thank-you.
@Suite("An approved Ask to Buy on the install screen")
struct AskToBuyApprovalNoticeTests {
    @Test func anApprovalCommittedBeforeItsTimelineEventStillShowsThePendingNotice() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let feedback = StoreFeedbackPageTests()
            let id = try await feedback.install(server)
            let requestID = try await feedback.pendingRequest(server, installID: id)
            #expect(await server.liveScreen(id).contains("waiting for approval"))

            // The store's half of `TipJarService.approve(requestID:)` alone: committed, not yet on the timeline.
            let issued = try await server.service.store.approve(requestID: UInt64(requestID))
            let between = await server.liveScreen(id)
            #expect(between.contains("waiting for approval"), "\(between.prefix(800))")
            #expect(!between.contains("askToBuy.approved"))

            // Then the rest of it, in its order: the timeline's event, the listener's delivery and its thank-you.
            let transactionID = issued.transaction.id
            await server.service.event(
                id, "askToBuy.approved", "Ask to Buy request \(requestID) approved: transaction \(transactionID) issued.",
                ["requestID": "\(requestID)", "transactionID": "\(transactionID)"])
            #expect(await server.liveScreen(id).contains("waiting for approval"), "approved, on its way to the listener")
            _ = try await server.service.deliverThroughListener(issued)
            let delivered = await server.liveScreen(id)
            #expect(delivered.contains(TipJarStrings.english.thankYou) && !delivered.contains("waiting for approval"))
        }
    }

    @Test func anEarlierApprovalsThankYouGivesWayToTheNextRequestsPendingNotice() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let feedback = StoreFeedbackPageTests()
            let id = try await feedback.install(server)
            let first = try await feedback.pendingRequest(server, installID: id)
            #expect(await server.json("POST", "/api/store/pending/\(first)/approve").status == 200)
            #expect(await server.liveScreen(id).contains(TipJarStrings.english.thankYou))

            let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.snack"}"#)
            #expect(purchase.object["outcome"] as? String == "pending")
            let second = try #require(await server.json("GET", "/api/store/pending").array.first?["requestID"] as? Int)
            _ = try await server.service.store.approve(requestID: UInt64(second))
            let between = await server.liveScreen(id)
            #expect(between.contains("waiting for approval"), "the first approval's thank-you, or nothing: \(between.prefix(800))")
        }
    }
}
