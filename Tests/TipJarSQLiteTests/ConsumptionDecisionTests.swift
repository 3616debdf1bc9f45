import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The developer's consumption information deciding a refund request (`refundRequestDecision`
/// `consumptionInformation`; https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information).
@Suite("Refund decisions from consumption information")
struct ConsumptionDecisionTests {
    static func requested(_ world: TestWorld, _ installID: String) async throws -> UInt64 {
        let id = try await NotificationQueueTests.tip(world, installID)
        try await world.service.beginRefundRequest(transactionID: id, installID: installID, userAction: .submit)
        return id
    }

    @Test func aRefundPreferenceOfDeclineMakesTheRequestADeclineAndAnyOtherAnApproval() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(refundRequestDecision: .consumptionInformation))
        let install = try await world.runningInstall()
        let declined = try await Self.requested(world, install.id)
        let approved = try await Self.requested(world, install.id)
        let v1Declined = try await Self.requested(world, install.id)
        #expect(try await world.storage.refundRequest(transactionID: declined)?.state == .pending, "it waits for the server")
        let answers = [
            (declined, #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED","refundPreference":"DECLINE"}"#),
            (approved, #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_FULL"}"#),
            (v1Declined, #"{"refundPreference":2}"#),
        ]
        for (id, json) in answers {
            try await world.store.recordConsumption(json, transactionID: id)
            try await world.service.consumptionInformationReceived(transactionID: id, json: json)
        }
        #expect(try await world.storage.refundRequest(transactionID: declined)?.state == .declined)
        #expect(try await world.storage.refundRequest(transactionID: approved)?.state == .approved)
        #expect(try await world.storage.refundRequest(transactionID: v1Declined)?.state == .declined)
        #expect(try await world.storage.transaction(withID: approved)?.transaction.isRevoked == true)
        #expect(try await world.service.consumptionInformationReceived(transactionID: declined, json: "{}") == nil, "decided once")
    }

    @Test func theDashboardDecidingFirstOverridesTheServersAnswer() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(refundRequestDecision: .consumptionInformation))
        let install = try await world.runningInstall()
        let id = try await Self.requested(world, install.id)
        try await world.service.approveRefundRequest(transactionID: id)
        #expect(try await world.service.consumptionInformationReceived(transactionID: id, json: #"{"refundPreference":"DECLINE"}"#) == nil)
        #expect(try await world.storage.refundRequest(transactionID: id)?.state == .approved)
    }

    @Test func anApproveAtOnceSettingDeclinesWhenTheServerAlreadyAskedForADecline() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(refundRequestDecision: .approve))
        let install = try await world.runningInstall()
        let id = try await NotificationQueueTests.tip(world, install.id)
        try await world.store.recordConsumption(#"{"refundPreference":"DECLINE"}"#, transactionID: id)
        try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit)
        #expect(try await world.storage.refundRequest(transactionID: id)?.state == .declined)
    }

    /// `GRANT_PRORATED` asks for "a prorated refund": the share not consumed, `100000 - consumptionPercentage`, as a
    /// `REFUND_PRORATED`; nothing consumed is a full refund, everything consumed a decline, no `consumptionPercentage`
    /// a full refund.
    @Test func grantProratedRefundsTheShareNotConsumed() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(refundRequestDecision: .consumptionInformation))
        let install = try await world.runningInstall()
        func answer(_ consumed: Int?) async throws -> UInt64 {
            let id = try await Self.requested(world, install.id)
            let percentage = consumed.map { #","consumptionPercentage":\#($0)"# } ?? ""
            let json = #"{"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED","sampleContentProvided":false\#(percentage)}"#
            try await world.store.recordConsumption(json, transactionID: id)
            try await world.service.consumptionInformationReceived(transactionID: id, json: json)
            return id
        }
        let quarter = try await world.storage.transaction(withID: try await answer(25_000))?.transaction
        #expect(quarter?.revocationType == .proratedRefund && quarter?.revocationPercentage == 75_000)
        let untouched = try await world.storage.transaction(withID: try await answer(0))?.transaction
        #expect(untouched?.revocationType == .fullRefund && untouched?.revocationPercentage == 100_000)
        let unsaid = try await world.storage.transaction(withID: try await answer(nil))?.transaction
        #expect(unsaid?.revocationType == .fullRefund)
        let used = try await answer(100_000)
        #expect(try await world.storage.refundRequest(transactionID: used)?.state == .declined)
        #expect(try await world.storage.transaction(withID: used)?.transaction.isRevoked == false)
    }
}
