import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Harness

/// Each timed visit lands its stack frame and heap blocks somewhere else.
@Suite struct LayoutJitterTests {
    @Test func returnsWhatTheBodyReturnsAndRethrows() throws {
        #expect(LayoutJitter.withRandomPlacement { 42 } == 42)
        struct Marker: Error {}
        #expect(throws: Marker.self) { try LayoutJitter.withRandomPlacement { throw Marker() } }
    }

    /// On a thread with room, as perfkit's benchmark threads have: Swift puts the buffer on the heap
    /// where it finds the stack short, which a test's pool thread can be while other suites run.
    @Test func movesTheStackFrameBetweenCalls() {
        let offsets = Mutex(Set<Int>())
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // 60 draws: above 1 KiB Swift puts the buffer on the stack only when its stack check passes,
            // which twice left all 20 draws of a .ci/run alike; at least one of 60 is ≤ 1 KiB (1 − 3e-8).
            for _ in 0..<60 {
                LayoutJitter.withRandomPlacement {
                    var local = 0
                    let offset = withUnsafeMutablePointer(to: &local) { Int(bitPattern: $0) & 4095 }
                    _ = offsets.withLock { $0.insert(offset) }
                }
            }
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
        // 255 possible shifts: 60 draws giving one offset means the frame does not move.
        #expect(offsets.withLock { $0.count } > 1)
    }

    @Test func movesTheNextHeapAllocationBetweenCalls() {
        var addresses = Set<Int>()
        for _ in 0..<20 {
            LayoutJitter.withRandomPlacement {
                let block = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
                addresses.insert(Int(bitPattern: block))
                block.deallocate()
            }
        }
        #expect(addresses.count > 1)
    }

    /// A benchmark that allocates and frees one small block per operation (an array of 16 Ints:
    /// 160 bytes with its header) gets a block of its own on most visits, not the head of one free
    /// list for the whole process.
    @Test(arguments: [32, 160, 1000])
    func givesASmallBlockAllocatedEachVisitADifferentAddress(size: Int) {
        var addresses = Set<Int>()
        for _ in 0..<20 {
            LayoutJitter.withRandomPlacement {
                let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
                addresses.insert(Int(bitPattern: block))
                block.deallocate()
            }
        }
        // Four ways per size (0–3 blocks held off its list): three or more in 20 visits.
        #expect(addresses.count >= 3)
    }
}
