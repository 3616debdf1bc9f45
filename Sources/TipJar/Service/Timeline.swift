/// The service's recent history per install, in memory: state changes (`loading` → `ready` /
/// `unavailable`), purchases opening and closing, launches, migrations and store actions
/// (issue 3). Diagnostic only, so it costs no disk write; the durable record is the ledger.
/// Bounded: the last `perInstall` events of at most `maximumInstalls` installs, and the last
/// `overall` events of all.
public actor Timeline {
    private var byInstall: [String: [InstallEvent]] = [:]
    private var installOrder: [String] = []
    private var recent: [InstallEvent] = []
    private let perInstall: Int
    private let overall: Int
    private let maximumInstalls: Int

    /// Creates an empty timeline with the given bounds.
    public init(perInstall: Int = 50, overall: Int = 200, maximumInstalls: Int = 10_000) {
        self.perInstall = perInstall
        self.overall = overall
        self.maximumInstalls = maximumInstalls
    }

    /// Records an event, dropping the oldest beyond the bounds.
    public func append(_ event: InstallEvent) {
        recent.append(event)
        if recent.count > overall { recent.removeFirst(recent.count - overall) }
        guard let id = event.installID else { return }
        if byInstall[id] == nil {
            installOrder.append(id)
            if installOrder.count > maximumInstalls { byInstall[installOrder.removeFirst()] = nil }
        }
        byInstall[id, default: []].append(event)
        if let count = byInstall[id]?.count, count > perInstall { byInstall[id]?.removeFirst(count - perInstall) }
    }

    /// An install's events (or everyone's when `installID` is nil), newest first, at most `limit`.
    public func events(installID: String?, limit: Int) -> [InstallEvent] {
        let events = installID.map { byInstall[$0] ?? [] } ?? recent
        return Array(events.suffix(limit).reversed())
    }
}
