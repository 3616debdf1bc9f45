import Foundation
import Testing
import TipJar

/// A declined Ask to Buy is invisible to the app: StoreKit delivers a pending purchase's transaction only "if a
/// pending purchase succeeds" (https://developer.apple.com/documentation/storekit/product/purchaseresult/pending), so
/// the simulated screen keeps its pending notice until the app's next launch, while the store's side shows the decline.
@Suite("A declined Ask to Buy")
struct AskToBuyDeclineTests {
    static let pendingNotice = "Your purchase is waiting for approval. The heart appears once it&#39;s approved."

    @Test func theScreenKeepsItsPendingNoticeAfterADeclineUntilTheNextLaunch() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let feedback = StoreFeedbackPageTests()
            let id = try await feedback.install(server)
            let tid = try await feedback.pendingRequest(server, installID: id)
            let pending = await server.liveScreen(id)
            #expect(pending.contains(Self.pendingNotice) || pending.contains("waiting for approval"), "\(pending.prefix(600))")
            let declined = await server.json("POST", "/api/store/pending/\(tid)/decline")
            #expect(declined.status == 200)
            #expect(declined.object["status"] as? String == "declined")
            let afterDecline = await server.liveScreen(id)
            #expect(afterDecline.contains("waiting for approval"), "the app was never told")
            #expect(afterDecline.contains("askToBuy.declined"), "the store's timeline shows the decline")
            #expect(await server.json("GET", "/api/transactions/\(tid)").status == 404, "a declined request never was a transaction")
            #expect(await server.json("POST", "/api/installs/\(id)/launch").status == 200)
            #expect(!(await server.liveScreen(id)).contains("waiting for approval"), "the next launch clears it")
        }
    }
}
