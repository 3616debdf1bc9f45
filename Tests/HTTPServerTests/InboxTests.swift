#if os(Linux)
import Foundation
import Glibc
import Synchronization
import Testing
@testable import HTTPServer

/// The inbox that carries responders' answers to the event loop: a responder that finds it empty writes the
/// wake-up after letting go of it, and the loop takes whatever is queued when its eventfd fires (eventfd(2),
/// https://man7.org/linux/man-pages/man2/eventfd.2.html). The loop here is a thread waiting on epoll as the real one
/// does; every wait's timeout only bounds a broken run.
@Suite("Responder inbox")
struct InboxTests {
    static func shutdown(_ number: Int) -> Inbox.Message { .shutdown(deadline: UInt64(number)) }

    @Test func responsesPostedFromManyThreadsAtOnceAllReachTheLoopWithNoWakeUpLost() throws {
        let inbox = Inbox()
        let epfd = SystemCalls.epollCreate()
        try #require(epfd >= 0)
        defer { close(epfd) }
        try #require(SystemCalls.epollAdd(epfd, inbox.eventFD, events: SystemCalls.EPOLLIN) == 0)
        let posters = 8, each = 2_000
        let threads = (0..<posters).map { poster in
            Thread {
                for index in 0..<each { inbox.post(Self.shutdown(poster * each + index)) }
            }
        }
        threads.forEach { $0.start() }
        // The loop: sleep until the eventfd fires, take everything. A message queued with no wake-up on its way
        // would leave this wait to time out with messages missing.
        let events = SystemCalls.EpollEvents(capacity: 4)
        var received = Set<UInt64>()
        while received.count < posters * each {
            guard events.wait(epfd, timeoutMilliseconds: 10_000) > 0 else { break }
            for message in inbox.drain() {
                if case .shutdown(let number) = message { received.insert(number) }
            }
        }
        #expect(received.count == posters * each)
        #expect(received == Set((0..<posters * each).map(UInt64.init)))
        inbox.close()
    }

    /// A responder run on the loop's own thread posts without the eventfd write: the loop takes its answer after the
    /// jobs it ran, before it polls again. A post from another thread meanwhile still wakes it.
    @Test func aMessagePostedOnTheLoopsThreadWritesNoWakeUpAndIsTakenAfterTheJobs() throws {
        let inbox = Inbox()
        defer { inbox.close() }
        var counter: UInt64 = 0
        inbox.post(Self.shutdown(1), fromLoop: true)
        #expect(read(inbox.eventFD, &counter, 8) == -1 && errno == EAGAIN, "a post from the loop's thread woke it")
        inbox.post(Self.shutdown(2), fromLoop: true)
        let taken = inbox.takeMessages().compactMap { message -> UInt64? in
            if case .shutdown(let number) = message { return number }
            return nil
        }
        #expect(taken == [1, 2])
        #expect(inbox.takeMessages().isEmpty)
        inbox.post(Self.shutdown(3))
        #expect(read(inbox.eventFD, &counter, 8) == 8 && counter == 1, "a post from another thread to an empty inbox did not wake the loop")
    }

    @Test func aResponseAfterCloseWritesToNoDescriptor() throws {
        let inbox = Inbox()
        inbox.close()
        // The kernel hands the lowest free number to the next descriptor, so this pipe takes the eventfd's number
        // unless another test, running in parallel, opened one first.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        inbox.post(Self.shutdown(1))
        inbox.close()  // a second close closes nothing either
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == -1, "a response after close wrote into the pipe")
        #expect(fcntl(ends[0], F_GETFD) != -1 && fcntl(ends[1], F_GETFD) != -1, "a second close closed a descriptor it does not own")
    }
}
#endif
