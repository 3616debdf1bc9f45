import Foundation
import Synchronization
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// ``LiveChannels`` without a server: one render per change per install, its bytes handed to every
/// stream of the install, changes during a render collapsed, and nothing left once the streams go.
@Suite("Live channels")
struct LiveChannelTests {
    /// A render that counts its calls and shows the timeline's change count it saw once it finished; a
    /// call made while ``isHeld`` waits until ``release()`` (so the test decides when that render ends).
    final class CountingRender: Sendable {
        let timeline: Timeline
        let calls = Atomic<Int>(0)
        let isHeld = Atomic<Bool>(false)
        let installExists = Atomic<Bool>(true)
        private let gate: AsyncStream<Void>
        private let opener: AsyncStream<Void>.Continuation

        init(timeline: Timeline) {
            self.timeline = timeline
            (gate, opener) = AsyncStream<Void>.makeStream()
        }

        /// Lets the held render finish.
        func release() { opener.finish() }

        var render: LiveChannels.Render {
            { [self] _ in
                calls.add(1, ordering: .relaxed)
                if isHeld.load(ordering: .relaxed) { for await _ in gate {} }
                guard installExists.load(ordering: .relaxed) else { return nil }
                return Array("changes=\(timeline.changeCount)".utf8)
            }
        }
    }

    static func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    /// What install-a's channel watches: the install, its account and the store.
    static let keys = ChangeKey.shown(installID: "install-a", accountID: "account-a")

    @Test func everyStreamOfAnInstallGetsTheSameBytesFromOneRenderPerChange() async throws {
        let timeline = Timeline()
        let channels = LiveChannels(changeLog: timeline.changeLog)
        let counting = CountingRender(timeline: timeline)
        let streams = (0..<50).map { _ in channels.subscribe(installID: "install-a", keys: Self.keys, render: counting.render) }
        var iterators = streams.map { $0.makeAsyncIterator() }
        for index in iterators.indices { #expect(Self.text(await iterators[index].next()) == "changes=0") }
        #expect(channels.renderCount == 1, "50 streams connecting cost one render")

        timeline.noteChange(installID: "install-a")
        for index in iterators.indices { #expect(Self.text(await iterators[index].next()) == "changes=1") }
        #expect(channels.renderCount == 2, "one change costs one render, however many streams watch")
        #expect(channels.openCounts == (1, 50))
    }

    @Test func aChangeToItsAccountWakesTheChannelAndOnlyAChangedRenderIsSent() async throws {
        let log = ChangeLog()
        let channels = LiveChannels(changeLog: log)
        let shown = Mutex("hearts=0")
        let renders = Atomic<Int>(0)
        let render: LiveChannels.Render = { _ in
            renders.add(1, ordering: .relaxed)
            return Array(shown.withLock { $0 }.utf8)
        }
        var events = channels.subscribe(installID: "install-a", keys: Self.keys, render: render).makeAsyncIterator()
        #expect(Self.text(await events.next()) == "hearts=0")
        #expect(await eventually { log.watcherCount == 1 })

        // A commit nobody signalled, to the install's account (another device's delivery): rendered and sent.
        shown.withLock { $0 = "hearts=1" }
        log.changed([.account("account-a")])
        #expect(Self.text(await events.next()) == "hearts=1")

        // A change that shows nothing new on this install: rendered, not sent; the next real change is.
        let before = renders.load(ordering: .relaxed)
        log.changed([.store])
        #expect(await eventually { renders.load(ordering: .relaxed) > before })
        shown.withLock { $0 = "hearts=2" }
        log.changed([.install("install-a")])
        #expect(Self.text(await events.next()) == "hearts=2", "the unchanged render was not handed to the stream")
    }

    @Test func aChangeToAnotherInstallOrAccountWakesNoChannelButTheirs() async throws {
        let log = ChangeLog()
        let channels = LiveChannels(changeLog: log)
        let render: LiveChannels.Render = { installID in Array(installID.utf8) }
        var events = channels.subscribe(installID: "install-a", keys: Self.keys, render: render).makeAsyncIterator()
        #expect(Self.text(await events.next()) == "install-a")
        #expect(await eventually { log.watcherCount == 1 })
        let signals = log.signalCount
        log.changed([.install("install-b"), .account("account-b")])
        log.changed([.notifications])
        #expect(log.signalCount == signals, "a change elsewhere woke install-a's channel")
        log.changed([.install("install-b"), .account("account-a")])
        #expect(log.signalCount == signals + 1, "one signal for a change that touched its account")
    }

    @Test func changesThatComeWhileARenderRunsCollapseIntoOneMoreRender() async throws {
        let timeline = Timeline()
        let channels = LiveChannels(changeLog: timeline.changeLog)
        let counting = CountingRender(timeline: timeline)
        var events = channels.subscribe(installID: "install-a", keys: Self.keys, render: counting.render).makeAsyncIterator()
        #expect(Self.text(await events.next()) == "changes=0")

        counting.isHeld.store(true, ordering: .relaxed)
        timeline.noteChange(installID: "install-a")
        #expect(await eventually { channels.renderCount == 2 })
        for _ in 0..<10 { timeline.noteChange(installID: "install-a") }
        counting.isHeld.store(false, ordering: .relaxed)
        counting.release()
        while Self.text(await events.next()) != "changes=11" {}
        // Any render still owed for the ten changes comes before the one for this last change.
        timeline.noteChange(installID: "install-a")
        while let event = Self.text(await events.next()), event != "changes=12" {}
        #expect(channels.renderCount <= 4, "the first render, the held one, one for the ten changes, one for the last")
    }

    @Test func theChannelItsTaskAndItsTimelineWatcherAreGoneOnceTheLastStreamLeaves() async throws {
        let timeline = Timeline()
        let channels = LiveChannels(changeLog: timeline.changeLog)
        let counting = CountingRender(timeline: timeline)
        let readers = (0..<3).map { _ in
            let stream = channels.subscribe(installID: "install-a", keys: Self.keys, render: counting.render)
            return Task { for await _ in stream {} }
        }
        #expect(await eventually { timeline.watcherCount == 1 && channels.openCounts == (1, 3) })
        readers[0].cancel()
        #expect(await eventually { channels.openCounts == (1, 2) })
        for reader in readers { reader.cancel() }
        #expect(await eventually { channels.openCounts == (0, 0) && timeline.watcherCount == 0 })
    }

    @Test func aRenderThatFindsNoInstallEndsEveryStreamOfItsChannel() async throws {
        let timeline = Timeline()
        let channels = LiveChannels(changeLog: timeline.changeLog)
        let counting = CountingRender(timeline: timeline)
        let streams = (0..<3).map { _ in channels.subscribe(installID: "install-a", keys: Self.keys, render: counting.render) }
        var iterators = streams.map { $0.makeAsyncIterator() }
        for index in iterators.indices { #expect(await iterators[index].next() != nil) }
        counting.installExists.store(false, ordering: .relaxed)
        timeline.noteChange(installID: "install-a")
        for index in iterators.indices { #expect(await iterators[index].next() == nil) }
        #expect(await eventually { channels.openCounts == (0, 0) && timeline.watcherCount == 0 })
    }
}
