/// What a delivery batch (launch, restore, listener) did.
public struct DeliveryReport: Sendable, Equatable {
    /// Each delivered transaction and its final outcome, in delivery order.
    public var deliveries: [Delivery]
    /// Whether the launch-time legacy migration ran (launch only).
    public var migratedLegacyFlag: Bool
    /// The install's hearts afterwards.
    public var hearts: Int

    /// Creates a report.
    public init(deliveries: [Delivery], migratedLegacyFlag: Bool = false, hearts: Int) {
        self.deliveries = deliveries
        self.migratedLegacyFlag = migratedLegacyFlag
        self.hearts = hearts
    }
}
