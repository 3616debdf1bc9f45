import Foundation
import Synchronization
import Testing
import TipJar

/// ``ChangeLog``: a change counts for the keys it names and no others, wakes their watchers and no others, and a
/// change of everything, or a log past its key limit, counts for every key.
@Suite("Change log")
struct ChangeLogTests {
    @Test func aChangeToOneInstallLeavesAReaderOfAnotherUnchanged() {
        let log = ChangeLog()
        let a = ChangeRegion.install("install-a", accountID: "account-a")
        let b = ChangeRegion.install("install-b", accountID: "account-b")
        let before = log.value
        log.changed([.install("install-a"), .account("account-a")])
        #expect(log.value == before + 1)
        #expect(!log.isUnchanged(a, since: before))
        #expect(log.isUnchanged(b, since: before))
        #expect(!log.isUnchanged(.everything, since: before), "a reader of everything counts every change")
        #expect(log.isUnchanged(a, since: log.value))
    }

    @Test func aChangeToTheAccountOrTheStoreCountsForEveryInstallThatShowsIt() {
        let log = ChangeLog()
        let before = log.value
        log.changed([.account("account-a")])
        #expect(!log.isUnchanged(.install("install-a2", accountID: "account-a"), since: before), "the account's other device")
        #expect(log.isUnchanged(.install("install-b", accountID: "account-b"), since: before))
        let afterAccount = log.value
        log.changed([.store])
        #expect(!log.isUnchanged(.install("install-b", accountID: "account-b"), since: afterAccount))
        #expect(log.isUnchanged(.keys([.notifications]), since: afterAccount))
    }

    @Test func aWatcherIsWokenByItsOwnKeysOnlyOncePerChange() async {
        let log = ChangeLog()
        var changes = log.changes(of: [.install("install-a"), .account("account-a")]).makeAsyncIterator()
        log.changed([.install("install-b"), .store, .notifications])
        #expect(log.signalCount == 0, "a change elsewhere woke the watcher")
        log.changed([.install("install-a"), .account("account-a")])
        #expect(log.signalCount == 1, "a change to two of its keys is one signal")
        #expect(await changes.next() != nil)
    }

    @Test func anObserverIsCalledOnTheReportingThreadForItsKeysOnlyUntilCancelled() {
        let log = ChangeLog()
        let calls = Mutex(0)
        let observation = log.observe([.notifications]) { calls.withLock { $0 += 1 } }
        log.changed([.install("install-a"), .store])
        #expect(calls.withLock { $0 } == 0, "a change elsewhere called it")
        log.changed([.install("install-a"), .notifications])
        #expect(calls.withLock { $0 } == 1, "called before the change's report returns")
        log.changedEverything()
        #expect(calls.withLock { $0 } == 2)
        observation.cancel()
        log.changed([.notifications])
        #expect(calls.withLock { $0 } == 2 && log.watcherCount == 0, "a cancelled observation is gone")
    }

    @Test func aChangeOfEverythingCountsForEveryKeyAndWakesEveryWatcher() async {
        let log = ChangeLog()
        let of = log.changes(of: [.notifications])
        let all = log.changes()
        let before = log.value
        log.changedEverything()
        #expect(!log.isUnchanged(.keys([.install("any")]), since: before))
        #expect(log.signalCount == 2)
        var ofIterator = of.makeAsyncIterator()
        var allIterator = all.makeAsyncIterator()
        #expect(await ofIterator.next() != nil)
        #expect(await allIterator.next() != nil)
    }

    @Test func pastItsKeyLimitTheLogForgetsItsKeysAndCountsAChangeOfEveryKey() {
        let log = ChangeLog(keyLimit: 3)
        let before = log.value
        log.changed([.install("1"), .install("2"), .install("3")])
        #expect(log.isUnchanged(.keys([.install("4")]), since: before), "within the limit each key is its own")
        log.changed([.install("4")])
        #expect(!log.isUnchanged(.keys([.install("5")]), since: before), "past it, a key it forgot counts as changed")
        let after = log.value
        log.changed([.install("6")])
        #expect(log.isUnchanged(.keys([.install("5")]), since: after), "and it names keys again afterwards")
    }

    @Test func aStreamThatIsNoLongerIteratedEndsItsWatch() async {
        let log = ChangeLog()
        let watching = Task {
            for await _ in log.changes(of: [.store]) {}
        }
        while log.watcherCount == 0 { await Task.yield() }
        watching.cancel()
        await watching.value
        #expect(log.watcherCount == 0)
        log.changed([.store])
        #expect(log.signalCount == 0)
    }

    @Test func aTimelineEventReportsItsInstallAndAStoreWideOneTheStore() {
        let log = ChangeLog()
        let timeline = Timeline(changeLog: log)
        let before = log.value
        timeline.append(InstallEvent(installID: "install-a", at: Date(timeIntervalSince1970: 1), kind: "launch", detail: ""))
        #expect(!log.isUnchanged(.keys([.install("install-a")]), since: before))
        #expect(log.isUnchanged(.keys([.install("install-b"), .store]), since: before))
        let afterInstall = log.value
        timeline.append(InstallEvent(installID: nil, at: Date(timeIntervalSince1970: 2), kind: "store.settings", detail: ""))
        #expect(!log.isUnchanged(.keys([.store]), since: afterInstall))
        #expect(log.isUnchanged(.keys([.install("install-a")]), since: afterInstall))
    }
}
