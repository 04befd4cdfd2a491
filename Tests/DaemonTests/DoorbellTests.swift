import CLibevent
@testable import EventHTTP
import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The cross-thread wake-up that replaces libevent's locks: rings from other threads run the
/// action on the loop's own thread, rings before the loop runs are kept, a closed bell is silent.
@Suite("Doorbell")
struct DoorbellTests {
    /// Runs `base`'s loop on a new thread until `loopbreak` from inside a callback.
    final class LoopThread: @unchecked Sendable {
        let base: OpaquePointer
        let done = Shared(false)
        let loopThread = Shared<pthread_t?>(nil)

        init(base: OpaquePointer) { self.base = base }

        func start() {
            Thread.detachNewThread { [self] in
                loopThread.set(pthread_self())
                event_base_loop(base, EVLOOP_NO_EXIT_ON_EMPTY)
                done.set(true)
            }
        }
    }

    @Test("rings from several threads run the action on the loop's thread; none is lost before the last")
    func ringsFromOtherThreads() throws {
        let base = try #require(event_base_new())
        defer { event_base_free(base) }
        let loop = LoopThread(base: base)
        let runs = Shared(0)
        let onLoopThread = Shared(true)
        let bell = try Doorbell(base: base) {
            runs.set(runs.get() + 1)
            if let thread = loop.loopThread.get(), pthread_equal(thread, pthread_self()) == 0 { onLoopThread.set(false) }
        }
        // Rung before the loop runs: kept in the pipe, delivered once it runs.
        bell.ring()
        loop.start()
        #expect(runs.wait(timeout: 5) { $0 >= 1 } >= 1)
        let before = runs.get()
        let threads = (0..<4).map { _ in Thread { for _ in 0..<200 { bell.ring() } } }
        threads.forEach { $0.start() }
        // Rings coalesce (one run may answer many), but a ring after the others always gets a run.
        #expect(eventually { threads.allSatisfy(\.isFinished) })
        let settled = runs.get()
        bell.ring()
        #expect(runs.wait(timeout: 5) { $0 > settled } > settled)
        #expect(runs.get() > before)
        #expect(onLoopThread.get())
        let stopper = try Doorbell(base: base) { event_base_loopbreak(base) }
        stopper.ring()
        #expect(loop.done.wait(timeout: 5) { $0 })
        bell.invalidate()
        stopper.invalidate()
        bell.ring()  // closed: a no-op, no write into a reused descriptor
    }

    @Test("a closed doorbell leaves no descriptor behind")
    func invalidateClosesBothEnds() throws {
        let base = try #require(event_base_new())
        defer { event_base_free(base) }
        // Tests in other suites open descriptors at the same time, so one attempt can see the
        // lowest free descriptor move without any leak: a leak moves it in every attempt.
        var unchanged = 0
        for _ in 0..<20 {
            let probe = open("/dev/null", O_RDONLY)
            close(probe)
            let bell = try Doorbell(base: base) {}
            bell.invalidate()
            let after = open("/dev/null", O_RDONLY)
            close(after)
            if after == probe { unchanged += 1 }
        }
        #expect(unchanged > 0, "the lowest free descriptor is the same before and after (in some attempt)")
    }
}
