import Testing

@testable import Harness

/// The other runnable tasks around a sample come from `/proc/loadavg`'s running count, less the reader.
@Suite struct RunnableTasksTests {
    @Test func runningCountLessTheReader() {
        #expect(RunnableTasks.parse(Array("4.18 2.39 2.08 8/143 28480\n".utf8)) == 7)
        #expect(RunnableTasks.parse(Array("0.00 0.01 0.05 1/97 312\n".utf8)) == 0)
    }

    @Test func malformedLineHasNoCount() {
        #expect(RunnableTasks.parse(Array("".utf8)) == nil)
        #expect(RunnableTasks.parse(Array("0.00 0.01 0.05\n".utf8)) == nil)
        #expect(RunnableTasks.parse(Array("0.00 0.01 0.05 x/97 312\n".utf8)) == nil)
    }

    #if os(Linux)
        @Test func readsThisMachine() {
            #expect(RunnableTasks.others() != nil)
        }
    #endif
}
